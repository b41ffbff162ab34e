"""PyTorch's `inference_mode`: a `no_grad` block whose new tensors are inference tensors
(`Tensor.is_inference()`); `inference_mode(False)` leaves inference mode and turns grad mode
on inside, as PyTorch's does.

`active.count` is how many threads are in inference mode now: while it is 0, making a tensor
need not read the thread-local depth (a slower read). `active.entered`: whether any thread has
been in inference mode (until then no inference tensor exists for autograd to refuse to save).
"""
import functools
import inspect
import threading

from .grad_mode import _GradMode


class _Inference(threading.local):
    depth = 0  # how many inference_mode(True) blocks enclose the code (0 under mode False)


class _Active:
    __slots__ = ("count", "entered")

    def __init__(self):
        self.count = 0
        self.entered = False


_inference = _Inference()
active = _Active()
_lock = threading.Lock()


def _set_depth(depth):
    """Set this thread's depth, keeping `active.count` in step."""
    if (_inference.depth > 0) != (depth > 0):
        with _lock:
            active.count += 1 if depth > 0 else -1
            active.entered = True
    _inference.depth = depth


def is_inference_mode_enabled():
    return _inference.depth > 0


def is_inference_now():
    """Whether a tensor made now is an inference tensor."""
    return active.count > 0 and _inference.depth > 0


class inference_mode(_GradMode):
    """Ops inside record no graph and make inference tensors; as a context manager or a
    decorator. `inference_mode(False)` is a block outside inference mode, with grad on."""
    mode = False  # the grad mode inside (also when used bare, `@inference_mode`)

    def __init__(self, mode=True):
        self.active = bool(mode)
        self.mode = not self.active

    def _depth_inside(self, depth):
        return depth + 1 if getattr(self, "active", True) else 0

    def __enter__(self):
        self.prev_depth = _inference.depth
        _set_depth(self._depth_inside(self.prev_depth))
        return super().__enter__()

    def __exit__(self, *exc):
        _set_depth(self.prev_depth)
        return super().__exit__(*exc)

    def __call__(self, fn):
        inner = super().__call__(fn)
        if inspect.isgeneratorfunction(fn):
            return inner

        @functools.wraps(fn)
        def wrapper(*args, **kwargs):
            prev = _inference.depth
            _set_depth(self._depth_inside(prev))
            try:
                return inner(*args, **kwargs)
            finally:
                _set_depth(prev)
        return wrapper
