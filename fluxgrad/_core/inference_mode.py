"""PyTorch's `inference_mode`: a `no_grad` block (fluxgrad has no separate inference
tensors); `inference_mode(False)` leaves the grad mode as it is."""
import functools
import inspect
import threading

from .grad_mode import no_grad, state


class _Inference(threading.local):
    depth = 0  # how many active inference_mode(True) blocks enclose the current code


_inference = _Inference()


def is_inference_mode_enabled():
    return _inference.depth > 0


class inference_mode(no_grad):
    """Ops inside record no graph; as a context manager or a decorator."""

    def __init__(self, mode=True):
        self.active = bool(mode)

    def __enter__(self):
        if not self.active:
            self.mode = state.enabled
        else:
            _inference.depth += 1
        return super().__enter__()

    def __exit__(self, *exc):
        if self.active:
            _inference.depth -= 1
        return super().__exit__(*exc)

    def __call__(self, fn):
        if not getattr(self, "active", True):  # (unset when used bare, `@inference_mode`)
            return fn
        inner = super().__call__(fn)
        if inspect.isgeneratorfunction(fn):
            return inner

        @functools.wraps(fn)
        def wrapper(*args, **kwargs):
            _inference.depth += 1
            try:
                return inner(*args, **kwargs)
            finally:
                _inference.depth -= 1
        return wrapper


