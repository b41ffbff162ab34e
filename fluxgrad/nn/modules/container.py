"""PyTorch's path `nn.modules.container` to fluxgrad.nn's classes."""
from .. import Sequential, ModuleList, ModuleDict, ParameterList, ParameterDict

__all__ = ["Sequential", "ModuleList", "ModuleDict", "ParameterList", "ParameterDict"]
