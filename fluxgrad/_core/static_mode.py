"""Static-mode state, read by the eager hot path.

`armed` turns True the first time static mode is enabled or a static Variable is
made, and stays so; until then `apply` pays one attribute read. `stage(prim,
inputs, params)` (set by `fluxgrad.static`) returns the staged outputs, or
NotImplemented when neither static mode is on nor an input is a Variable.
"""


class _State:
    __slots__ = ("armed", "enabled", "stage")

    def __init__(self):
        self.armed = False
        self.enabled = False
        self.stage = None


state = _State()
