"""PyTorch's small public ops that fit no family, as composites of existing ops:

- `fill(input, value)` / `fill_(input, value)`: a tensor of input's shape and dtype holding
  `value` (a number or a 0-d tensor, which gets the gradient: the sum of the cotangent);
  fill_ writes in place.
- `nonzero_static(input, *, size, fill_value=-1)`: nonzero's [n, ndim] indices cut or padded
  with fill_value to exactly `size` rows.
- `empty_permuted(size, physical_layout, ...)`: an uninitialized tensor of `size` (tensors are
  laid out contiguously, so `physical_layout` is checked and has no other effect).
- `as_strided_copy` (as_strided, copied) and `as_strided_scatter(input, src, size, stride,
  storage_offset)`: a copy of input with src written where as_strided would read; gradients
  flow to both.
- `histogramdd(input, bins, *, range, weight, density)`: the D-dimensional histogram of the
  rows of input [..., D]; not differentiable, as torch's.
- `Tensor.__rdiv__`, Python 2's name for `__rtruediv__` that PyTorch keeps.
"""
import builtins
import collections

import numpy as np

from .._core import dtypes
from .._core.errors import ArgumentError, ShapeError
from .._core.tensor import Tensor, tensor_method
from ..creation import empty, full, full_like
from .indexing import nonzero
from .shape import broadcast_to, clone, concat, contiguous
from .strided import _ints, _write, as_strided, positions

__all__ = ["fill", "fill_", "nonzero_static", "empty_permuted", "as_strided_copy",
           "as_strided_scatter", "histogramdd"]

tensor_method("__rdiv__")(Tensor.__rtruediv__)


def _fill_value(value, op):
    if isinstance(value, Tensor) and value.ndim != 0:
        raise ShapeError(f"{op} only supports 0-dimension value tensor but got tensor with "
                         f"{value.ndim} dimensions (shape {list(value.shape)}); pass a number "
                         "or a 0-d tensor")
    return value


def fill(input, value):
    """A new tensor of input's shape and dtype with every entry `value`."""
    value = _fill_value(value, "fill")
    if isinstance(value, Tensor):
        return clone(broadcast_to(value.to(input.dtype), tuple(input.shape)))
    return full_like(input, value)


def fill_(input, value):
    """Every entry of input set to `value`, in place; returns input."""
    return input.fill_(_fill_value(value, "fill_"))


@tensor_method("nonzero_static")
def nonzero_static(input, *, size, fill_value=-1):
    """The indices of input's nonzero entries, [size, ndim] int64: the first `size` of them,
    padded with rows of `fill_value` when there are fewer."""
    size = int(size)
    if size < 0:
        raise ArgumentError(f"nonzero_static: 'size' must be a non-negative integer, got {size}")
    found = nonzero(input)
    if found.shape[0] >= size:
        return found[:size]
    padding = full((size - found.shape[0], input.ndim), fill_value, dtype=dtypes.int64)
    return concat([found, padding], 0)


def empty_permuted(size, physical_layout, *, dtype=None, layout=None, device=None,
                   requires_grad=False, pin_memory=False):
    """An uninitialized tensor of `size`; physical_layout must be a permutation of its dims."""
    size, order = tuple(size), tuple(physical_layout)
    if len(size) != len(order):
        raise ArgumentError(f"empty_permuted: Number of dimensions in size does not match the "
                            f"length of the physical_layout: size {list(size)}, physical_layout "
                            f"{list(order)}")
    seen = set()
    for d in order:
        if not -len(size) <= d < max(len(size), 1):
            raise ArgumentError(f"empty_permuted: Dimension out of range: {d} in physical_layout "
                                f"{list(order)} for {len(size)} dimensions")
        if d % max(len(size), 1) in seen:
            raise ArgumentError(f"empty_permuted: Duplicate dim not allowed: {d} in "
                                f"physical_layout {list(order)}")
        seen.add(d % max(len(size), 1))
    return empty(size, dtype=dtype, requires_grad=requires_grad)


def as_strided_copy(input, size, stride, storage_offset=None):
    """as_strided(input, size, stride, storage_offset) as a new tensor (not a view)."""
    return clone(as_strided(input, size, stride, storage_offset))


@tensor_method("as_strided_scatter")
def as_strided_scatter(input, src, size, stride, storage_offset=None):
    """A copy of input with `src` written at the positions as_strided(size, stride,
    storage_offset) reads (the offset counts from the copy's first element)."""
    base = contiguous(clone(input))
    offset = 0 if storage_offset is None else int(storage_offset)
    view = as_strided(base, size, stride, offset)  # checks size, stride and offset
    if tuple(src.shape) != tuple(view.shape):
        raise ShapeError(f"as_strided_scatter: expected src of shape {list(view.shape)} (the "
                         f"size given), got {list(src.shape)}")
    size, stride = _ints(size, "size"), _ints(stride, "stride")
    if not base.dtype.is_floating_point:  # nothing to differentiate: write the entries
        out = base.detach().numpy().copy()
        out.reshape(-1)[positions(size, stride, offset)] = src.detach().numpy()
        return Tensor(out)
    return _write(base, src.to(base.dtype), size=size, stride=stride, offset=offset)


HistogramddResult = collections.namedtuple("histogramdd", ["hist", "bin_edges"])


def _edges(column, bins, lo_hi, dtype):
    if isinstance(bins, Tensor):
        return bins._data.astype(np.float64)
    if int(bins) <= 0:
        raise ArgumentError(f"histogramdd: bins must be > 0, but got {bins}")
    lo, hi = lo_hi if lo_hi is not None else (
        (column.min(), column.max()) if column.size else (0.0, 1.0))
    if lo > hi:
        raise ArgumentError(f"histogramdd: max must be larger than min, got range ({lo}, {hi})")
    if lo == hi:
        lo, hi = lo - 0.5, hi + 0.5
    return np.linspace(lo, hi, int(bins) + 1).astype(dtype).astype(np.float64)


def histogramdd(input, bins, *, range=None, weight=None, density=False):
    """Counts (or summed `weight`) of input's rows [..., D] in a grid of bins: `bins` is an
    int (each dimension), D ints, or D 1-d tensors of edges; `range` is [min0, max0, min1,
    ...] (default: the data's). Returns (hist, bin_edges), in input's floating dtype."""
    if not input.dtype.is_floating_point:
        raise NotImplementedError(f"histogramdd: defined for floating tensors, not "
                                  f"{input.dtype}; convert it with .float()")
    d = input.shape[-1] if input.ndim else 1
    data = input.detach().numpy().reshape(-1, d).astype(np.float64)
    per_dim = [bins] * d if isinstance(bins, (int, np.integer)) else list(bins)
    if len(per_dim) != d:
        raise ShapeError(f"histogramdd: The size of bins must be equal to the innermost "
                         f"dimension of the input: {len(per_dim)} bins for rows of {d} "
                         f"(input shape {list(input.shape)})")
    if range is not None and len(range) != 2 * d:
        raise ShapeError(f"histogramdd: range should have {2 * d} elements (min and max of "
                         f"each of the {d} dimensions), got {len(range)}")
    dtype = input.detach().numpy().dtype
    edges = [_edges(data[:, k], b, None if range is None else range[2 * k:2 * k + 2], dtype)
             for k, b in enumerate(per_dim)]
    w = np.ones(len(data)) if weight is None else \
        weight.detach().numpy().reshape(-1).astype(np.float64)
    hist = _counts(data, edges, w)
    if density:
        hist = hist / hist.sum()
        for k, e in enumerate(edges):
            hist = hist / np.diff(e).reshape([-1 if j == k else 1 for j in builtins.range(d)])
    return HistogramddResult(Tensor(hist.astype(dtype)),
                             tuple(Tensor(e.astype(dtype)) for e in edges))


def _counts(data, edges, weight):
    """torch's histogram kernel: a row counts when every coordinate lies within its first
    and last edge; its bin is found by binary search, the last bin keeping its right edge.
    (Edges that don't increase are searched as given, as torch does, not refused.)"""
    inside = np.ones(len(data), bool)
    bins = []
    for column, e in zip(data.T, edges):
        inside &= (column >= e[0]) & (column <= e[-1])
        bins.append(np.clip(np.searchsorted(e, column, side="right") - 1, 0, len(e) - 2))
    hist = np.zeros([len(e) - 1 for e in edges])
    np.add.at(hist, tuple(b[inside] for b in bins), weight[inside])
    return hist
