"""PyTorch's path `nn.modules.flatten` to fluxgrad.nn's classes."""
from .. import Flatten, Unflatten

__all__ = ["Flatten", "Unflatten"]
