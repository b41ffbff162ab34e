"""PyTorch's remaining indexing, splitting, counting and order-statistics functions.

The differentiable ones are composites of fluxgrad ops (index_put, scatter_reduce, sort,
take_along_dim, ...): index_copy/index_fill/index_reduce, masked_scatter, select_scatter,
slice_scatter, tensor_split and hsplit/vsplit/dsplit, narrow_copy, msort, aminmax,
nansum/nanmean, quantile/nanquantile. The integer-valued ones (argwhere, unravel_index,
tril/triu_indices, bincount, histc, searchsorted, bucketize) have no gradient.
"""
import collections
import math

import numpy as np

from .._core.errors import (ArgumentError, DTypeError, DTypeNotImplemented, IndexOutOfRange,
                            ShapeError, ShapeIndexError, refuse_python_value)
from .._core.tensor import Tensor, is_scalar, tensor_method
from ._family import refuse_kinds
from .math_extras import as_operand, refuse_value_reads
from .elementwise import cast, isnan, where
from .indexing import index_put, nonzero, scatter_reduce, take_along_dim
from .reduce import amax, amin, any as reduce_any, sum as _sum
from .shape import (_count_known, broadcast_to, clone, flatten, moveaxis, narrow, reshape,
                    squeeze, unsqueeze)
from .sorting import sort

__all__ = ["index_copy", "index_fill", "index_reduce", "masked_scatter", "select_scatter",
           "slice_scatter", "diagonal_scatter", "tensor_split", "hsplit", "vsplit", "dsplit",
           "narrow_copy", "argwhere", "unravel_index", "tril_indices", "triu_indices",
           "bincount", "histc", "searchsorted", "bucketize", "msort", "aminmax", "nansum",
           "nanmean", "quantile", "nanquantile"]


class IndexDTypeError(DTypeError, IndexError):
    """An index tensor of a non-integer dtype (PyTorch: IndexError)."""


def _dim(dim, ndim, op):
    n = max(ndim, 1)
    if not -n <= dim < n:
        raise IndexError(f"{op}: Dimension out of range (expected to be in range of "
                         f"[{-n}, {n - 1}], but got {dim})")
    return dim % n


def _at(dim, index):
    return (slice(None),) * dim + (index,)


def _index_vector(index, size, op):
    index = as_operand(index)
    refuse_value_reads(op, index)
    if index._data.dtype.kind not in "iu":
        raise IndexDTypeError(f"{op}(): Expected dtype int64 for index, got {index.dtype}")
    if index.ndim > 1:
        raise ShapeIndexError(f"{op}(): Index is supposed to be a vector, got shape "
                         f"{list(index.shape)}")
    data = index._data.reshape(-1)
    if data.size and (data.min() < -size or data.max() >= size):
        raise IndexOutOfRange(f"{op}(): index out of range for a dimension of size {size}: "
                              f"{data.tolist()}")
    return Tensor._make(data.astype(np.int64))


@tensor_method("index_copy")
def index_copy(x, dim, index, source):
    """x with the entries `index` of dimension `dim` replaced by the slices of `source`."""
    dim = _dim(dim, x.ndim, "index_copy")
    index = _index_vector(index, x.shape[dim] if x.ndim else 1, "index_copy")
    source = as_operand(source)
    expected = x.shape[:dim] + (index.shape[0],) + x.shape[dim + 1:]
    if x.ndim and source.shape != expected:
        raise ShapeIndexError(f"index_copy(): the source of shape {list(source.shape)} must have "
                              f"the shape {list(expected)} (x's, with {index.shape[0]} slices "
                              f"along dim {dim})")
    if not x.ndim:
        return reshape(index_put(reshape(x, (1,)), (index,), reshape(source, (-1,))), ())
    return index_put(x, _at(dim, index), cast(source, x.dtype))


@tensor_method("index_fill")
def index_fill(x, dim, index, value):
    """x with the entries `index` of dimension `dim` set to `value` (a number or 0-d tensor)."""
    dim = _dim(dim, x.ndim, "index_fill")
    index = _index_vector(index, x.shape[dim] if x.ndim else 1, "index_fill")
    if isinstance(value, Tensor) and value.ndim:
        raise ShapeError(f"index_fill_(): Expected a 0-d value tensor, got shape "
                         f"{list(value.shape)}")
    if isinstance(value, Tensor):
        value = cast(value, x.dtype)
        # each entry filled once, so a repeated index adds nothing to value's gradient
        size = x.shape[dim] if x.ndim else 1
        index = Tensor._make(np.unique(index._data % size))
    if not x.ndim:
        return reshape(index_put(reshape(x, (1,)), (index,), value), ())
    return index_put(x, _at(dim, index), value)


@tensor_method("index_reduce")
def index_reduce(x, dim, index, source, reduce, *, include_self=True):
    """x with the slices of `source` reduced ('prod', 'mean', 'amax', 'amin') into the entries
    `index` of dimension `dim`."""
    if reduce not in ("prod", "mean", "amax", "amin"):
        raise RuntimeError(f"index_reduce(): Expected reduce to be one of prod, mean, amax or "
                           f"amin but got {reduce}.")
    if x.ndim == 0:  # as a 1-d tensor of one entry
        _dim(dim, 1, "index_reduce")
        source = as_operand(source)
        return reshape(index_reduce(reshape(x, (1,)), 0, index, reshape(source, (1,)), reduce,
                                    include_self=include_self), ())
    dim = _dim(dim, x.ndim, "index_reduce")
    index = _index_vector(index, x.shape[dim], "index_reduce")
    source = as_operand(source)
    shape = [1] * source.ndim
    shape[dim] = -1
    full = Tensor._make(np.broadcast_to(index._data.reshape(shape), source.shape).copy())
    return scatter_reduce(x, dim, full, source, reduce, include_self=include_self)


@tensor_method("masked_scatter")
def masked_scatter(x, mask, source):
    """x with the entries where `mask` holds taken, in order, from `source` (x and mask
    broadcast together, as PyTorch)."""
    mask = as_operand(mask)
    refuse_value_reads("masked_scatter", mask)
    if mask._data.dtype != np.bool_:
        raise DTypeError(f"masked_scatter_ only supports boolean masks, but got mask with dtype "
                         f"{mask.dtype}")
    try:
        shape = np.broadcast_shapes(mask.shape, x.shape)
    except ValueError:
        raise ShapeError(f"masked_scatter: the mask of shape {list(mask.shape)} doesn't "
                         f"broadcast with the tensor's shape {list(x.shape)}") from None
    if shape != x.shape:
        x = broadcast_to(x, shape)
    full = np.broadcast_to(mask._data, shape)
    count = int(full.sum())
    if source.numel() < count:
        raise RuntimeError(f"masked_scatter: Number of elements of source < number of ones in "
                           f"mask ({source.numel()} < {count})")
    values = narrow(flatten(source), 0, 0, count)
    return index_put(x, (Tensor._make(full.copy()),), cast(values, x.dtype))


@tensor_method("select_scatter")
def select_scatter(x, src, dim, index):
    """x with x.select(dim, index) replaced by src."""
    dim = _dim(dim, x.ndim, "select_scatter")
    size = x.shape[dim]
    if not -size <= index < size:
        raise IndexError(f"select_scatter(): index {index} out of range for tensor of size "
                         f"{list(x.shape)} at dimension {dim}")
    expected = x.shape[:dim] + x.shape[dim + 1:]
    if tuple(src.shape) != expected:
        raise ShapeError(f"select_scatter: expected src to have a size equal to the slice of "
                         f"self. src size = {list(src.shape)}, slice size = {list(expected)}")
    return index_put(x, _at(dim, index % size), src)


@tensor_method("diagonal_scatter")
def diagonal_scatter(x, src, offset=0, dim1=0, dim2=1):
    """x with x.diagonal(offset, dim1, dim2) replaced by src (whose last dimension runs along
    the diagonal, as diagonal's result)."""
    d1, d2 = _dim(dim1, x.ndim, "diagonal_scatter"), _dim(dim2, x.ndim, "diagonal_scatter")
    if d1 == d2:
        raise ArgumentError(f"diagonal_scatter: dim1 and dim2 must differ, both are {d1}")
    expected = tuple(x.diagonal(offset, d1, d2).shape)
    if tuple(src.shape) != expected:
        raise ShapeError(f"diagonal_scatter: expected src to have a size equal to the diagonal "
                         f"of self. src size = {list(src.shape)}, diagonal size = "
                         f"{list(expected)}")
    n = expected[-1]
    index = [slice(None)] * x.ndim
    index[d1] = np.arange(n) + max(-offset, 0)
    index[d2] = np.arange(n) + max(offset, 0)
    # NumPy's x[index] keeps the diagonal where the two dims were when they are neighbours,
    # and puts it first otherwise
    where = min(d1, d2) if abs(d1 - d2) == 1 else 0
    return index_put(x, tuple(index), src.movedim(-1, where))


@tensor_method("slice_scatter")
def slice_scatter(x, src, dim=0, start=None, end=None, step=1):
    """x with x[..., start:end:step, ...] (along `dim`) replaced by src."""
    dim = _dim(dim, x.ndim, "slice_scatter")
    if step is None:
        step = 1
    if step <= 0:
        raise RuntimeError("slice_scatter: slice step must be positive")
    window = slice(start, end, step)
    expected = x.shape[:dim] + (len(range(*window.indices(x.shape[dim]))),) + x.shape[dim + 1:]
    if tuple(src.shape) != expected:
        raise ShapeError(f"slice_scatter: expected src to have a size equal to the slice of "
                         f"self. src size = {list(src.shape)}, slice size = {list(expected)}")
    return index_put(x, _at(dim, window), src)


@tensor_method("tensor_split")
def tensor_split(x, indices_or_sections, dim=0):
    """x cut along `dim` into n near-equal parts (an int n: the first size % n one longer) or
    at the given indices (a list or 1-d tensor), as views."""
    if x.ndim == 0:
        raise RuntimeError("tensor_split expected at least a 1-dimensional tensor, but got a "
                           "tensor with 0 dims")
    dim = _dim(dim, x.ndim, "tensor_split")
    size = x.shape[dim]
    cuts = indices_or_sections
    if isinstance(cuts, Tensor):
        if cuts._data.dtype.kind not in "iu" or cuts.ndim > 1:
            raise RuntimeError(f"tensor_split expected tensor_indices_or_sections to be a zero-"
                               f"dimensional or one-dimensional tensor of dtype long, but got a "
                               f"{cuts.ndim}-d {cuts.dtype} tensor")
        cuts = cuts.item() if cuts.ndim == 0 else cuts.tolist()
    if isinstance(cuts, (int, np.integer)):
        _count_known(size, dim, "tensor_split")
        n = int(cuts)
        if n <= 0:
            raise RuntimeError(f"number of sections must be larger than 0, got {n}")
        q, r = divmod(size, n)
        bounds = np.cumsum([0] + [q + 1] * r + [q] * (n - r)).tolist()
    else:
        bounds = [0] + [min(max(int(i) + (size if i < 0 else 0), 0), size) for i in cuts] + [
            size]
    parts = []
    for start, stop in zip(bounds[:-1], bounds[1:]):
        parts.append(x[_at(dim, slice(start, max(start, stop)))])
    return tuple(parts)


def _split_at(x, sections, dim, op):
    if not isinstance(sections, (int, np.integer, list, tuple)):
        raise TypeError(f"{op}: sections must be an int or a list of indices, got "
                        f"{type(sections).__name__} {sections!r}")
    if isinstance(sections, (int, np.integer)):
        size = x.shape[dim]
        if sections == 0 or size % sections:
            raise RuntimeError(f"torch.{op} attempted to split along dimension {dim}, but the "
                               f"size of the dimension {size} is not divisible by the "
                               f"split_size {sections}!")
    return tensor_split(x, sections, dim)


@tensor_method("hsplit")
def hsplit(x, sections):
    """Split along dimension 1 (dimension 0 for a 1-d x)."""
    if x.ndim == 0:
        raise RuntimeError("torch.hsplit requires a tensor with at least 1 dimension, but got a "
                           "tensor with 0 dimensions!")
    return _split_at(x, sections, 1 if x.ndim > 1 else 0, "hsplit")


@tensor_method("vsplit")
def vsplit(x, sections):
    """Split along dimension 0 (x at least 2-d)."""
    if x.ndim < 2:
        raise RuntimeError(f"torch.vsplit requires a tensor with at least 2 dimension, but got "
                           f"a tensor with {x.ndim} dimensions!")
    return _split_at(x, sections, 0, "vsplit")


@tensor_method("dsplit")
def dsplit(x, sections):
    """Split along dimension 2 (x at least 3-d)."""
    if x.ndim < 3:
        raise RuntimeError(f"torch.dsplit requires a tensor with at least 3 dimension, but got "
                           f"a tensor with {x.ndim} dimensions!")
    return _split_at(x, sections, 2, "dsplit")


@tensor_method("narrow_copy")
def narrow_copy(x, dim, start, length):
    """narrow, copied."""
    return clone(narrow(x, dim, start, length))


@tensor_method("argwhere")
def argwhere(x):
    """The positions of the nonzero entries, an (n, ndim) int64 tensor."""
    return nonzero(x)


def unravel_index(indices, shape):
    """The coordinates in `shape` of flat `indices` (taken modulo the number of elements),
    one int64 tensor per dimension."""
    indices = as_operand(indices)
    refuse_value_reads("unravel_index", indices)
    if indices._data.dtype.kind not in "iu":
        raise TypeError(f"expected 'indices' to be integer dtype, but got {indices.dtype}")
    shape = (int(shape),) if isinstance(shape, (int, np.integer)) else tuple(int(s) for s in shape)
    if any(s < 0 for s in shape):
        raise ValueError("'shape' cannot have negative values, but got "
                         f"{tuple(shape)}")
    total = int(np.prod(shape))
    # as PyTorch: indices outside [0, total) wrap around
    coords = np.unravel_index(np.mod(indices._data, total) if total else indices._data, shape)
    return tuple(Tensor._make(np.asarray(c, dtype=np.int64)) for c in coords)


def _triangle_indices(np_fn, row, col, offset, dtype):
    from .._core import dtypes
    rows, cols = np_fn(row, offset, col)
    return Tensor._make(np.stack([rows, cols]).astype(dtypes.as_dtype(dtype).np))


def tril_indices(row, col, offset=0, *, dtype="int64", device=None, layout=None):
    """The (2, n) coordinates of the lower triangle (diagonal `offset` and below) of a
    row x col matrix, row by row."""
    return _triangle_indices(np.tril_indices, row, col, offset, dtype)


def triu_indices(row, col, offset=0, *, dtype="int64", device=None, layout=None):
    """The (2, n) coordinates of the upper triangle (diagonal `offset` and above)."""
    return _triangle_indices(np.triu_indices, row, col, offset, dtype)


@tensor_method("bincount")
def bincount(x, weights=None, minlength=0):
    """How often each value 0, 1, ... occurs in a 1-d non-negative integer x (or the sum of
    `weights` at its occurrences)."""
    refuse_python_value(x, "bincount")
    refuse_value_reads("bincount", x, weights)
    refuse_kinds(x, "b", "bincount")
    if x._data.dtype.kind not in "iu" or x.ndim != 1:
        error = NotImplementedError if x._data.dtype.kind == "f" else RuntimeError
        raise error(f"bincount only supports 1-d non-negative integral inputs, got a "
                    f"{x.ndim}-d {x.dtype} tensor")
    if x.numel() and x._data.min() < 0:
        raise RuntimeError("bincount only supports 1-d non-negative integral inputs.")
    if minlength < 0:
        raise RuntimeError("minlength should be >= 0")
    if weights is None:
        return Tensor._make(np.bincount(x._data, minlength=minlength).astype(np.int64))
    if weights.shape != x.shape:
        raise RuntimeError("weights should be 1-d and have the same length as input")
    w = weights._data
    out_dtype = w.dtype if w.dtype.kind == "f" else np.float64
    return Tensor._make(np.bincount(x._data, w.astype(np.float64), minlength).astype(out_dtype))


@tensor_method("histc")
def histc(x, bins=100, min=0, max=0):
    """Counts of x's elements in `bins` equal bins spanning [min, max] (the data's range when
    min == max); elements outside are ignored. The result has x's (floating) dtype."""
    refuse_python_value(x, "histc")
    refuse_value_reads("histc", x)
    if x._data.dtype.kind != "f":
        raise NotImplementedError(f"\"histogram_cpu\" not implemented for '{x.dtype}'")
    if bins <= 0:
        raise RuntimeError(f"torch.histc: bins must be > 0, but got {bins} for dimension 0")
    if min > max:
        raise RuntimeError("torch.histc: max must be larger than min")
    data = x._data.astype(np.float64).reshape(-1)
    lo, hi = float(min), float(max)
    if lo == hi and data.size:
        lo, hi = float(data.min()), float(data.max())
    if lo == hi:
        lo, hi = lo - 1, hi + 1
    if not (np.isfinite(lo) and np.isfinite(hi)):
        raise RuntimeError(f"torch.histc: range of [{lo}, {hi}] is not finite")
    inside = data[(data >= lo) & (data <= hi)]
    pos = ((inside - lo) * bins / (hi - lo)).astype(np.int64)
    pos[pos == bins] = bins - 1
    return Tensor._make(np.bincount(pos, minlength=bins).astype(x._data.dtype))


def searchsorted(sorted_sequence, values, *, out_int32=False, right=False, side=None,
                 sorter=None):
    """Where `values` would be inserted in the innermost dimension of `sorted_sequence` to keep
    it sorted (the first such place; the last with right=True or side='right')."""
    if side is not None:
        if side not in ("left", "right"):
            raise RuntimeError(f"torch.searchsorted(): side can only be 'left' or 'right' but "
                               f"got {side}")
        if right and side == "left":
            raise RuntimeError("torch.searchsorted(): side and right can't be set to opposites, "
                               "got side of left while right was True")
        right = side == "right"
    refuse_value_reads("searchsorted", sorted_sequence, values, sorter)
    seq = as_operand(sorted_sequence)._data
    scalar = is_scalar(values)
    vals = np.asarray(values._data if isinstance(values, Tensor) else values)
    if seq.dtype == np.bool_ and vals.dtype == np.bool_:  # mixed with bool: compared as numbers
        raise DTypeNotImplemented("searchsorted is not implemented for two bool tensors, as in "
                                  "PyTorch; convert first (x.long())")
    if sorter is not None:
        seq = np.take_along_axis(seq, as_operand(sorter)._data, -1)
    if seq.ndim > 1 and (scalar or seq.shape[:-1] != vals.shape[:-1]):
        raise RuntimeError(f"torch.searchsorted(): boundaries tensor should be 1 dimension or "
                           f"the first N-1 dimensions of boundaries tensor and input value "
                           f"tensor must match, but we got boundaries tensor "
                           f"{list(seq.shape)} and input value tensor {list(vals.shape)}")
    where_ = "right" if right else "left"
    if seq.ndim <= 1:
        out = np.searchsorted(seq.reshape(-1), vals, side=where_)
    else:
        batch = math.prod(seq.shape[:-1])
        rows = seq.reshape(batch, seq.shape[-1])
        flat = vals.reshape(batch, vals.shape[-1])
        out = np.empty(flat.shape, np.int64)
        for r, v, o in zip(rows, flat, out):
            o[:] = np.searchsorted(r, v, side=where_)
        out = out.reshape(vals.shape)
    return Tensor._make(np.asarray(out, dtype=np.int32 if out_int32 else np.int64))


def bucketize(x, boundaries, *, out_int32=False, right=False):
    """The index of the bucket of each element of x among the 1-d sorted `boundaries`
    (boundaries[i-1] < x <= boundaries[i]; with right=True, boundaries[i-1] <= x <
    boundaries[i])."""
    boundaries = as_operand(boundaries)
    if boundaries.ndim != 1:
        raise RuntimeError(f"boundaries tensor must be 1 dimension, but got dim("
                           f"{boundaries.ndim})")
    return searchsorted(boundaries, x, out_int32=out_int32, right=right)


@tensor_method("msort")
def msort(x):
    """x sorted along dimension 0."""
    return sort(x, 0)[0]


AminmaxResult = collections.namedtuple("aminmax", ["min", "max"])


@tensor_method("aminmax")
def aminmax(x, *, dim=None, keepdim=False):
    """(amin, amax) over `dim` (all elements when None)."""
    refuse_python_value(x, "aminmax")
    if x.numel() == 0 and dim is None:
        raise RuntimeError("aminmax(): cannot compute aminmax over an empty dimension as the "
                           "operation has no identity.")
    if dim is None and keepdim:
        return AminmaxResult(reshape(amin(x), (1,) * x.ndim), reshape(amax(x), (1,) * x.ndim))
    return AminmaxResult(amin(x, dim, keepdim), amax(x, dim, keepdim))


@tensor_method("nansum")
def nansum(x, dim=None, keepdim=False, *, dtype=None):
    """The sum treating NaN as 0."""
    refuse_python_value(x, "nansum")
    if x._data.dtype.kind == "f":
        x = where(isnan(x), 0.0, x)
    return _sum(x, dim, keepdim, dtype=dtype)


@tensor_method("nanmean")
def nanmean(x, dim=None, keepdim=False, *, dtype=None):
    """The mean of the entries that are not NaN."""
    refuse_python_value(x, "nanmean")
    if x._data.dtype.kind != "f":
        raise RuntimeError(f"nanmean(): expected input to have floating point dtype but got "
                           f"{x.dtype}")
    present = ~isnan(x)
    return nansum(x, dim, keepdim, dtype=dtype) / _sum(present, dim, keepdim)


_INTERPOLATIONS = ("linear", "lower", "higher", "midpoint", "nearest")


def _quantile(x, q, dim, keepdim, interpolation, skip_nan, op):
    if x._data.dtype.kind != "f" or x._data.dtype == np.float16:
        raise DTypeError(f"{op}() input tensor must be either float or double dtype, got "
                         f"{x.dtype} (as in PyTorch); convert it first: x.float()")
    if skip_nan:
        refuse_value_reads(op, x)  # the count of NaN sets the ranks
    if interpolation not in _INTERPOLATIONS:
        raise ValueError(f"{op}() interpolation must be one of linear, lower, higher, midpoint "
                         f"or nearest. Got {interpolation}")
    q_scalar = not isinstance(q, Tensor) or q.ndim == 0
    if isinstance(q, Tensor):
        if q._data.dtype != x._data.dtype:
            raise DTypeError(f"{op}() q tensor must be same dtype as the input tensor")
        if q.ndim > 1:
            raise RuntimeError(f"{op}() q must be a scalar or 1D tensor")
        qs = q._data.astype(np.float64).reshape(-1)
    else:
        qs = np.array([float(q)])
    if ((qs < 0) | (qs > 1)).any():
        raise RuntimeError(f"{op}() q must be in the range [0, 1] but got {qs.tolist()}")
    if x.numel() == 0:
        raise RuntimeError(f"{op}() input tensor must be non-empty")
    ndim = x.ndim
    if dim is None:
        data = reshape(x, (-1,))
        axis = 0
    else:
        axis = _dim(dim, ndim, op)
        data = moveaxis(x, axis, -1) if ndim else reshape(x, (1,))
    values = sort(data, -1)[0]  # NaN last
    n = values.shape[-1]
    nan_rows = None if skip_nan else reduce_any(isnan(values), -1, True)
    # the NaN read (in the rows whose result is NaN anyway) as 0: no NaN in their gradients
    values = where(isnan(values), 0.0, values)
    if skip_nan:
        count = n - np.isnan(data._data).sum(-1, keepdims=True)
    else:
        count = np.full(values.shape[:-1] + (1,), n)
    rank = qs.reshape((-1,) + (1,) * values.ndim) * (count - 1)  # (Q, ..., 1)
    if interpolation == "lower":
        rank = np.floor(rank)
    elif interpolation == "higher":
        rank = np.ceil(rank)
    elif interpolation == "nearest":
        rank = np.round(rank)
    low = np.clip(np.floor(rank), 0, n - 1).astype(np.int64)
    high = np.clip(np.ceil(rank), 0, n - 1).astype(np.int64)
    fraction = np.full_like(rank, 0.5) if interpolation == "midpoint" else rank - low
    weight = Tensor._make(fraction.astype(x._data.dtype))
    if isinstance(q, Tensor) and interpolation == "linear":
        # the same weight in ops of q, for its gradient: (count - 1) between the neighbours
        weight = (reshape(q, (-1,) + (1,) * values.ndim)
                  * Tensor._make((count - 1).astype(x._data.dtype))
                  - Tensor._make(low.astype(x._data.dtype)))
    below = take_along_dim(unsqueeze(values, 0), Tensor._make(low), -1)
    above = take_along_dim(unsqueeze(values, 0), Tensor._make(high), -1)
    if interpolation in ("lower", "higher", "nearest"):
        out = below  # (a rank rounded to a neighbour reads it alone: inf stays inf)
    else:
        # PyTorch's lerp, from the nearer end (its infinities and NaN follow)
        step = above - below
        out = where(weight < 0.5, below + step * weight, above - step * (1 - weight))
    if skip_nan:
        out = where(Tensor._make(np.broadcast_to(count == 0, out.shape).copy()), float("nan"),
                    out)
    else:
        out = where(nan_rows, float("nan"), out)
    out = squeeze(out, -1)  # (Q, *rest)
    if keepdim:
        if dim is None:
            out = reshape(out, (out.shape[0],) + (1,) * ndim)
        elif ndim:
            out = unsqueeze(out, axis + 1)
    if q_scalar:
        out = squeeze(out, 0)
    return out


@tensor_method("quantile")
def quantile(x, q, dim=None, keepdim=False, *, interpolation="linear"):
    """The q-th quantiles of x along `dim` (all elements when None), q a number or a 1-d tensor
    (its values first in the result). A slice holding NaN gives NaN."""
    return _quantile(x, q, dim, keepdim, interpolation, False, "quantile")


@tensor_method("nanquantile")
def nanquantile(x, q, dim=None, keepdim=False, *, interpolation="linear"):
    """quantile ignoring NaN (a slice of NaN only gives NaN)."""
    return _quantile(x, q, dim, keepdim, interpolation, True, "nanquantile")
