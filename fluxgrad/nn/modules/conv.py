"""PyTorch's path `nn.modules.conv` to fluxgrad.nn's classes."""
from ..layers import _ConvNd  # noqa: F401
from .. import Conv1d, Conv2d, Conv3d, ConvTranspose1d, ConvTranspose2d, ConvTranspose3d

__all__ = ["Conv1d", "Conv2d", "Conv3d", "ConvTranspose1d", "ConvTranspose2d",
           "ConvTranspose3d"]
