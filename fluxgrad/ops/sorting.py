"""Sorting: sort, argsort, topk, kthvalue. Composites: the values are the input gathered at
the sorting permutation (`take_along_dim`), so gradients flow back to where each value came
from, to any order, with no rule of their own."""
import numpy as np

from .._core.dispatch import apply
from .._core.errors import ShapeError
from .._core.tensor import tensor_method
from ._batch import along_axes
from .elementwise import no_grad_primitive
from .indexing import take_along_dim
from .reduce import ValuesIndices

__all__ = ["sort", "argsort", "topk", "kthvalue"]


def _dim(x, dim, op):
    ndim = max(x.ndim, 1)
    if not -ndim <= dim < ndim:
        raise IndexError(f"{op}: dim {dim} is out of range for a tensor of {x.ndim} dimensions")
    return dim % ndim


def _order(data, *, axis, descending):
    """A stable sorting permutation along `axis` (int64)."""
    if descending:
        # sorting -x ascending, stably, keeps ties in their original order
        data = -(data.astype(np.int64) if data.dtype.kind in "bi" else data)
    return np.argsort(data, axis=axis, kind="stable").astype(np.int64)


argsort_p = no_grad_primitive("argsort", _order)
argsort_p.batch = along_axes("argsort", "axis")


@tensor_method("argsort")
def argsort(x, dim=-1, descending=False, stable=False, *, axis=None):
    """Indices that sort `x` along `dim` (int64)."""
    dim = _dim(x, dim if axis is None else axis, "argsort")
    if not x.ndim:
        return apply(argsort_p, x.reshape(1), axis=0, descending=descending).reshape(())
    return apply(argsort_p, x, axis=dim, descending=descending)


@tensor_method("sort")
def sort(x, dim=-1, descending=False, stable=False, *, axis=None):
    """(values, indices) of `x` sorted along `dim`; ties keep their order."""
    dim = _dim(x, dim if axis is None else axis, "sort")
    indices = argsort(x, dim, descending)
    if not x.ndim:
        return ValuesIndices(x, indices)
    return ValuesIndices(take_along_dim(x, indices, dim), indices)


@tensor_method("topk")
def topk(x, k, dim=-1, largest=True, sorted=True, *, axis=None):
    """(values, indices) of the `k` largest (or smallest) elements along `dim`."""
    dim = _dim(x, dim if axis is None else axis, "topk")
    size = x.shape[dim] if x.ndim else 1
    if not 0 <= k <= size:
        raise ShapeError(f"topk: k={k} is out of range for dimension {dim} of size {size}")
    if not x.ndim:
        indices = argsort(x).reshape(1)[:k]
        return ValuesIndices(x if k else x.reshape(1)[:0], indices.reshape(()) if k else indices)
    indices = argsort(x, dim, descending=largest).narrow(dim, 0, k)
    return ValuesIndices(take_along_dim(x, indices, dim), indices)


@tensor_method("kthvalue")
def kthvalue(x, k, dim=-1, keepdim=False, *, axis=None):
    """(values, indices) of the k-th smallest element (1-based) along `dim`."""
    if axis is not None:
        dim = axis
    values, indices = topk(x, k, dim, largest=False)
    dim = _dim(x, dim, "kthvalue")
    if x.ndim:
        values = values.narrow(dim, k - 1, 1)
        indices = indices.narrow(dim, k - 1, 1)
        if not keepdim:
            values, indices = values.squeeze(dim), indices.squeeze(dim)
    return ValuesIndices(values, indices)
