"""PyTorch's `inference_mode`: a `no_grad` block (fluxgrad has no separate inference
tensors); `inference_mode(False)` leaves the grad mode as it is."""
from .grad_mode import no_grad, state


class inference_mode(no_grad):
    """Ops inside record no graph; as a context manager or a decorator."""

    def __init__(self, mode=True):
        self.active = bool(mode)

    def __enter__(self):
        if not self.active:
            self.mode = state.enabled
        return super().__enter__()

    def __call__(self, fn):
        return super().__call__(fn) if self.active else fn


