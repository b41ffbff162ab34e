"""PyTorch's path `nn.modules.module` to fluxgrad's Module."""
from ..module import Module

__all__ = ["Module"]
