"""Whether ops record the graph: thread-local, switched by context managers that are also
decorators (`with no_grad():`, `@no_grad()` or `@no_grad`).

`disabled` holds the ids of the threads that have it off now: while it is empty, the eager
hot path (`apply`) need not read the thread-local state (a slower read). Adding to and
discarding from a set are single steps under the GIL, so switching takes no lock.
"""
import contextlib
import functools
import inspect
import threading


class _State(threading.local):
    enabled = True


state = _State()


disabled = set()
_get_ident = threading.get_ident


def _set(mode):
    """Switch this thread's grad mode, keeping `disabled` in step."""
    if state.enabled is not mode:
        if mode:
            disabled.discard(_get_ident())
        else:
            disabled.add(_get_ident())
        state.enabled = mode


def is_grad_enabled():
    return state.enabled


class _GradMode:
    mode = True

    def __new__(cls, *args, **kwargs):
        self = super().__new__(cls)
        if cls is not set_grad_enabled and len(args) == 1 and callable(args[0]):
            return self(args[0])  # used as a decorator without parentheses
        return self

    def __enter__(self):
        self.prev = state.enabled
        _set(self.mode)
        return self

    def __exit__(self, *exc):
        _set(self.prev)

    def __call__(self, fn):
        mode = self.mode
        if inspect.isgeneratorfunction(fn):
            return _each_resumption(fn, mode)

        @functools.wraps(fn)
        def wrapper(*args, **kwargs):
            prev = state.enabled
            _set(mode)
            try:
                return fn(*args, **kwargs)
            finally:
                _set(prev)
        return wrapper


@contextlib.contextmanager
def _switched(mode):
    prev = state.enabled
    _set(mode)
    try:
        yield
    finally:
        _set(prev)


def _each_resumption(fn, mode):
    """A decorated generator function runs under `mode` each time it resumes, and the
    caller's mode holds between resumptions (PyTorch's behaviour)."""
    @functools.wraps(fn)
    def generator(*args, **kwargs):
        gen = fn(*args, **kwargs)
        try:
            with _switched(mode):
                response = gen.send(None)
            while True:
                try:
                    request = yield response
                except GeneratorExit:
                    with _switched(mode):
                        gen.close()
                    raise
                except BaseException as error:
                    with _switched(mode):
                        response = gen.throw(error)
                else:
                    with _switched(mode):
                        response = gen.send(request)
        except StopIteration as stop:
            return stop.value
    return generator


class no_grad(_GradMode):
    """Ops inside record no graph."""
    mode = False


class enable_grad(_GradMode):
    """Ops inside record the graph again, even within `no_grad`."""
    mode = True


class set_grad_enabled(_GradMode):
    """Turn graph recording on or off: as a call (takes effect at once), `with` block or
    decorator."""

    def __init__(self, mode=True):
        self.mode = bool(mode)
        self.prev = state.enabled
        _set(self.mode)

    def __enter__(self):
        return self  # already switched by the call; __exit__ restores

    def __call__(self, fn):
        _set(self.prev)
        return super().__call__(fn)
