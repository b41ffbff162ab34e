"""`fluxgrad.utils`: PyTorch's `torch.utils` path (`utils.data`)."""
from . import data

__all__ = ["data"]
