"""Reverse-mode entry points, custom functions and gradient checking."""
from .._core.engine import backward, grad

__all__ = ["backward", "grad"]
