"""`fluxgrad.signal`, PyTorch's `torch.signal`: the window functions in `signal.windows`."""
from . import windows

__all__ = ["windows"]
