"""PyTorch's legacy `Variable`: since PyTorch 0.4 every tensor is one.

`Variable(t, requires_grad=True)` returns a new leaf sharing t's data (as PyTorch
does); `volatile` has no effect (a warning says to use `no_grad`); any tensor is
an instance of `Variable`.
"""
import warnings

from .._core.tensor import Tensor

__all__ = ["Variable"]


class _VariableType(type):
    def __instancecheck__(cls, obj):
        return isinstance(obj, Tensor)

    def __subclasscheck__(cls, sub):
        return issubclass(sub, Tensor)

    def __call__(cls, data, requires_grad=False, volatile=False):
        if volatile:
            warnings.warn("Variable(volatile=True) has no effect; wrap inference in "
                          "`with fluxgrad.no_grad():` instead", UserWarning, stacklevel=2)
        if not isinstance(data, Tensor):
            raise TypeError(f"Variable data has to be a tensor, but got {type(data).__name__}; "
                            "make one with fluxgrad.tensor(data)")
        return data.detach().requires_grad_(requires_grad)


class Variable(metaclass=_VariableType):
    """A tensor (legacy name): `Variable(tensor, requires_grad=False)`."""
