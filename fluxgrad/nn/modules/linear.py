"""PyTorch's path `nn.modules.linear` to fluxgrad.nn's classes."""
from .. import Bilinear, Identity, LazyLinear, Linear

__all__ = ["Bilinear", "Identity", "LazyLinear", "Linear"]
