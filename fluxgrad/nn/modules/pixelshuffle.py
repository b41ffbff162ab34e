"""PyTorch's path `nn.modules.pixelshuffle` to fluxgrad.nn's classes."""
from .. import PixelShuffle, PixelUnshuffle

__all__ = ["PixelShuffle", "PixelUnshuffle"]
