"""Whether ops record the graph: thread-local, switched by context managers that are also decorators."""
import functools
import threading


class _State(threading.local):
    enabled = True


state = _State()


def is_grad_enabled():
    return state.enabled


class set_grad_enabled:
    """Turn graph recording on or off: `set_grad_enabled(False)` as a call, `with` block or decorator."""

    def __init__(self, mode=True):
        self.prev = state.enabled
        self.mode = bool(mode)
        state.enabled = self.mode

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        state.enabled = self.prev

    def __call__(self, fn):
        mode = self.mode
        state.enabled = self.prev

        @functools.wraps(fn)
        def wrapper(*args, **kwargs):
            with set_grad_enabled(mode):
                return fn(*args, **kwargs)
        return wrapper


class no_grad(set_grad_enabled):
    """Ops inside record no graph (`with no_grad():` or `@no_grad()`)."""

    def __init__(self):
        self.prev = state.enabled
        self.mode = False

    def __enter__(self):
        self.prev = state.enabled
        state.enabled = False
        return self


class enable_grad(set_grad_enabled):
    """Ops inside record the graph again, even within `no_grad`."""

    def __init__(self):
        self.prev = state.enabled
        self.mode = True

    def __enter__(self):
        self.prev = state.enabled
        state.enabled = True
        return self
