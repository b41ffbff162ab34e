"""Indexing: `x[index]`, `x[index] = value`, gather/scatter and masked ops.

An index is normalised once into a static part (ints, slices, None, Ellipsis,
and the placeholder ARRAY where an index array goes) and the index arrays,
which travel as constant inputs of the primitive. Four primitives cover it:
  slice       basic indexing (a view),
  index       advanced indexing (integer arrays, boolean masks; a copy),
  index_scatter  the transpose of both: out_bar added into zeros at the index
                 (np.add.at, so repeated indices accumulate); its transpose is
                 the getitem again, so gradients of any order stay exact,
  index_put   x with the indexed entries replaced by (or increased by) value.
gather, scatter, index_select, take_along_axis and friends build index arrays
and use these. Inside vmap an index tensor may differ between examples (a
BatchedTensor): it then travels as a tensor input, not as its array, and the
batching rules below index each example with its own.
"""
import numbers
import operator
import warnings

import numpy as np

from .._core.batching import BatchedTensor, move_dim
from .._core.dispatch import apply, refresh_view
from .._core.errors import (ArgumentError, DTypeError, IndexOutOfRange, ShapeError,
                            ShapeIndexError)
from .._core.forward_mode import state as _forward_state
from .._core.static_mode import state as _static_state
from .._core.grad_mode import state as _grad_state
from .._core.primitive import REGISTRY, Primitive
from .._core.tensor import Tensor, is_scalar, tensor_method
from ._batch import front
from ._family import cast_to, fill_value, linear
from .inplace import write_through
from .elementwise import where
from .shape import _dim, broadcast_tensors, broadcast_to, moveaxis, reshape

__all__ = ["getitem", "setitem", "index_put", "index_put_", "gather", "scatter", "scatter_",
           "scatter_add", "scatter_add_", "index_select", "index_add", "index_add_",
           "take_along_axis", "take_along_dim", "take", "masked_fill", "masked_fill_",
           "masked_select", "nonzero", "scatter_reduce"]

ARRAY = "array"  # stands in the static index for the next index array


def _normalize(index):
    """(static index tuple, list of index arrays) for a Python index expression."""
    if type(index) is not tuple:
        index = tuple(index) if type(index) is list and _sequence_as_tuple(index) else (index,)
    static = []
    arrays = []
    for e in index:
        t = type(e)
        if t is int or e is None or e is Ellipsis:
            static.append(e)
            continue
        if t is slice:
            if not all(isinstance(v, int) or v is None for v in (e.start, e.stop, e.step)):
                # (an int subclass stays: a size computed from a static program's unknown one)
                e = slice(*(v if v is None or isinstance(v, int) else operator.index(v)
                            for v in (e.start, e.stop, e.step)))
            static.append(e)
            continue
        if t is Tensor or isinstance(e, Tensor):
            a = e._data
        elif isinstance(e, np.ndarray):
            a = e
        elif isinstance(e, (bool, np.bool_)):
            a = np.asarray(e)
        elif isinstance(e, numbers.Integral):
            static.append(operator.index(e))
            continue
        elif isinstance(e, (list, tuple, range)):
            a = np.asarray(e)
        else:
            raise (TypeError if isinstance(e, str) else IndexError)(
                f"can't index a tensor with a {type(e).__name__}; use ints, slices, None, ..., "
                "or integer / boolean tensors")
        kind = a.dtype.kind
        if kind == "f" and not isinstance(e, Tensor):  # PyTorch truncates a list of floats
            a = a.astype(np.int64)
            kind = "i"
        if kind == "u" and a.dtype == np.uint8 and type(e) is Tensor:
            warnings.warn("indexing with a uint8 tensor is deprecated, as in PyTorch, which "
                          "reads it as a mask; use a bool tensor instead", UserWarning,
                          stacklevel=3)
            e = a = a.astype(bool)
            kind = "b"
        if kind in "iu":
            if a.ndim == 0 and not _value_unknown(e):
                static.append(int(a))
                continue
        elif kind != "b":
            if a.size:
                raise IndexError(f"tensors used as indices must be integer or boolean, not "
                                 f"{a.dtype}")
            e = a = a.astype(np.int64)
        static.append(ARRAY)
        arrays.append(_per_example(e, a))
    return tuple(static), arrays


def _sequence_as_tuple(index):
    """PyTorch's (and older NumPy's) rule: a list of fewer than 32 entries, one of which is a
    sequence, tensor, slice, None or Ellipsis, is read as a tuple (x[[[0, 1], [1, 2]]] is
    x[[0, 1], [1, 2]])."""
    if len(index) >= 32 or not any(e is None or e is Ellipsis or isinstance(
            e, (list, tuple, range, str, slice, np.ndarray, Tensor)) for e in index):
        return False
    warnings.warn("indexing with a list that holds sequences, slices or None reads it as a tuple "
                  "of indices, as PyTorch does (deprecated there); write x[tuple(seq)]",
                  UserWarning, stacklevel=4)
    return True


def _per_example(t, a):
    """The index `t` (whose array is `a`) as a primitive's input: its array, or itself where it
    differs between the examples of a vmap (its array is only the first example's) or is a
    static Variable (its array is a stand-in)."""
    return t if _value_unknown(t) else a


def _value_unknown(t):
    return type(t) is BatchedTensor or getattr(t, "program", None) is not None


def _build(index, arrays):
    if not arrays:
        return index
    rest = iter(arrays)
    return tuple(next(rest) if e is ARRAY else e for e in index)


def _repeats_possible(arrays):
    return any(a.dtype.kind != "b" for a in arrays)


def _scatter_impl(out_bar, *arrays, index, shape):
    out = np.zeros(shape, out_bar.dtype)
    if _repeats_possible(arrays):
        np.add.at(out, _build(index, arrays), out_bar)
    else:
        out[_build(index, arrays)] = out_bar
    return out


def _add_at(target, index, arrays, value):
    """np.add.at(target, index, value), with `value` first given the rank of target[index]:
    NumPy 2.4's add.at adds a value of lower rank that broadcasts across the index arrays'
    dimensions only once, or reads past its end."""
    value = np.asarray(value)
    rank = _layout(index, arrays, (None,) * len(arrays), target.ndim)[5]
    if 0 < value.ndim < rank:
        value = value.reshape((1,) * (rank - value.ndim) + value.shape)
    np.add.at(target, _build(index, arrays), value)


def index_put_into(x, value, *arrays, index, accumulate):
    """index_put's work done in x itself (a buffer no one else reads)."""
    idx = _build(index, arrays)
    if not accumulate:
        x[idx] = value
    elif _repeats_possible(arrays):
        _add_at(x, index, arrays, value)
    else:
        x[idx] += value
    return x


def _index_put_impl(x, value, *arrays, index, accumulate):
    return index_put_into(x.copy(), value, *arrays, index=index, accumulate=accumulate)


def _is_mask(a):
    return getattr(a, "_data", a).dtype.kind == "b"


def _layout(index, arrays, bdims, ndim):
    """How NumPy lays out x[index] for an x of rank `ndim` (`arrays` batched along `bdims`):
    (first, dim, before, adjacent, k, rank). The advanced entries are the index arrays, and
    the ints too when there are arrays; `first` is the first one's position in `index`,
    `dim` and `before` the dimensions of x taken and of the result made by the entries
    before it. The advanced entries' broadcast shape, of rank k, stays in their place if
    they are `adjacent` in `index`, else it goes first. `rank`: the result's rank."""
    if not any(e is Ellipsis for e in index):
        index = index + (Ellipsis,)  # the dimensions left over
    spans = []  # (dimensions of x taken, of the result made) by each entry; made None: advanced
    k = 0
    rest = iter(zip(arrays, bdims))
    for e in index:
        if e is ARRAY:
            a, b = next(rest)
            r = a.ndim - (b is not None)
            spans.append((r, None) if _is_mask(a) else (1, None))
            k = max(k, 1 if _is_mask(a) else r)
        elif e is None:
            spans.append((0, 1))
        elif type(e) is slice:
            spans.append((1, 1))
        elif e is not Ellipsis:
            spans.append((1, None if arrays else 0))
        else:
            spans.append(e)
    left = ndim - sum(s[0] for s in spans if s is not Ellipsis)
    spans = [(left, left) if s is Ellipsis else s for s in spans]
    rank = sum(s[1] for s in spans if s[1] is not None)
    advanced = [i for i, s in enumerate(spans) if s[1] is None]
    if not advanced:
        return None, 0, 0, True, 0, rank
    first = advanced[0]
    return (first, sum(s[0] for s in spans[:first]), sum(s[1] for s in spans[:first]),
            advanced[-1] - first == len(advanced) - 1, k, rank + k)


def _batch_size(bdims, inputs):
    return next(x.shape[b] for x, b in zip(inputs, bdims) if b is not None)


def _batched_index(index, arrays, bdims, ndim, size, x_batched):
    """`index` and its arrays for the whole batch: (index, arrays, x_dim, out_dim, rank), where
    x's batch dimension must be at x_dim (None: x stays unbatched) and the batch lands at
    out_dim of the result, whose examples have rank `rank`."""
    first, dim, before, adjacent, k, rank = _layout(index, arrays, bdims, ndim)
    if all(b is None for b in bdims):
        # the batch is one more leading slice; NumPy moves it behind the advanced
        # dimensions when it puts them first
        return (slice(None),) + index, arrays, 0, 0 if adjacent else k, rank
    if any(b is not None and _is_mask(a) for a, b in zip(arrays, bdims)):
        raise IndexError("vmap: a boolean mask that differs between the examples of the batch "
                         "selects a different number of entries from each; use "
                         "fluxgrad.where or masked_fill instead of indexing with it")
    # Each index array gets the batch as its leading dimension (broadcast against the others);
    # a batched x is indexed by the batch position too, an index right before the others.
    arrays = [a if b is None else _lead(front(a, b), k) for a, b in zip(arrays, bdims)]
    out_dim = before if adjacent else 0
    if not x_batched:
        return index, arrays, None, out_dim, rank
    batch = _positions(size, (size,) + (1,) * k)
    return index[:first] + (ARRAY,) + index[first:], [batch] + arrays, dim, out_dim, rank


def _lead(a, k):
    """`a`, batched in front, padded to rank k + 1 so that its examples broadcast as they do."""
    return reshape(a, a.shape[:1] + (1,) * (k + 1 - a.ndim) + a.shape[1:])


def _batch_at(x, bdim, dim, size):
    """x with its batch dimension at `dim` (broadcast there if x is unbatched)."""
    if bdim is not None:
        return move_dim(x, bdim, dim)
    x = reshape(x, x.shape[:dim] + (1,) + x.shape[dim:])
    return x.broadcast_to(x.shape[:dim] + (size,) + x.shape[dim + 1:])


def _slice_batch(bdims, x, *, index):
    return apply(slice_p, front(x, bdims[0]), index=(slice(None),) + index), 0


def _index_batch(bdims, x, *arrays, index):
    size = _batch_size(bdims, (x,) + arrays)
    ndim = x.ndim - (bdims[0] is not None)
    index, arrays, x_dim, out_dim, _ = _batched_index(index, arrays, bdims[1:], ndim, size,
                                                      bdims[0] is not None)
    if x_dim is not None:
        x = move_dim(x, bdims[0], x_dim)
    return apply(index_p, x, *arrays, index=index), out_dim


def _scatter_batch(bdims, out_bar, *arrays, index, shape):
    size = _batch_size(bdims, (out_bar,) + arrays)
    index, arrays, x_dim, out_dim, _ = _batched_index(index, arrays, bdims[1:], len(shape),
                                                      size, True)
    out_bar = _batch_at(out_bar, bdims[0], out_dim, size)
    return apply(index_scatter_p, out_bar, *arrays, index=index,
                 shape=shape[:x_dim] + (size,) + shape[x_dim:]), x_dim


def _put_batch(bdims, x, value, *arrays, index, accumulate):
    size = _batch_size(bdims, (x, value) + arrays)
    ndim = x.ndim - (bdims[0] is not None)
    index, arrays, x_dim, out_dim, rank = _batched_index(index, arrays, bdims[2:], ndim, size,
                                                         True)
    x = _batch_at(x, bdims[0], x_dim, size)
    if isinstance(value, Tensor):
        value = _value_batch(value, bdims[1], rank, out_dim)
    return apply(index_put_p, x, value, *arrays, index=index, accumulate=accumulate), x_dim


def _value_batch(value, bdim, rank, dim):
    """`value`, which broadcasts against results of rank `rank`, as rank + 1 dimensions with its
    batch (or a size-1 dimension if unbatched) at `dim`."""
    value = front(value, bdim) if bdim is not None else reshape(value, (1,) + value.shape)
    shape = value.shape[1:]
    shape = (1,) * (rank - len(shape)) + shape[max(len(shape) - rank, 0):]
    return move_dim(reshape(value, value.shape[:1] + shape), 0, dim)


def _take(x, arrays, index):
    """x[index] as the primitive that fits it."""
    if arrays:
        return apply(index_p, x, *arrays, index=index)
    return apply(slice_p, x, index=index)


def _basic_index(x, *, index):
    out = x[index]
    if type(out) is np.ndarray:
        return out
    # an int for every axis: NumPy gives a scalar (a copy); with `...` it gives a 0-d view, so
    # that x[1].fill_(5) writes into x, as PyTorch's
    return x[(index if type(index) is tuple else (index,)) + (Ellipsis,)]


slice_p = linear("slice", _basic_index,
                 lambda out_bar, x, *, index: apply(index_scatter_p, out_bar, index=index,
                                                    shape=x.shape),
                 view=lambda base, value, *, index: apply(index_put_p, base, value, index=index,
                                                          accumulate=False),
                 batch=_slice_batch)

index_p = Primitive(
    "index", lambda x, *arrays, index: x[_build(index, arrays)],
    vjp=(lambda out_bar, out, x, *arrays, index: apply(
        index_scatter_p, out_bar, *arrays, index=index, shape=x.shape),),
    jvp=lambda tangents, out, x, *arrays, index: apply(index_p, tangents[0], *arrays,
                                                       index=index), saves_inputs=False,
    linear=(0,), batch=_index_batch)

index_scatter_p = Primitive(
    "index_scatter", _scatter_impl,
    vjp=(lambda out_bar, out, g, *arrays, index, shape: _take(out_bar, arrays, index),),
    jvp=lambda tangents, out, g, *arrays, index, shape: apply(
        index_scatter_p, tangents[0], *arrays, index=index, shape=shape), saves_inputs=False,
    linear=(0,), batch=_scatter_batch)


def _index_put_value_vjp(out_bar, out, x, value, *arrays, index, accumulate):
    v_bar = _take(out_bar, arrays, index)
    if v_bar.ndim < value.ndim:  # NumPy lets value carry extra leading size-1 dimensions
        v_bar = reshape(v_bar, (1,) * (value.ndim - v_bar.ndim) + v_bar.shape)
    return v_bar


def _index_put_jvp(tangents, out, x, value, *arrays, index, accumulate):
    from ..creation import zeros_like
    x_dot, v_dot = tangents[0], tangents[1]
    if x_dot is None:
        x_dot = zeros_like(x)
    if v_dot is None:
        if accumulate:
            return x_dot
        v_dot = 0.0
    return apply(index_put_p, x_dot, v_dot, *arrays, index=index, accumulate=accumulate)


index_put_p = Primitive(
    "index_put", _index_put_impl,
    vjp=(lambda out_bar, out, x, value, *arrays, index, accumulate: out_bar if accumulate
         else apply(index_put_p, out_bar, 0.0, *arrays, index=index, accumulate=False),
         _index_put_value_vjp),
    jvp=_index_put_jvp, saves_inputs=False, linear=(0, 1), batch=_put_batch)


def _torch_block(static, arrays, ndim):
    """Where PyTorch puts the dimensions of the index arrays when NumPy puts them elsewhere:
    (k, p), the block of k dimensions goes to position p of the result; None if the two agree.

    PyTorch applies the integers of an index as selections before the advanced indexing, so
    they don't separate the index arrays (`x[1, :, [0, 1]]` keeps the arrays' dimension after
    the slice's); NumPy counts them as index arrays, which puts the block first. NumPy also
    takes an Ellipsis that stands for no dimension as a separation; PyTorch doesn't.
    """
    if not arrays:
        return None
    ints = sum(type(e) is int for e in static)
    if not ints and Ellipsis not in static:
        return None
    unbatched = (None,) * len(arrays)
    if _layout(static, arrays, unbatched, ndim)[3]:
        return None
    rest = iter(arrays)
    taken = 0  # the dimensions of x the entries other than Ellipsis take
    for e in static:
        if e is ARRAY:
            a = next(rest)
            taken += a.ndim if _is_mask(a) else 1
        elif e is not None and e is not Ellipsis:
            taken += 1
    selected = tuple(e for e in static if type(e) is not int and not (
        e is Ellipsis and taken == ndim))
    _, _, before, adjacent, k, _ = _layout(selected, arrays, unbatched, ndim - ints)
    return (k, before) if adjacent and before else None


@tensor_method("__getitem__")
def getitem(x, index):
    """`x[index]`: PyTorch's basic and advanced indexing (NumPy's, except that integers
    next to index arrays are selections first, as in PyTorch)."""
    static, arrays = _normalize(index)
    try:
        out = _take(x, arrays, static)
    except IndexError as err:
        raise IndexError(f"indexing a tensor of shape {list(x.shape)}: {err}") from None
    block = _torch_block(static, arrays, x.ndim)
    if block is not None:
        k, p = block
        out = moveaxis(out, tuple(range(k)), tuple(range(p, p + k)))
    return out


def _value_for(x, value):
    if isinstance(value, Tensor):
        return cast_to(value, x.dtype)
    if is_scalar(value):
        if x._data.dtype.kind in "iu" and isinstance(value, float) and np.isfinite(value):
            value = int(value)  # truncated first, as torch does, also when it is accumulated
        if x._data.dtype.kind in "iu" and type(value) is int:
            return fill_value(value, x.dtype, "index_put")
        return value
    return Tensor(value, dtype=x.dtype)


def _as_torch_error(err):
    """The class to re-raise a NumPy indexing error as: PyTorch's RuntimeError for a shape
    mismatch (a ValueError from NumPy), IndexError as it is."""
    return ShapeError if isinstance(err, ValueError) else type(err)


def _tracked(*tensors):
    """Whether an in-place write must run as an op: it is recorded, or some tensor differs
    between the examples of a vmap."""
    if any(type(t) is BatchedTensor for t in tensors):
        return True
    if _static_state.armed and any(getattr(t, "program", None) is not None for t in tensors):
        return True  # a static Variable: the write is staged
    if _forward_state.level and any(getattr(t, "_tangent", None) is not None for t in tensors):
        return True
    return _grad_state.enabled and any(isinstance(t, Tensor) and t._requires_grad
                                       for t in tensors)


def _put(x, static, arrays, value, accumulate):
    """Write `value` into x[index] in place (set or add), recording it when it matters."""
    value = _value_for(x, value)
    if _static_state.armed and getattr(x, "program", None) is None and any(
            getattr(t, "program", None) is not None for t in (value, *arrays)):
        raise TypeError(f"writing a static Variable into a tensor of shape {list(x.shape)} that "
                        "is not part of the program (a constant): build that tensor in the "
                        "program instead, e.g. from fluxgrad.zeros_like(a Variable), or use the "
                        "out-of-place index_put")
    if not _tracked(x, value, *arrays):
        idx = _build(static, arrays)
        data = value._data if isinstance(value, Tensor) else value
        target = x._writable_data()
        try:
            if not accumulate:
                target[idx] = data
            elif _repeats_possible(arrays):
                _add_at(target, static, arrays, data)
            else:
                target[idx] += data
        except (IndexError, ValueError) as err:
            raise _as_torch_error(err)(
                f"writing into a tensor of shape {list(x.shape)}: {err}") from None
        x._bump_version()
        return x
    try:
        result = apply(index_put_p, _before(x), value, *arrays, index=static,
                       accumulate=accumulate)
    except (IndexError, ValueError) as err:
        raise _as_torch_error(err)(
            f"writing into a tensor of shape {list(x.shape)}: {err}") from None
    return write_through(x, result)


def _before(x):
    """The 'before' of an in-place op: x's data and history, on a version counter of its own
    (the rules of index_put never read x's values, which the op overwrites). A view whose
    base was written since takes its current history first, as `inplace.apply_inplace`."""
    if x._version_counter is not None and getattr(x, "_view", None) is not None:
        refresh_view(x)
    if type(x) is BatchedTensor or getattr(x, "program", None) is not None:
        before = x._before_inplace()
    else:
        before = Tensor._make(x._data, x._requires_grad, x._grad_fn, x._out_index)
    before._tangent = x._tangent
    return before


@tensor_method("__setitem__")
def setitem(x, index, value):
    """`x[index] = value`, in place; gradients flow to the old x (outside the index) and to
    value."""
    static, arrays = _normalize(index)
    if isinstance(value, Tensor) and value.ndim and value.shape[0] == 1:
        lead = next((k for k, n in enumerate(value.shape) if n != 1), value.ndim)
        value = reshape(value, value.shape[lead:])  # PyTorch drops leading 1s: x[0, 0] = t[1]
    block = _torch_block(static, arrays, x.ndim)
    if block is not None:
        value = _value_for(x, value)
        if isinstance(value, Tensor) and value.ndim:
            # value broadcasts against PyTorch's layout of x[index]: into NumPy's
            k, p = block
            rank = _layout(static, arrays, (None,) * len(arrays), x.ndim)[5]
            if value.ndim <= rank:  # else NumPy's message says what doesn't fit
                value = reshape(value, (1,) * (rank - value.ndim) + value.shape)
                value = moveaxis(value, tuple(range(p, p + k)), tuple(range(k)))
    _put(x, static, arrays, value, False)


@tensor_method("index_put")
def index_put(x, indices, values, accumulate=False):
    """x with x[indices] set to `values` (or increased by them, with accumulate=True)."""
    static, arrays = _normalize(tuple(indices))
    values = _value_for(x, values)
    try:
        return apply(index_put_p, x, values, *arrays, index=static, accumulate=bool(accumulate))
    except (IndexError, ValueError) as err:
        raise _as_torch_error(err)(
            f"index_put into a tensor of shape {list(x.shape)}: {err}") from None


@tensor_method("index_put_")
def index_put_(x, indices, values, accumulate=False):
    static, arrays = _normalize(tuple(indices))
    return _put(x, static, arrays, values, bool(accumulate))


# --- gather / scatter ---------------------------------------------------------------------
def _index_array(index, op):
    a = index._data if isinstance(index, Tensor) else np.asarray(index)
    if a.dtype.kind not in "iu":
        if a.size:
            raise DTypeError(f"{op}: the index must hold integers, not {a.dtype}")
        return a.astype(np.int64)
    return _per_example(index, a)


def _known(index):
    """Whether the values of a nonempty index can be checked here (else, differing between
    examples or known only when a program runs, they are checked by the indexing itself)."""
    return not _value_unknown(index) and index.size > 0


def _positions(n, shape):
    """0, 1, .., n - 1 in `shape`: an op when n may be a size known only when a static program
    runs (its stand-in is at least 10007, see `static.dims`), so that it is staged."""
    if type(n) is int and n < 10007:
        return np.arange(n).reshape(shape)
    from ..creation import arange
    return arange(n).reshape(shape)


def _along(shape, dim, index):
    """Index arrays picking x[i0, .., index[i], .., in] for every position i of `index` (a
    0-d index into a 1-d tensor picks one entry)."""
    if not index.ndim:
        return (ARRAY,), [index]
    grids = [_positions(n, (1,) * d + (n,) + (1,) * (len(shape) - d - 1))
             for d, n in enumerate(shape)]
    grids[dim] = index
    return (ARRAY,) * len(shape), grids


def _check_along(x, dim, index, op, src=None):
    if index.ndim != x.ndim and not (index.ndim == 0 and x.ndim == 1):  # 0-d reads as 1-d
        raise ShapeError(f"{op}: the index has {index.ndim} dimensions but the tensor has "
                         f"{x.ndim} (shape {list(x.shape)}); they must have the same number")
    for d, (n, m) in enumerate(zip(x.shape, index.shape)):
        if d != dim and m > n:
            raise ShapeError(f"{op}: index shape {list(index.shape)} is larger than the "
                             f"tensor's {list(x.shape)} in dimension {d}")
    if src is not None and any(m > n for n, m in zip(src.shape, index.shape)):
        raise ShapeError(f"{op}: index shape {list(index.shape)} is larger than the source's "
                         f"{list(src.shape)}")
    if _known(index) and (index.min() < -x.shape[dim] or index.max() >= x.shape[dim]):
        raise IndexOutOfRange(f"{op}: index values must lie in [{-x.shape[dim]}, "
                         f"{x.shape[dim] - 1}] for dimension {dim} of size {x.shape[dim]}")


@tensor_method("gather")
def gather(x, dim, index=None, *, sparse_grad=False, axis=None):
    """PyTorch's gather: out[i][j][k] = x[i][index[i][j][k]][k] (for dim=1).

    PaddlePaddle's gather(x, index, axis) (whole slices along `axis`) is also accepted:
    it is `index_select`."""
    if not isinstance(dim, (int, np.integer)):
        return index_select(x, axis if axis is not None else (0 if index is None else index),
                            dim)
    if index is None:
        raise TypeError("gather: give the index tensor: gather(x, dim, index)")
    dim = _dim(dim, x.ndim, "gather")
    index = _index_array(index, "gather")
    if x.ndim == 0:
        _check_0d_index(index, "gather")
        return reshape(take(x, index), index.shape)
    if 0 in index.shape and index.ndim != x.ndim:  # nothing gathered: torch allows any shape
        return reshape(reshape(x, (-1,))[:0], index.shape)
    _check_along(x, dim, index, "gather")
    static, arrays = _along(index.shape, dim, index)
    return apply(index_p, x, *arrays, index=static)


def _check_0d_index(index, op):
    if index.ndim > 1:  # a 0-d tensor counts as 1-d here, as PyTorch
        raise ShapeError(f"{op}: the index has {index.ndim} dimensions but the tensor is 0-d; "
                         "use a 0-d or 1-d index")


def _into_0d(index, op):
    """The index that addresses the one entry of a 0-d tensor (index values 0 or -1)."""
    if _known(index) and np.any((index != 0) & (index != -1)):
        raise IndexOutOfRange(f"{op}: index values into a 0-d tensor must be 0 or -1, got "
                              f"{index.reshape(-1).tolist()}")
    return (), []


def _scatter(x, dim, index, src, accumulate, op):
    dim = _dim(dim, x.ndim, op)
    index = _index_array(index, op)
    if x.ndim == 0:
        _check_0d_index(index, op)
        return (*_into_0d(index, op), src)
    src_t = src if isinstance(src, Tensor) else None
    if src_t is not None and src_t.dtype != x.dtype:
        raise DTypeError(f"{op}: src ({src_t.dtype}) must have the dtype of the tensor it is "
                         f"scattered into ({x.dtype}); convert it with .to({x.dtype})")
    _check_along(x, dim, index, op, src_t)
    static, arrays = _along(index.shape, dim, index)
    if src_t is not None and src_t.shape != index.shape:
        src = src_t[tuple(slice(0, n) for n in index.shape)]
    return static, arrays, src


@tensor_method("scatter")
def scatter(x, dim, index, src=None, *, value=None, reduce=None, overwrite=True):
    """PyTorch's scatter: a copy of x with x[i][index[i][j]] = src[i][j] (for dim=1); `src`
    may be a number (or `value=`). reduce='add' accumulates instead.

    PaddlePaddle's scatter(x, index, updates, overwrite=True) (rows of x at `index`
    replaced by, or with overwrite=False summed from, `updates`) is also accepted."""
    if not isinstance(dim, (int, np.integer)):
        return _paddle_scatter(x, dim, index, overwrite if src is None else src)
    if src is None:
        src = value
    if reduce == "multiply":
        return scatter_reduce(x, dim, index, _src_like(x, index, src), "prod")
    if reduce not in (None, "add", "sum"):
        raise ArgumentError(f"scatter: reduce={reduce!r} is not supported; use None, 'add' or "
                            "'multiply' (scatter_reduce has more)")
    static, arrays, src = _scatter(x, dim, index, src, reduce is not None, "scatter")
    return apply(index_put_p, x, _value_for(x, src), *arrays, index=static,
                 accumulate=reduce is not None)


def _paddle_scatter(x, index, updates, overwrite):
    arrays = [_index_array(index, "scatter").reshape(-1)]
    if overwrite:
        return index_put(x, (arrays[0],), updates)
    cleared = apply(index_put_p, x, 0.0, *arrays, index=(ARRAY,), accumulate=False)
    return index_put(cleared, (arrays[0],), updates, accumulate=True)


def _src_like(x, index, src):
    """A number given as scatter's src, as a tensor of the index's shape."""
    if isinstance(src, Tensor):
        return src
    shape = np.shape(getattr(index, "_data", index))
    return Tensor(np.full(shape, src, x._data.dtype))


_REDUCTIONS = ("sum", "prod", "mean", "amax", "amin")


def _identity(reduce, dtype):
    """The value an empty slot holds for `reduce`: what it leaves the others as."""
    if reduce in ("sum", "mean"):
        return 0
    if reduce == "prod":
        return 1
    if dtype.kind == "b":
        low, high = False, True
    elif dtype.kind == "f":
        low, high = -np.inf, np.inf
    else:
        low, high = np.iinfo(dtype).min, np.iinfo(dtype).max
    return low if reduce == "amax" else high


@tensor_method("scatter_reduce")
def scatter_reduce(x, dim, index, src, reduce, *, include_self=True):
    """A copy of x where each x[i][index[i][j]] (for dim=1) becomes the `reduce` ('sum',
    'prod', 'mean', 'amax' or 'amin') of the src[i][j] sent to it, and of its own value if
    `include_self`; entries nothing is sent to keep their value.

    Each entry something is sent to gathers its values in a row of a table (padded with the
    reduction's identity) that the reduction (`sum`, `prod`, `amax`, ...) reduces, so the
    gradients are those of the reductions: exact with zeros for prod, split evenly between
    tied extrema, to any order."""
    from .reduce import amax, amin, prod, sum
    from .shape import concat
    reduce = {"max": "amax", "min": "amin"}.get(reduce, reduce)  # PyTorch takes these too
    if reduce not in _REDUCTIONS:
        raise ArgumentError(f"scatter_reduce: reduce must be one of {', '.join(_REDUCTIONS)}, "
                            f"got {reduce!r}")
    static, arrays, src = _scatter(x, dim, index, src, True, "scatter_reduce")
    if x.ndim == 0:  # as the one entry of a 1-d tensor
        index = index if isinstance(index, Tensor) else Tensor._make(np.asarray(index))
        return reshape(scatter_reduce(reshape(x, (1,)), 0, reshape(index, (1,)),
                                      reshape(_value_for(x, src), (1,)), reduce,
                                      include_self=include_self), ())
    if any(type(a) is BatchedTensor for a in arrays):
        raise NotImplementedError("vmap: scatter_reduce with an index that differs between the "
                                  "examples of the batch is not supported")
    src = _value_for(x, _src_like(x, index, src))
    grids = list(np.broadcast_arrays(*arrays))
    if not grids[0].size:
        return x
    grids[dim] = grids[dim] % x.shape[dim]
    targets = np.ravel_multi_index(grids, x.shape).reshape(-1)
    rows, row = np.unique(targets, return_inverse=True)  # the entries sent to, each one's row
    order = np.argsort(row, kind="stable")
    counts = np.bincount(row)
    slot = np.empty_like(row)
    slot[order] = np.arange(row.size) - np.repeat(np.cumsum(counts) - counts, counts)
    table = Tensor._make(np.full((rows.size, counts.max()), _identity(reduce, x._data.dtype),
                                 x._data.dtype))
    table = apply(index_put_p, table, reshape(src, (-1,)), row, slot, index=(ARRAY, ARRAY),
                  accumulate=False)
    flat = reshape(x, (-1,))
    if include_self:
        table = concat([reshape(_take(flat, [rows], (ARRAY,)), (-1, 1)), table], 1)
        counts = counts + 1
    if reduce == "mean":
        total = sum(table, 1).to(x.dtype)
        reduced = total / Tensor(counts) if x.is_floating_point() else total // Tensor(counts)
    else:
        reduced = {"sum": sum, "prod": prod, "amax": amax, "amin": amin}[reduce](table, 1)
    out = apply(index_put_p, flat, reduced.to(x.dtype), rows, index=(ARRAY,), accumulate=False)
    return reshape(out, x.shape)


@tensor_method("scatter_add")
def scatter_add(x, dim, index, src):
    """A copy of x with src[i][j] added into x[i][index[i][j]] (for dim=1); repeated indices
    add up."""
    static, arrays, src = _scatter(x, dim, index, src, True, "scatter_add")
    return apply(index_put_p, x, _value_for(x, src), *arrays, index=static, accumulate=True)


@tensor_method("scatter_")
def scatter_(x, dim, index, src=None, *, value=None, reduce=None):
    if src is None:
        src = value
    if reduce == "multiply":
        if not _tracked(x, src):
            np.copyto(x._writable_data(), scatter(x, dim, index, src, reduce="multiply")._data)
            x._bump_version()
            return x
        return write_through(x, scatter(_before(x), dim, index, src, reduce="multiply"))
    if reduce not in (None, "add", "sum"):
        raise ArgumentError(f"scatter_: reduce={reduce!r} is not supported; use None, 'add' "
                            "or 'multiply'")
    static, arrays, src = _scatter(x, dim, index, src, reduce is not None, "scatter_")
    return _put(x, static, arrays, src, reduce is not None)


@tensor_method("scatter_add_")
def scatter_add_(x, dim, index, src):
    static, arrays, src = _scatter(x, dim, index, src, True, "scatter_add_")
    return _put(x, static, arrays, src, True)


def _select_index(x, dim, index, op):
    dim = _dim(dim, max(x.ndim, 1), op)
    index = _index_array(index, op)
    if index.ndim > 1:
        raise ShapeIndexError(f"{op}: the index must be 1-d, got shape {list(index.shape)}")
    if x.ndim == 0:
        return _into_0d(index, op)
    return (slice(None),) * dim + (ARRAY,), [index.reshape(-1)]


@tensor_method("index_select")
def index_select(x, dim, index=None, *, axis=None):
    """Entries `index` (1-d) of dimension `dim`. Also PaddlePaddle's index_select(x, index,
    axis=0)."""
    if not isinstance(dim, (int, np.integer)):
        dim, index = (0 if index is None else index) if axis is None else axis, dim
    if x.ndim == 0:  # a 0-d x gives a 0-d result, as PyTorch
        _dim(dim, 0, "index_select")
        index = _index_array(index, "index_select")
        if index.size != 1:
            raise ShapeError(f"index_select: the index into a 0-d tensor can have only 1 "
                             f"value, got {index.size}")
        return reshape(_take(reshape(x, (1,)), [index.reshape(-1)], (ARRAY,)), ())
    static, arrays = _select_index(x, dim, index, "index_select")
    return _take(x, arrays, static)


@tensor_method("index_add")
def index_add(x, dim, index, source=None, *, alpha=1, axis=None, value=None):
    """A copy of x with alpha * source added into entries `index` of dimension `dim`.
    Also PaddlePaddle's index_add(x, index, axis, value)."""
    if not isinstance(dim, (int, np.integer)):
        dim, index = (index if axis is None else axis), dim
    if value is not None:
        source = value
    static, arrays = _select_index(x, dim, index, "index_add")
    source = _value_for(x, source)
    _check_index_add_source(x, dim, index, source)
    if alpha != 1:
        source = _times_alpha(source, alpha, x)
    return apply(index_put_p, x, source, *arrays, index=static, accumulate=True)


def _times_alpha(source, alpha, x):
    """alpha * source in x's dtype (a bool tensor's alpha is bool(alpha), as PyTorch)."""
    return cast_to(source * alpha, x.dtype) if isinstance(source, Tensor) else source * alpha


def _check_index_add_source(x, dim, index, source):
    """torch's rule: source has x's shape but the length of index in dimension dim."""
    if source.ndim == 0 and x.ndim <= 1:
        return
    want = list(x.shape)
    if want:
        want[dim] = int(np.size(index._data if isinstance(index, Tensor) else index))
    if list(source.shape) != want:
        raise ShapeError(f"index_add: source of shape {list(source.shape)} must match the "
                         f"tensor's shape {list(x.shape)} except dimension {dim}, which must be "
                         f"the index's length: expected {want}")


@tensor_method("index_add_")
def index_add_(x, dim, index, source, *, alpha=1):
    _check_index_add_source(x, dim, index, _value_for(x, source))
    static, arrays = _select_index(x, dim, index, "index_add_")
    return _put(x, static, arrays, source if alpha == 1 else _times_alpha(source, alpha, x),
                True)


@tensor_method("take_along_dim")
def take_along_dim(x, indices, dim=None):
    """Values of x at `indices` along `dim` (indices broadcast against x elsewhere); with no
    dim, of the flattened tensor (NumPy's take_along_axis)."""
    index = _index_array(indices, "take_along_dim")
    if dim is None:
        return _take(reshape(x, (-1,)), [index.reshape(-1)], (ARRAY,))
    if index.ndim != x.ndim:
        raise ShapeError(f"take_along_dim: indices have {index.ndim} dimensions but the tensor "
                         f"has {x.ndim}; they must have the same number")
    dim = _dim(dim, x.ndim, "take_along_dim")
    try:
        np.broadcast_shapes(x.shape[:dim] + x.shape[dim + 1:],
                            index.shape[:dim] + index.shape[dim + 1:])
    except ValueError:
        raise ShapeError(f"take_along_dim: indices of shape {list(index.shape)} don't "
                         f"broadcast against the tensor's {list(x.shape)} outside dimension "
                         f"{dim}") from None
    n = x.shape[dim]
    if _known(index) and (index.min() < -n or index.max() >= n):
        raise IndexOutOfRange(f"take_along_dim: indices must lie in [{-n}, {n - 1}] for dimension "
                         f"{dim} of size {n}")
    static, grids = _along(x.shape, dim, index)
    return apply(index_p, x, *grids, index=static)


def take_along_axis(arr, indices, axis, broadcast=True):
    """NumPy's / PaddlePaddle's take_along_axis."""
    return take_along_dim(arr, indices, axis)


@tensor_method("take")
def take(x, index):
    """Entries of the flattened x at `index` (any shape)."""
    return _take(reshape(x, (-1,)), [_index_array(index, "take")], (ARRAY,))


# --- masks ----------------------------------------------------------------------------------
def _mask(mask, op):
    if isinstance(mask, Tensor):
        if mask._data.dtype != np.bool_:
            raise DTypeError(f"{op}: expected a boolean mask, got a {mask.dtype} tensor; "
                             "compare first (e.g. mask != 0)")
        return mask
    return Tensor(np.asarray(mask, dtype=bool))


@tensor_method("masked_fill")
def masked_fill(x, mask, value):
    """x with the entries where `mask` holds replaced by `value` (x and mask broadcast
    together, as PyTorch; in place, the mask must broadcast to x)."""
    mask = _mask(mask, "masked_fill")
    if is_scalar(value) and not x.is_floating_point() and not isinstance(value, bool):
        value = bool(value) if x._data.dtype.kind == "b" else fill_value(
            int(value), x.dtype, "masked_fill")
    elif isinstance(value, Tensor):
        if value.ndim:
            raise ShapeError(f"masked_fill: value must be a number or a 0-d tensor, got shape "
                             f"{list(value.shape)}")
        value = cast_to(value, x.dtype)
    if not _broadcasts_to(mask.shape, x.shape):
        x = broadcast_to(x, _joint_shape(mask, x, "masked_fill"))
    return cast_to(where(mask, value, x), x.dtype)


def _joint_shape(mask, x, op):
    try:
        return np.broadcast_shapes(mask.shape, x.shape)
    except ValueError:
        raise ShapeError(f"{op}: the mask of shape {list(mask.shape)} doesn't broadcast with "
                         f"the tensor's shape {list(x.shape)}") from None


def _broadcasts_to(shape, target):
    try:
        return np.broadcast_shapes(shape, target) == target
    except ValueError:
        return False


@tensor_method("masked_fill_")
def masked_fill_(x, mask, value):
    mask = _mask(mask, "masked_fill_")
    if not _broadcasts_to(mask.shape, x.shape):
        raise ShapeError(f"masked_fill_: the mask of shape {list(mask.shape)} doesn't broadcast "
                         f"to the tensor's shape {list(x.shape)}")
    if not _tracked(x, mask, value):
        np.copyto(x._writable_data(), getattr(value, "_data", value), casting="unsafe",
                  where=mask._data)
        x._bump_version()
        return x
    return write_through(x, masked_fill(_before(x), mask, value))


@tensor_method("masked_select")
def masked_select(x, mask):
    """The entries of x where `mask` holds (x and mask broadcast together), as a 1-d tensor."""
    mask = _mask(mask, "masked_select")
    if mask.shape != x.shape:
        x, mask = broadcast_tensors(x, mask)
    return apply(index_p, x, _per_example(mask, mask._data), index=(ARRAY,))


def _nonzero_impl(x):
    if not x.ndim:
        return np.zeros((int(x != 0), 0), np.int64)
    return np.stack(np.nonzero(x), axis=1).astype(np.int64)


def example_by_example(name):
    """The batching rule of an op whose result's size depends on the values (nonzero, unique):
    the op on each example, stacked; refused where the examples' results differ in size."""
    def rule(bdims, x, **params):
        from .shape import stack  # (shape builds on this module's neighbours)
        prim = REGISTRY[name]
        x = front(x, bdims[0])
        if not x.shape[0]:
            raise RuntimeError(f"vmap: {name} over an empty batch has no example to take the "
                               "size of its result from; call it outside vmap")
        results = [apply(prim, x[i], **params) for i in range(x.shape[0])]
        if prim.n_outputs == 1:
            results = [(r,) for r in results]
        shapes = sorted({tuple(tuple(o.shape) for o in r) for r in results})
        if len(shapes) > 1:
            raise RuntimeError(
                f"vmap: {name} gives the examples of the batch results of different sizes "
                f"({', '.join(map(str, shapes))}), which no tensor can hold, so it cannot be "
                "vmapped; call it on each example outside vmap, or use a mask (fluxgrad.where) "
                "instead")
        outs = tuple(stack([r[k] for r in results]) for k in range(prim.n_outputs))
        return (outs[0], 0) if prim.n_outputs == 1 else (outs, (0,) * prim.n_outputs)
    return rule


nonzero_p = Primitive("nonzero", _nonzero_impl,  # (integer positions: no derivative)
                      batch=example_by_example("nonzero"))


@tensor_method("nonzero")
def nonzero(x, *, as_tuple=False):
    """Positions of the nonzero entries: an (n, ndim) int64 tensor, or one 1-d tensor per
    dimension with as_tuple=True."""
    if not as_tuple:
        return apply(nonzero_p, x)
    positions = apply(nonzero_p, x if x.ndim else reshape(x, (1,)))
    return tuple(positions[:, k] for k in range(positions.shape[1]))
