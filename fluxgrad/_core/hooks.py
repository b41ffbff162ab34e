"""Handles returned by `register_hook`: `.remove()` takes the hook off again."""


class HookHandle:
    """Returned by `register_hook`; `.remove()` takes the hook off."""
    __slots__ = ("table", "key")
    _next_key = 0

    def __init__(self, table, fn):
        HookHandle._next_key += 1
        self.table, self.key = table, HookHandle._next_key
        table[self.key] = fn

    def remove(self):
        self.table.pop(self.key, None)
