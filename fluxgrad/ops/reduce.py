"""Reductions: sum, mean and friends, with `axis`/`dim` and `keepdim`/`keepdims`."""
import numpy as np

from .._core.dispatch import apply
from .._core.primitive import Primitive
from .._core.tensor import tensor_method
from ._family import float_result, normalize_axis
from .shape import broadcast_to, expand_reduced

__all__ = ["sum", "mean"]


sum_p = Primitive(
    "sum", lambda x, *, axis, keepdims: np.sum(x, axis=axis, keepdims=keepdims),
    vjp=(lambda out_bar, out, x, *, axis, keepdims:
         broadcast_to(expand_reduced(out_bar, x.ndim, axis, keepdims), x.shape),),
    jvp=lambda tangents, out, x, *, axis, keepdims: sum(tangents[0], axis, keepdims))


def _axis_args(x, axis, dim, keepdim, keepdims, op):
    if dim is not None:
        axis = dim
    return normalize_axis(axis, x.ndim, op), bool(keepdim or keepdims)


@tensor_method("sum")
def sum(x, axis=None, keepdim=False, *, dim=None, keepdims=False, dtype=None):
    """Sum over `axis` (an int, a tuple, or None for all)."""
    axis, keepdims = _axis_args(x, axis, dim, keepdim, keepdims, "sum")
    if dtype is not None:
        x = x.astype(dtype)
    elif x._data.dtype.kind in "bi":
        x = x.astype("int64")
    return apply(sum_p, x, axis=axis, keepdims=keepdims)


@tensor_method("mean")
def mean(x, axis=None, keepdim=False, *, dim=None, keepdims=False):
    """Arithmetic mean over `axis`."""
    x = float_result(x)
    axis, keepdims = _axis_args(x, axis, dim, keepdim, keepdims, "mean")
    count = x.size if axis is None else int(np.prod([x.shape[a] for a in axis]))
    return sum(x, axis, keepdims) / count
