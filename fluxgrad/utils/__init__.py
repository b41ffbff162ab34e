"""`fluxgrad.utils`: PyTorch's `torch.utils` paths (`utils.data`, `utils.checkpoint`)."""
from . import checkpoint, data

__all__ = ["checkpoint", "data"]
