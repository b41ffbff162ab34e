"""PyTorch's path `nn.modules.lazy` to fluxgrad.nn's LazyModuleMixin."""
from ..lazy import LazyModuleMixin

__all__ = ["LazyModuleMixin"]
