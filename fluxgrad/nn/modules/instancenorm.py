"""PyTorch's path `nn.modules.instancenorm` to fluxgrad.nn's classes."""
from ..extra_layers import _InstanceNorm  # noqa: F401
from .. import InstanceNorm1d, InstanceNorm2d, InstanceNorm3d
from ..lazy import LazyInstanceNorm1d, LazyInstanceNorm2d, LazyInstanceNorm3d

__all__ = ["InstanceNorm1d", "InstanceNorm2d", "InstanceNorm3d", "LazyInstanceNorm1d",
           "LazyInstanceNorm2d", "LazyInstanceNorm3d"]
