"""PyTorch's path `nn.modules.upsampling` to fluxgrad.nn's classes."""
from .. import Upsample, UpsamplingNearest2d, UpsamplingBilinear2d

__all__ = ["Upsample", "UpsamplingNearest2d", "UpsamplingBilinear2d"]
