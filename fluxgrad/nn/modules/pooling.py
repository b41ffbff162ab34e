"""PyTorch's path `nn.modules.pooling` to fluxgrad.nn's classes."""
from .. import (MaxPool1d, MaxPool2d, MaxPool3d, MaxUnpool1d, MaxUnpool2d, MaxUnpool3d,
                AvgPool1d, AvgPool2d, AvgPool3d, LPPool1d, LPPool2d, LPPool3d,
                AdaptiveMaxPool1d, AdaptiveMaxPool2d, AdaptiveAvgPool1d, AdaptiveAvgPool2d,
                AdaptiveAvgPool3d)

__all__ = ["MaxPool1d", "MaxPool2d", "MaxPool3d", "MaxUnpool1d", "MaxUnpool2d", "MaxUnpool3d",
           "AvgPool1d", "AvgPool2d", "AvgPool3d", "LPPool1d", "LPPool2d", "LPPool3d",
           "AdaptiveMaxPool1d", "AdaptiveMaxPool2d", "AdaptiveAvgPool1d", "AdaptiveAvgPool2d",
           "AdaptiveAvgPool3d"]
