"""Reverse-mode entry points, custom functions and gradient checking."""
from .._core.engine import backward, grad
from . import forward_ad

__all__ = ["backward", "grad"]
