"""PyTorch's path `nn.modules.normalization` to fluxgrad.nn's classes."""
from .. import LocalResponseNorm, LayerNorm, GroupNorm, RMSNorm

__all__ = ["LocalResponseNorm", "LayerNorm", "GroupNorm", "RMSNorm"]
