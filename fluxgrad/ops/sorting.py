"""Sorting: sort, argsort, topk, kthvalue, median, nanmedian, mode, unique, unique_consecutive.

The values are the input gathered at an index (the sorting permutation, or the index of the
median or mode) with `take_along_dim`, so gradients flow back to where each value came from, to
any order, with no rule of their own. `unique` and `unique_consecutive` have no gradient and a
shape that depends on the data, as in PyTorch."""
import numpy as np

from .._core.dispatch import apply
from .._core.errors import DTypeError, ShapeError
from .._core.primitive import Primitive
from .._core.tensor import Tensor, tensor_method
from ._batch import along_axes
from ._conj import refuse_complex
from ._family import dtype_of, refuse_kinds, refuse_python_value
from .elementwise import no_grad_primitive
from .indexing import example_by_example, take_along_dim
from .reduce import ValuesIndices, _reduction, evenly_distributed, sum as sum_
from .elementwise import isnan, logical_not, where
from .shape import clone

__all__ = ["sort", "argsort", "topk", "kthvalue", "median", "nanmedian", "mode", "unique",
           "unique_consecutive"]


def _dim(x, dim, op):
    try:
        ndim = max(x.ndim, 1)
    except AttributeError:
        refuse_python_value(x, op)
        raise
    if not -ndim <= dim < ndim:
        raise IndexError(f"{op}: dim {dim} is out of range for a tensor of {x.ndim} dimensions")
    return dim % ndim


def _order(data, *, axis, descending):
    """A stable sorting permutation along `axis` (int64); NaN is the largest value, as
    PyTorch (last ascending, first descending)."""
    if descending:
        # sorting -x ascending, stably, keeps ties in their original order
        negated = -(data.astype(np.int64) if data.dtype.kind in "biu" else data)
        if data.dtype.kind != "f":
            return np.argsort(negated, axis=axis, kind="stable").astype(np.int64)
        return np.lexsort((negated, ~np.isnan(data)), axis=axis).astype(np.int64)
    return np.argsort(data, axis=axis, kind="stable").astype(np.int64)


argsort_p = no_grad_primitive("argsort", _order)
argsort_p.batch = along_axes("argsort", "axis")


@tensor_method("argsort")
def argsort(x, dim=-1, descending=False, stable=False, *, axis=None):
    """Indices that sort `x` along `dim` (int64)."""
    refuse_complex(x, "argsort", DTypeError)
    dim = _dim(x, dim if axis is None else axis, "argsort")
    if not x.ndim:
        return apply(argsort_p, x.reshape(1), axis=0, descending=descending).reshape(())
    return apply(argsort_p, x, axis=dim, descending=descending)


@tensor_method("sort")
def sort(x, dim=-1, descending=False, stable=False, *, axis=None):
    """(values, indices) of `x` sorted along `dim`; ties keep their order."""
    if stable is not None and not isinstance(stable, bool):
        raise TypeError(f"sort(): stable must be a bool (or None), got "
                        f"{type(stable).__name__} {stable!r}")
    refuse_complex(x, "sort", DTypeError)
    dim = _dim(x, dim if axis is None else axis, "sort")
    indices = argsort(x, dim, descending)
    if not x.ndim:
        return ValuesIndices(x, indices)
    return ValuesIndices(take_along_dim(x, indices, dim), indices)


@tensor_method("topk")
def topk(x, k, dim=-1, largest=True, sorted=True, *, axis=None):
    """(values, indices) of the `k` largest (or smallest) elements along `dim`."""
    refuse_kinds(x, "b", "topk", DTypeError)
    refuse_complex(x, "topk", DTypeError)
    return _top(x, k, dim if axis is None else axis, largest)


def _top(x, k, dim, largest):
    dim = _dim(x, dim, "topk")
    size = x.shape[dim] if x.ndim else 1
    if not 0 <= k <= size:
        raise ShapeError(f"topk: k={k} is out of range for dimension {dim} of size {size}")
    if not x.ndim:  # (k=0 too gives the element, as PyTorch)
        return ValuesIndices(clone(x), argsort(x))
    indices = argsort(x, dim, descending=largest).narrow(dim, 0, k)
    return ValuesIndices(take_along_dim(x, indices, dim), indices)


@tensor_method("kthvalue")
def kthvalue(x, k, dim=-1, keepdim=False, *, axis=None):
    """(values, indices) of the k-th smallest element (1-based) along `dim`."""
    if axis is not None:
        dim = axis
    dim = _dim(x, dim, "kthvalue")
    size = x.shape[dim] if x.ndim else 1
    if size == 0:
        raise IndexError(f"kthvalue: reduction dim {dim} has size 0 (shape {list(x.shape)}); "
                         "it needs at least k elements")
    if not 1 <= k <= size:
        raise ShapeError(f"kthvalue: k={k} is out of range for dimension {dim} of size {size} "
                         f"(k counts from 1)")
    if x.ndim:
        refuse_kinds(x, "b", "kthvalue")
    values, indices = _top(x, k, dim, largest=False)
    if x.ndim:
        values = values.narrow(dim, k - 1, 1)
        indices = indices.narrow(dim, k - 1, 1)
        if not keepdim:
            values, indices = values.squeeze(dim), indices.squeeze(dim)
    return ValuesIndices(values, indices)


def _lower_median(x, dim, keepdim, op, *, skip_nan):
    """(values, indices) of the lower median along `dim`: the element at rank (n - 1) // 2 of
    a stable sort (NaN sorts last). With NaNs, `median` picks the first NaN and `nanmedian`
    the lower median of the others (of all n when every entry is NaN), as PyTorch."""
    dim = _dim(x, dim, op)
    if not x.ndim:
        return ValuesIndices(x, Tensor._make(np.zeros((), np.int64)))
    n = x.shape[dim]
    if n == 0:
        raise IndexError(f"{op}: dimension {dim} of the input (shape {list(x.shape)}) is empty; "
                         "the median of no elements is not defined")
    order = argsort(x, dim)
    count = sum_(logical_not(isnan(x)), dim, keepdim=True)
    if skip_nan:
        rank = where(count == 0, (n - 1) // 2, (count - 1) // 2)
    else:
        rank = where(count < n, count, (n - 1) // 2)  # the first NaN, sorted after the numbers
    indices = take_along_dim(order, rank, dim)
    values = take_along_dim(x, indices, dim)
    if not keepdim:
        values, indices = values.squeeze(dim), indices.squeeze(dim)
    return ValuesIndices(values, indices)


def _refuse_bool(x, op):
    dtype = dtype_of(x, op)
    if dtype == np.bool_:
        raise NotImplementedError(f"{op}: not implemented for bool tensors, as in PyTorch; "
                                  "convert first (x.long())")


def _median_impl(skip_nan):
    """The lower median over `axis` (None: all): NaN if any entry is NaN, or with `skip_nan`
    the lower median of the others (NaN when all are), as `_lower_median` picks it."""
    def impl(x, *, axis, keepdims):
        axes = tuple(range(x.ndim)) if axis is None else tuple(axis)
        kept = [d for d in range(x.ndim) if d not in axes]
        rows = np.transpose(x, kept + list(axes)).reshape([x.shape[d] for d in kept] + [-1])
        n = rows.shape[-1]
        rank = np.full(rows.shape[:-1] + (1,), (n - 1) // 2)
        if rows.dtype.kind == "f":
            count = np.sum(~np.isnan(rows), axis=-1, keepdims=True)
            rank = (np.where(count == 0, rank, (count - 1) // 2) if skip_nan else
                    np.where(count < n, count, rank))  # the first NaN, sorted last
        out = np.take_along_axis(np.sort(rows, axis=-1), rank, -1)[..., 0]
        if keepdims:
            out = out.reshape([1 if d in axes else x.shape[d] for d in range(x.ndim)])
        return out
    return impl


median_all_p = _reduction("median_all", _median_impl(skip_nan=False), evenly_distributed)
nanmedian_all_p = _reduction("nanmedian_all", _median_impl(skip_nan=True), evenly_distributed)


def _global_median(x, op, skip_nan):
    if x.numel() == 0:
        if x._data.dtype.kind != "f":
            raise IndexError(f"{op}: the input is an empty {x.dtype} tensor, whose median has "
                             "no value (NaN needs a floating dtype); check for empty input first")
        return Tensor._make(np.full((), np.nan, x._data.dtype))
    return apply(nanmedian_all_p if skip_nan else median_all_p, x, axis=None, keepdims=False)


@tensor_method("median")
def median(x, dim=None, keepdim=False, *, axis=None):
    """The lower median (no averaging of the two middle values, as PyTorch); NaN if any entry
    is NaN. `median(x)`: over all elements, a 0-d tensor, tied medians sharing the gradient
    evenly (the NaNs, when the result is NaN), as torch. `median(x, dim)`: `(values,
    indices)` along `dim`, the gradient going to the chosen element."""
    dim = dim if axis is None else axis
    _refuse_bool(x, "median")
    if dim is None:
        return _global_median(x, "median", skip_nan=False)
    return _lower_median(x, dim, keepdim, "median", skip_nan=False)


@tensor_method("nanmedian")
def nanmedian(x, dim=None, keepdim=False, *, axis=None):
    """`median` ignoring NaNs (NaN only where every entry is NaN)."""
    dim = dim if axis is None else axis
    _refuse_bool(x, "nanmedian")
    if dim is None:
        return _global_median(x, "nanmedian", skip_nan=True)
    return _lower_median(x, dim, keepdim, "nanmedian", skip_nan=True)


def _mode_index(x, *, axis):
    """The index of the most frequent value along `axis`: the smallest such value, at its last
    occurrence, as PyTorch."""
    x = np.moveaxis(x, axis, -1)
    rows = x.reshape(-1, x.shape[-1])
    found = np.empty(len(rows), np.int64)
    for r, row in enumerate(rows):
        values, counts = np.unique(row, return_counts=True)
        value = values[np.argmax(counts)]  # argmax takes the first: the smallest value
        found[r] = np.flatnonzero(row == value)[-1]
    return np.moveaxis(found.reshape(x.shape[:-1] + (1,)), -1, axis)


mode_index_p = no_grad_primitive("mode_index", _mode_index)
mode_index_p.batch = along_axes("mode_index", "axis")


@tensor_method("mode")
def mode(x, dim=-1, keepdim=False, *, axis=None):
    """(values, indices) of the most frequent value along `dim` (the smallest one on ties, at
    its last occurrence, as PyTorch); the gradient goes to that element."""
    dim = _dim(x, dim if axis is None else axis, "mode")
    if not x.ndim:
        return ValuesIndices(x, Tensor._make(np.zeros((), np.int64)))
    if x.shape[dim] == 0:
        raise IndexError(f"mode: dimension {dim} of the input (shape {list(x.shape)}) is empty; "
                         "the mode of no elements is not defined")
    indices = apply(mode_index_p, x, axis=dim)
    values = take_along_dim(x, indices, dim)
    if not keepdim:
        values, indices = values.squeeze(dim), indices.squeeze(dim)
    return ValuesIndices(values, indices)


def _unique_result(values, inverse, counts, return_inverse, return_counts):
    out = (values,)
    if return_inverse:
        out += (inverse,)
    if return_counts:
        out += (counts,)
    return out[0] if len(out) == 1 else out


def _unique_dim(x, dim, op):
    return None if dim is None else _dim(x, dim, op)


def _unique_impl(x, *, axis):
    if axis is None:
        # each NaN is distinct, as in PyTorch
        values, inverse, counts = np.unique(x.reshape(-1), return_inverse=True,
                                            return_counts=True, equal_nan=False)
        inverse = inverse.reshape(x.shape)
    else:
        values, inverse, counts = np.unique(x, axis=axis, return_inverse=True,
                                            return_counts=True)
        inverse = inverse.reshape(-1)
    return values, inverse.astype(np.int64), counts.astype(np.int64)


def _unique_consecutive_impl(x, *, axis):
    data = x.reshape(-1) if axis is None else np.moveaxis(x, axis, 0)
    if len(data) == 0:
        starts = np.zeros(0, bool)
    else:
        differs = (data[1:] != data[:-1]).reshape(len(data) - 1, data[0].size).any(axis=1)
        starts = np.concatenate([[True], differs])
    values = data[starts]
    if axis is not None:
        values = np.moveaxis(values, 0, axis)
    inverse = np.cumsum(starts) - 1
    counts = np.diff(np.append(np.flatnonzero(starts), len(data)))
    if axis is None:
        inverse = inverse.reshape(x.shape)
    return values, inverse.astype(np.int64), counts.astype(np.int64)


# (values, inverse, counts); no derivative, as PyTorch
unique_p = Primitive("unique", _unique_impl, n_outputs=3, batch=example_by_example("unique"))
unique_consecutive_p = Primitive("unique_consecutive", _unique_consecutive_impl, n_outputs=3,
                                 batch=example_by_example("unique_consecutive"))


@tensor_method("unique")
def unique(x, sorted=True, return_inverse=False, return_counts=False, dim=None):
    """The distinct entries of `x` (or its distinct slices along `dim`), in ascending order;
    with `return_inverse`, where each entry went; with `return_counts`, how often each occurs.
    No gradient, as PyTorch."""
    dim = _unique_dim(x, dim, "unique")
    return _unique_result(*apply(unique_p, x, axis=dim), return_inverse, return_counts)


@tensor_method("unique_consecutive")
def unique_consecutive(x, return_inverse=False, return_counts=False, dim=None):
    """`x` with each run of equal consecutive entries (or slices along `dim`) kept once."""
    dim = _unique_dim(x, dim, "unique_consecutive")
    return _unique_result(*apply(unique_consecutive_p, x, axis=dim), return_inverse,
                          return_counts)
