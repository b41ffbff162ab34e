"""The complex conjugate as a primitive, and `conj_rule`, the conjugate the derivative rules
of holomorphic ops apply (PyTorch's convention: for a real loss L of z = x + iy, the gradient
is dL/dx + i dL/dy, so a VJP multiplies the cotangent by the conjugate derivative).

`conj_rule` of anything real (a tensor, an array, a number) is that value itself, with no
op dispatched: real-dtype rules pay one type check. `refuse_complex` is PyTorch's refusal of
complex tensors by the ops defined on real numbers only (orderings, max, sort, clamp, ...).
"""
import numpy as np

from .._core.dispatch import apply
from .._core.errors import DTypeNotImplemented
from .._core.primitive import Primitive
from .._core.tensor import Tensor
from ._batch import broadcasting

_ndarray = np.ndarray

conj_p = Primitive(
    "conj", np.conjugate,
    vjp=(lambda out_bar, out, x: conj_rule(out_bar),),
    jvp=lambda tangents, out, x: conj_rule(tangents[0]),
    saves_inputs=False, linear="all", batch=broadcasting("conj"))


def conj_rule(x):
    """conj(x) for a Tensor, an array or a number; `x` itself when it is real."""
    if type(x) is _ndarray:  # (first: a backward pass that records nothing runs on arrays)
        return x if x.dtype.kind != "c" else np.conjugate(x)
    if type(x) is Tensor:
        return x if x._data.dtype.kind != "c" else apply(conj_p, x)
    if isinstance(x, Tensor):  # a batched or staged value
        return apply(conj_p, x) if x.dtype.is_complex else x
    return x.conjugate() if isinstance(x, complex) else x


def refuse_complex(x, op, error=DTypeNotImplemented):
    """Raise `error` (the class matching PyTorch's) if `x` is a complex tensor."""
    if isinstance(x, Tensor) and x._data.dtype.kind == "c":
        raise error(f"{op} is not implemented for complex tensors ({x.dtype}), as in PyTorch "
                    "(it is defined on real numbers only); apply it to x.real, x.imag or "
                    "x.abs()")
