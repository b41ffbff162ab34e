"""`as_strided`: a view that reads a tensor's elements at the positions a size, strides and
offset give (PyTorch's `torch.as_strided`), and `unfold` built on it.

PyTorch reads the tensor's storage; here the positions count the tensor's own elements in
row-major order, which is the same for a contiguous tensor. A contiguous tensor's result is
a view of its memory (writes go through); a non-contiguous one is copied first (as
`.contiguous().as_strided(...)`). Positions may repeat (overlapping windows): gradients add
up there, and a write through such a view writes each entry once.
"""
import numpy as np

from .._core.dispatch import apply
from .._core.tensor import Tensor, tensor_method
from ._family import linear
from .indexing import ARRAY, index_p, index_put_p, index_scatter_p
from .._core.errors import ShapeError
from .shape import _dim, moveaxis, reshape

__all__ = ["as_strided"]


def positions(size, stride, offset):
    """The element each entry of the result reads: offset + sum_k i_k * stride_k."""
    at = np.full(size, offset, np.int64)
    for k, (n, step) in enumerate(zip(size, stride)):
        at += (np.arange(n, dtype=np.int64) * step).reshape((n,) + (1,) * (len(size) - k - 1))
    return at


def _impl(x, *, size, stride, offset):
    if x.flags.c_contiguous:
        flat = x.reshape(-1)  # a view of x's memory
        return np.lib.stride_tricks.as_strided(flat[offset:], size,
                                               tuple(s * flat.itemsize for s in stride))
    # x's elements lie in memory out of row-major order: the result is still a view of it
    # where the positions step through that memory evenly (unfold's windows of a transpose)
    at = positions(size, stride, offset)
    if at.size:
        where = np.unravel_index(at, x.shape)
        address = sum(i * s for i, s in zip(where, x.strides))
        steps = tuple(int(np.take(address, 1, k).flat[0] - address.flat[0]) if n > 1 else 0
                      for k, n in enumerate(size))
        even = address.flat[0] + positions(size, steps, 0)
        if np.array_equal(address, even):
            first = tuple(slice(i.flat[0], i.flat[0] + 1) for i in where)
            return np.lib.stride_tricks.as_strided(x[first], size, steps)
    return x.reshape(-1)[at]  # (a copy)


def _transpose(out_bar, x, *, size, stride, offset):
    x_bar = apply(index_scatter_p, out_bar, positions(size, stride, offset), index=(ARRAY,),
                  shape=(x.numel(),))
    return reshape(x_bar, x.shape)


def _write(base, value, *, size, stride, offset):
    """`base` with the entries the view reads replaced by `value`. Where the view reads an
    entry more than once (overlapping windows) the last copy is written, as an in-place write
    in row-major order leaves it; only that copy's value reaches the result (and its
    gradient), so a fill_ or zero_ through an overlapping view counts each entry once. (Eager
    mode writes such a view straight into its root: `inplace.write_through`.)"""
    at = positions(size, stride, offset).reshape(-1)
    flat = write_last_copies(reshape(base, (-1,)), reshape(value, (-1,)), at)
    return reshape(flat, base.shape)


def write_last_copies(flat, values, at):
    """The 1-d `flat` with `values[i]` written at position `at[i]`; where a position occurs
    more than once, its last value (as a write in that order leaves it), so that only that
    copy's value reaches the result and its gradient."""
    last = at.size - 1 - np.unique(at[::-1], return_index=True)[1]
    if last.size < at.size:
        at = at[last]
        values = apply(index_p, values, last, index=(ARRAY,))
    return apply(index_put_p, flat, values, at, index=(ARRAY,), accumulate=False)


def _batch(bdims, x, *, size, stride, offset):
    x = moveaxis(x, bdims[0], 0)
    flat = reshape(x, (x.shape[0], -1))
    return apply(index_p, flat, positions(size, stride, offset),
                 index=(slice(None), ARRAY)), 0


as_strided_p = linear("as_strided", _impl, _transpose, view=_write, batch=_batch)


def _ints(values, name):
    if isinstance(values, Tensor):
        values = values.tolist()
    values = [values] if isinstance(values, (int, np.integer)) else list(values)
    if any(isinstance(v, (bool, float, np.floating)) or not isinstance(v, (int, np.integer))
           for v in values):
        raise TypeError(f"as_strided: {name} must be a sequence of ints, got {values!r}")
    return tuple(int(v) for v in values)


@tensor_method("as_strided")
def as_strided(input, size, stride, storage_offset=None):
    """The elements of `input` at offset + sum_k i_k * stride_k for every index i of `size`
    (a view of a contiguous tensor). `storage_offset` counts from the start of the memory
    `input` is a view of, as PyTorch's; by default it is `input`'s own offset there."""
    x = input
    size, stride = _ints(size, "size"), _ints(stride, "stride")
    if len(size) != len(stride):
        raise RuntimeError(f"as_strided: mismatch in length of strides and shape: size "
                           f"{list(size)} has {len(size)} dimensions, stride {list(stride)} "
                           f"has {len(stride)}")
    if any(n < 0 for n in size):
        raise RuntimeError(f"as_strided: the size can't be negative, got {list(size)}")
    if any(s < 0 for s in stride):
        raise RuntimeError(f"as_strided: negative strides are not supported, got strides: "
                           f"{list(stride)}")
    offset = 0 if storage_offset is None else int(storage_offset) - x.storage_offset()
    # (x's methods, not its array: a compiled trace answers them with eager mode's layout)
    if not x.is_contiguous():
        x, offset = x.contiguous(), 0 if storage_offset is None else int(storage_offset)
    reach = offset + sum((n - 1) * s for n, s in zip(size, stride)) + 1
    if 0 not in size and (offset < 0 or reach > x.numel()):
        raise RuntimeError(
            f"as_strided: size {list(size)}, stride {list(stride)} and storage offset "
            f"{offset if storage_offset is None else storage_offset} reach element "
            f"{reach - 1 if offset >= 0 else offset} of a tensor of {x.numel()} elements "
            f"(shape {list(input.shape)}); keep every position inside it")
    return apply(as_strided_p, x, size=size, stride=stride, offset=max(offset, 0))


def unfold(x, dimension, size, step):
    """Every window of `size` entries along `dimension`, `step` apart, as a view of x: that
    dimension becomes the number of windows and a new last dimension holds each window."""
    d = _dim(dimension, x.ndim, "unfold")
    n = x.shape[d] if x.ndim else 1
    if type(n) is not int:  # an unknown static size: the program refuses those below `size`
        from ..static.dims import assume_not
        assume_not(n, range(size))
    if step <= 0 or size < 0 or size > n:
        raise ShapeError(f"unfold: windows of size {size} with step {step} don't fit "
                           f"dimension {dimension} of size {n}; the size must be at most {n} "
                           "and the step positive")
    if not x.ndim:
        return reshape(x, (1,))[:size]
    strides = [int(np.prod(x.shape[k + 1:], dtype=np.int64)) for k in range(x.ndim)]
    count = (n - size) // step + 1
    shape = x.shape[:d] + (count,) + x.shape[d + 1:] + (size,)
    return apply(as_strided_p, x, size=tuple(shape),
                 stride=tuple(strides[:d] + [strides[d] * step] + strides[d + 1:] + [strides[d]]),
                 offset=0)
