"""Shape ops: reshape and friends, broadcasting and its transpose `sum_to`, axis permutations,
joining and splitting, tiling, flipping, rolling and padding.

Every primitive here is linear; its transpose is another op of this family
(reshape <-> reshape, broadcast_to <-> sum_to, concat <-> split, pad <-> slicing).
Views (reshape, permute, split) share their input's version counter, so an
in-place change through a view is caught by the graph's version checks.
"""
import math

import warnings

import numpy as np

from .._core import dtypes
from .._core.dispatch import PIECE, apply
from .._core.errors import (ArgumentError, DTypeError, IndexOutOfRange, ShapeError,
                            refuse_python_value)
from .._core.grad_mode import state as _grad_state
from .._core.primitive import REGISTRY, Primitive
from .._core.tensor import Tensor, tensor_method
from ._batch import aligned, along_axes, broadcasting, front
from ._family import as_tensor, linear, ndim_of, promote_all, tensor_input
from ..memory_format import channels_last, channels_last_3d, channels_last_rank, preserve_format

__all__ = ["reshape", "view_as", "reshape_as", "broadcast_to", "sum_to", "expand_reduced",
           "expand", "expand_as", "broadcast_tensors", "squeeze", "unsqueeze", "flatten",
           "unflatten", "permute", "transpose", "swapaxes", "swapdims", "moveaxis", "movedim",
           "concat", "cat", "concatenate", "stack", "split", "chunk", "unbind", "unstack",
           "narrow", "select", "tile", "repeat", "repeat_interleave", "flip", "roll", "pad",
           "clone", "contiguous", "assign", "meshgrid", "diff", "t", "flipud", "fliplr", "rot90",
           "ravel", "gradient"]


def _dim(d, ndim, op, extra=0):
    """One axis, negative counting from the end, checked against `ndim + extra` dimensions."""
    n = ndim + extra
    if isinstance(d, (float, str)):
        raise TypeError(f"{op}: dim must be an int (a dimension's position), got "
                        f"{type(d).__name__} {d!r}")
    d = int(d)
    if not -max(n, 1) <= d < max(n, 1):
        raise IndexError(f"{op}: dimension {d} is out of range for a tensor of {ndim} "
                         f"dimensions (expected one in [{-max(n, 1)}, {max(n, 1) - 1}])")
    return d % max(n, 1)


def _sizes(args):
    """`f(x, 2, 3)` and `f(x, (2, 3))` alike, as a tuple of ints."""
    if len(args) == 1 and isinstance(args[0], (tuple, list, Tensor)):
        args = args[0].tolist() if isinstance(args[0], Tensor) else args[0]
    if any(isinstance(a, (float, str)) for a in args):
        raise TypeError(f"sizes must be ints, got {tuple(args)!r}; convert them with int()")
    return tuple(map(int, args))


def _dims(dims, ndim, op, extra=0):
    if isinstance(dims, (int, np.integer)):
        dims = (dims,)
    n = ndim + extra
    return tuple(d if type(d) is int and 0 <= d < n else _dim(d, ndim, op, extra) for d in dims)


# --- reshape ------------------------------------------------------------------------------
def _reshape_batch(bdims, x, *, shape):
    x = front(x, bdims[0])
    return apply(reshape_p, x, shape=x.shape[:1] + tuple(shape)), 0


reshape_p = linear("reshape", lambda x, *, shape: x.reshape(shape),
                   lambda out_bar, x, *, shape: reshape(out_bar, x.shape),
                   view=lambda base, value, *, shape: reshape(value, base.shape),
                   batch=_reshape_batch)


@tensor_method("reshape")
def reshape(x, *sizes, shape=None):
    """The same elements in a new shape (one entry may be -1), given as sizes or as torch's
    `shape=` keyword."""
    if shape is not None and sizes:
        raise TypeError(f"reshape() got the shape both positionally {sizes} and as "
                        f"shape={shape}; give it once")
    shape = _sizes(sizes if shape is None else (shape,))
    try:
        x_shape = x.shape
    except AttributeError:
        refuse_python_value(x, "reshape")
        raise
    try:
        target = _resolve(x_shape, shape)
    except ValueError as err:
        raise ShapeError(f"reshape: can't reshape a tensor of shape {list(x.shape)} "
                         f"({x.numel()} elements) to {list(shape)}") from err
    if target == x.shape:
        return x
    out = apply(reshape_p, x, shape=target)
    if not np.may_share_memory(out._data, x._data):
        out._version_counter = None  # NumPy had to copy: no longer a view
    return out


def _resolve(old, shape):
    size = math.prod(old)
    if -1 in shape:
        if shape.count(-1) > 1:
            raise ValueError("only one dimension can be -1")
        known = -math.prod(shape)
        if known <= 0 or size % known:
            raise ValueError("not divisible")
        shape = tuple(size // known if s == -1 else s for s in shape)
    if math.prod(shape) != size or min(shape, default=0) < 0:
        raise ValueError("size mismatch")
    return shape


@tensor_method("view")
def view(x, *shape):
    """`x` in a new shape without copying (as `reshape`, but refused where the new shape can't
    be laid over x's memory: a transposed or sliced tensor may need `reshape`, which copies);
    `view(dtype)` reinterprets x's bytes as another dtype of the same or a dividing size,
    scaling the last dimension (no gradient)."""
    if len(shape) == 1 and _is_dtype(shape[0]):
        return _view_as_dtype(x, dtypes.as_dtype(shape[0]))
    if getattr(x, "_view", None) is not None:
        try:
            target = _resolve(x.shape, _sizes(shape))
        except ValueError:
            target = None  # reshape says what doesn't fit
        if target is not None and not _fits_without_copy(x._data, target):
            raise ShapeError(
                f"view: shape {list(target)} can't be a view of this tensor of shape "
                f"{list(x.shape)}, whose memory is laid out for another order of its "
                "dimensions (it is a transpose or a slice); use reshape(...), which copies "
                "where it must, or .contiguous().view(...)")
    return reshape(x, *shape)


def _fits_without_copy(data, shape):
    try:
        np.reshape(data, shape, copy=False)
        return True
    except ValueError:
        return False


def _is_dtype(arg):
    if isinstance(arg, (dtypes.DType, np.dtype)) or arg is float or arg is int or arg is bool:
        return True
    if isinstance(arg, str):
        try:
            dtypes.as_dtype(arg)
            return True
        except TypeError:
            return False
    return isinstance(arg, type) and issubclass(arg, np.generic)


def _view_as_dtype(x, dtype):
    if x._data.dtype == dtype.np:
        return x
    try:
        data = x._data.view(dtype.np)
    except ValueError as err:
        raise ShapeError(f"view: can't reinterpret a {x.dtype} tensor of shape "
                         f"{list(x.shape)} as {dtype}: the last dimension must be contiguous "
                         f"and its size in bytes a multiple of {dtype.np.itemsize} ({err})"
                         ) from None
    return Tensor._make(data, version=x._counter())


@tensor_method("view_as")
def view_as(x, other):
    """`view(x, other.shape)`."""
    return view(x, other.shape)


@tensor_method("reshape_as")
def reshape_as(x, other):
    """`reshape(x, other.shape)`."""
    return reshape(x, other.shape)


@tensor_method("squeeze")
def squeeze(x, axis=None, *, dim=None):
    """Drop size-1 dimensions: all of them, or those among `axis` (others are left alone)."""
    if dim is not None:
        axis = dim
    ndim = ndim_of(x, "squeeze")
    axes = range(ndim) if axis is None else _dims(axis, ndim, "squeeze")
    shape = x.shape
    for i in axes:
        if i < len(shape) and type(shape[i]) is not int:  # an unknown static size
            from ..static.dims import assume_not
            assume_not(shape[i], {1})  # (not squeezed: the program refuses a size of 1)
    return reshape(x, tuple(s for i, s in enumerate(shape) if not (i in axes and s == 1)))


@tensor_method("unsqueeze")
def unsqueeze(x, axis=None, *, dim=None):
    """Insert size-1 dimensions at `axis` (an int, or a list counted in the result's dims)."""
    if dim is not None:
        axis = dim
    if axis is None:
        raise TypeError("unsqueeze: say where to insert the new dimension (dim=...)")
    if isinstance(axis, Tensor):
        axis = axis.tolist()
    n_new = 1 if isinstance(axis, (int, np.integer)) else len(axis)
    axes = _dims(axis, x.ndim, "unsqueeze", n_new)
    if len(set(axes)) != len(axes):
        raise ShapeError(f"unsqueeze: axis {axis} names the same dimension twice")
    rest = iter(x.shape)
    return reshape(x, tuple(1 if i in axes else next(rest) for i in range(x.ndim + n_new)))


@tensor_method("flatten")
def flatten(x, start_dim=0, end_dim=-1, *, start_axis=None, stop_axis=None):
    """Merge dimensions `start_dim` to `end_dim` (inclusive) into one."""
    if start_axis is not None:
        start_dim = start_axis
    if stop_axis is not None:
        end_dim = stop_axis
    ndim = ndim_of(x, "flatten")
    start, end = _dim(start_dim, ndim, "flatten"), _dim(end_dim, ndim, "flatten")
    if x.ndim == 0:
        return reshape(x, (1,))
    if start > end:
        raise ShapeError(f"flatten: start_dim ({start_dim}) comes after end_dim ({end_dim}) "
                         f"for a tensor of shape {list(x.shape)}")
    merged = int(np.prod(x.shape[start:end + 1]))
    return reshape(x, x.shape[:start] + (merged,) + x.shape[end + 1:])


@tensor_method("unflatten")
def unflatten(x, dim, sizes):
    """Split dimension `dim` into `sizes` (one entry may be -1)."""
    d = _dim(dim, x.ndim, "unflatten")
    sizes = _sizes((sizes,))
    try:
        sizes = _resolve((x.shape[d],), sizes)
    except ValueError:
        raise ShapeError(f"unflatten: dimension {dim} of size {x.shape[d]} can't be split into "
                         f"{list(sizes)}") from None
    return reshape(x, x.shape[:d] + sizes + x.shape[d + 1:])


# --- broadcasting -------------------------------------------------------------------------
def _broadcast_to_batch(bdims, x, *, shape):
    (x,) = aligned((x,), bdims)
    lead = len(shape) - (x.ndim - 1)
    x = apply(reshape_p, x, shape=x.shape[:1] + (1,) * lead + x.shape[1:])
    return apply(broadcast_to_p, x, shape=x.shape[:1] + tuple(shape)), 0


def _sum_to_batch(bdims, x, *, shape):
    x = front(x, bdims[0])
    lead = x.ndim - 1 - len(shape)
    if lead:
        x = apply(REGISTRY["sum"], x, axis=tuple(range(1, lead + 1)), keepdims=False)
    return apply(sum_to_p, x, shape=x.shape[:1] + tuple(shape)), 0


def _broadcast_array(x, shape):
    """`np.broadcast_to(x, shape)` (a read-only view, stride 0 where it broadcasts), made
    directly for a C-contiguous array that broadcasts: NumPy's builds an iterator in Python
    (3.4 us against 0.8 for a small array)."""
    lead = len(shape) - x.ndim
    if type(x) is not np.ndarray or lead < 0 or not x.flags.c_contiguous or x.size == 0 or any(
            n != t and n != 1 for n, t in zip(x.shape, shape[lead:])):
        return np.broadcast_to(x, shape)
    strides = (0,) * lead + tuple(0 if n != t else s
                                  for n, t, s in zip(x.shape, shape[lead:], x.strides))
    out = np.ndarray(shape, x.dtype, x, 0, strides)
    out.flags.writeable = False
    return out


broadcast_to_p = linear("broadcast_to", lambda x, *, shape: _broadcast_array(x, shape),
                        lambda out_bar, x, *, shape: sum_to(out_bar, x.shape), view=True,
                        batch=_broadcast_to_batch)
sum_to_p = linear("sum_to", lambda x, *, shape: _sum_to_array(x, shape),
                  lambda out_bar, x, *, shape: broadcast_to(out_bar, x.shape),
                  batch=_sum_to_batch)


@tensor_method("broadcast_to")
def broadcast_to(x, shape):
    """`x` broadcast to `shape` (NumPy rules)."""
    shape = tuple(int(s) for s in shape)
    if x.shape == shape:
        return x
    old = x.shape
    if len(old) > len(shape) or any(a != b and a != 1 for a, b in zip(old[::-1], shape[::-1])):
        raise ShapeError(f"broadcast_to: can't broadcast shape {list(x.shape)} to "
                         f"{list(shape)}: only size-1 and missing leading dimensions expand")
    return apply(broadcast_to_p, x, shape=shape)


def sum_to(x, shape):
    """Sum `x` down to `shape`: the transpose of broadcasting to x's shape."""
    shape = tuple(shape)
    if x.shape == shape:
        return x
    return apply(sum_to_p, x, shape=shape)


def _sum_to_array(x, shape):
    lead = x.ndim - len(shape)
    axes = tuple(range(lead)) + tuple(i + lead for i, s in enumerate(shape)
                                      if s == 1 and x.shape[i + lead] != 1)
    out = x.sum(axis=axes) if axes else x
    if type(out) is not np.ndarray:  # a NumPy scalar: the sum of every element
        return np.asarray(out).reshape(shape)
    # the sum's own array where it already has the shape (a bias gradient): it can become a
    # .grad without a copy
    return out if out.shape == shape else out.reshape(shape)


def expand_reduced(out_bar, ndim, axis, keepdims):
    """Re-insert the axes a reduction removed, so `out_bar` broadcasts against its input."""
    if keepdims or axis is None and out_bar.ndim in (0, ndim):
        return out_bar  # (a 0-d cotangent broadcasts against any shape as it is)
    if axis is None:
        return reshape(out_bar, (1,) * ndim)
    shape = list(out_bar.shape)
    for a in axis:
        shape.insert(a, 1)
    return reshape(out_bar, shape)


@tensor_method("expand")
def expand(x, *sizes, shape=None):
    """`x` broadcast to `sizes`; -1 keeps a dimension's size, new dimensions go in front."""
    sizes = _sizes(sizes if shape is None else (shape,))
    lead = len(sizes) - x.ndim
    if lead < 0:
        raise ShapeError(f"expand: {len(sizes)} sizes {list(sizes)} for a tensor of shape "
                         f"{list(x.shape)}; give at least one size per dimension")
    if any(s == -1 for s in sizes[:lead]):
        raise ShapeError(f"expand: -1 is not allowed for the new leading dimensions in "
                         f"{list(sizes)}")
    if any(s < -1 for s in sizes):
        raise ShapeError(f"expand: sizes {list(sizes)} must be non-negative, or -1 to keep a "
                         "dimension's size")
    return broadcast_to(x, sizes[:lead] + tuple(
        old if s == -1 else s for s, old in zip(sizes[lead:], x.shape)))


@tensor_method("expand_as")
def expand_as(x, other):
    return broadcast_to(x, other.shape)


def broadcast_tensors(*tensors):
    """The tensors broadcast against each other (NumPy rules), as a tuple."""
    if len(tensors) == 1 and isinstance(tensors[0], (list, tuple)):
        tensors = tensors[0]
    tensors = [tensor_input(t, "broadcast_tensors") for t in tensors]
    try:
        shape = np.broadcast_shapes(*(t.shape for t in tensors))
    except ValueError:
        raise ShapeError("broadcast_tensors: shapes " + ", ".join(
            str(list(t.shape)) for t in tensors) + " don't broadcast together") from None
    return tuple(broadcast_to(t, shape) for t in tensors)


# --- axis permutations --------------------------------------------------------------------
def _unpermute(value, perm):
    return apply(permute_p, value, perm=tuple(np.argsort(perm).tolist()))


permute_p = linear("permute", lambda x, *, perm: x.transpose(perm),
                   lambda out_bar, x, *, perm: _unpermute(out_bar, perm),
                   view=lambda base, value, *, perm: _unpermute(value, perm), batch=lambda bdims, x, *, perm: (apply(
                       permute_p, front(x, bdims[0]), perm=(0,) + tuple(p + 1 for p in perm)), 0))


@tensor_method("permute")
def permute(x, *dims):
    """The dimensions of `x` reordered: output dimension i is input dimension dims[i]."""
    ndim = ndim_of(x, "permute")
    if not dims:
        raise TypeError("permute() missing its argument dims: give the new order of the "
                        f"{ndim} dimensions (for a 0-d tensor: x.permute(()))")
    dims = _sizes(dims)
    perm = _dims(dims, ndim, "permute")
    if len(perm) != x.ndim or sorted(perm) != list(range(x.ndim)):
        raise ShapeError(f"permute: {list(dims)} is not a permutation of the {x.ndim} "
                         f"dimensions of a tensor of shape {list(x.shape)}")
    if perm == tuple(range(x.ndim)):
        return x
    return apply(permute_p, x, perm=perm)


@tensor_method("transpose")
def transpose(x, dim0=None, dim1=None, *, perm=None):
    """Swap two dimensions (`transpose(x, 0, 1)`), or permute them all (`transpose(x, perm)`,
    PaddlePaddle's form); with neither, reverse the dimensions."""
    if isinstance(dim0, (list, tuple)):
        perm = dim0
    if perm is not None:
        return permute(x, perm)
    if dim0 is None and dim1 is None:
        ndim = ndim_of(x, "transpose")
        return permute(x, tuple(range(ndim))[::-1])
    if dim0 is None or dim1 is None:
        raise TypeError("transpose: give two dimensions to swap, or a full permutation list")
    return swapaxes(x, dim0, dim1)


@tensor_method("swapaxes", "swapdims")
def swapaxes(x, axis0, axis1):
    a, b = _dim(axis0, x.ndim, "transpose"), _dim(axis1, x.ndim, "transpose")
    if a == b:
        return x
    perm = list(range(x.ndim))
    perm[a], perm[b] = b, a
    return permute(x, perm)


swapdims = swapaxes


@tensor_method("moveaxis", "movedim")
def moveaxis(x, source, destination):
    """Move dimensions `source` to positions `destination`, keeping the others' order."""
    src, dst = _dims(source, x.ndim, "moveaxis"), _dims(destination, x.ndim, "moveaxis")
    if len(src) != len(dst) or len(set(src)) != len(src) or len(set(dst)) != len(dst):
        raise ShapeError(f"moveaxis: source {source} and destination {destination} must be "
                         "the same number of distinct dimensions")
    rest = iter(d for d in range(x.ndim) if d not in src)
    placed = dict(zip(dst, src))
    return permute(x, [placed[i] if i in placed else next(rest) for i in range(x.ndim)])


movedim = moveaxis

Tensor.T = property(lambda self: permute(self, tuple(range(self.ndim - 1, -1, -1))),
                    doc="The tensor with its dimensions reversed (the transpose of a matrix).")


def _matrix_transpose(self):
    if self.ndim == 0:
        warnings.warn("Tensor.mT is deprecated on 0-D tensors (as in PyTorch); it is the "
                      "identity there", UserWarning, stacklevel=2)
        return self[...]
    if self.ndim < 2:
        raise ShapeError(f".mT needs a tensor of at least 2 dimensions, this one has shape "
                         f"{list(self.shape)}")
    return swapaxes(self, -2, -1)


Tensor.mT = property(_matrix_transpose, doc="The last two dimensions swapped (batched matrices).")


# --- joining and splitting ----------------------------------------------------------------
def _concat_vjp(out_bar, out, *xs, axis):
    return _split(out_bar, tuple(x.shape[axis] for x in xs), axis)


def _concat_jvp(tangents, out, *xs, axis):
    from ..creation import zeros_like
    return apply(concat_p, *(zeros_like(x) if t is None else t for t, x in zip(tangents, xs)),
                 axis=axis)


def _concat_batch(bdims, *xs, axis):
    size = next(x.shape[b] for x, b in zip(xs, bdims) if b is not None)
    xs = [front(x, b) if b is not None else apply(broadcast_to_p, x, shape=(size,) + x.shape)
          for x, b in zip(xs, bdims)]
    return apply(concat_p, *xs, axis=axis + 1), 0


concat_p = Primitive("concat", lambda *xs, axis: np.concatenate(xs, axis=axis),
                     vjp=_concat_vjp, jvp=_concat_jvp, saves_inputs=False, linear="all", batch=_concat_batch)

# One node for all the pieces, so the backward is a single concat, not a sum of scatters.
split_p = Primitive(
    "split", lambda x, *, sizes, axis: tuple(np.split(x, np.cumsum(sizes[:-1]), axis=axis)),
    vjp=(lambda out_bar, out, x, *, sizes, axis: apply(concat_p, *out_bar, axis=axis),),
    jvp=lambda tangents, out, x, *, sizes, axis: _split(tangents[0], sizes, axis),
    n_outputs=None, saves_inputs=False,
    linear="all", batch=lambda bdims, x, *, sizes, axis: (
        apply(split_p, front(x, bdims[0]), sizes=sizes, axis=axis + 1), (0,) * len(sizes)))


def _split(x, sizes, axis):
    if len(sizes) == 1:
        return (x,)
    return apply(split_p, x, sizes=sizes, axis=axis)


def concat(tensors, axis=0, *, dim=None, name=None):
    """Join tensors along an existing dimension `axis` (dtypes promote as in arithmetic)."""
    if dim is not None:
        axis = dim
    if isinstance(tensors, Tensor):
        raise TypeError(f"concat: expected a list or tuple of tensors, got one tensor of shape "
                        f"{list(tensors.shape)}; wrap it in a list")
    if not len(tensors):
        raise ArgumentError("concat: expected a non-empty list of tensors")
    first = tensors[0]
    if not (isinstance(first, Tensor) and all(
            isinstance(t, Tensor) and t._data.dtype == first._data.dtype for t in tensors)):
        tensors = promote_all(*tensors) if len(tensors) > 1 else [as_tensor(first)]
        first = tensors[0]
    if any(t.ndim > 1 for t in tensors) and any(t.shape == (0,) for t in tensors):
        # PyTorch skips 1-d empty tensors, the legacy stand-in for "nothing yet"
        tensors = [t for t in tensors if t.shape != (0,)]
        first = tensors[0]
    if first.ndim == 0:
        raise ShapeError("concat: 0-d tensors can't be concatenated; use stack")
    axis = _dim(axis, first.ndim, "concat")
    for i, t in enumerate(tensors):
        if t.ndim != first.ndim or t.shape[:axis] != first.shape[:axis] or (
                t.shape[axis + 1:] != first.shape[axis + 1:]):
            raise ShapeError(f"concat: tensor {i} has shape {list(t.shape)}, which doesn't "
                             f"match tensor 0's {list(first.shape)} outside dimension {axis}")
    return apply(concat_p, *tensors, axis=axis)


cat = concatenate = concat


def stack(tensors, axis=0, *, dim=None, name=None):
    """Join same-shaped tensors along a new dimension `axis`."""
    if dim is not None:
        axis = dim
    if isinstance(tensors, Tensor) or not len(tensors):
        raise ArgumentError("stack: expected a non-empty list of tensors")
    tensors = [as_tensor(t) for t in tensors]
    shape = tensors[0].shape
    for i, t in enumerate(tensors):
        if t.shape != shape:
            raise ShapeError(f"stack: tensor {i} has shape {list(t.shape)} but tensor 0 has "
                             f"{list(shape)}; stack needs equal shapes")
    axis = _dim(axis, len(shape), "stack", 1)
    return concat([unsqueeze(t, axis) for t in tensors], axis)


@tensor_method("split")
def split(x, split_size_or_sections=None, dim=0, *, axis=None, num_or_sections=None,
          split_size=None):
    """Cut `x` along `dim` into pieces, returned as a tuple.

    PyTorch's form: an int is the size of every piece (the last may be smaller), a
    list gives each piece's size. PaddlePaddle's `num_or_sections=` keyword: an
    int is the number of equal pieces, a list gives sizes, one of which may be -1.
    """
    if axis is not None:
        dim = axis
    if split_size is not None:  # the name of Tensor.split's argument
        split_size_or_sections = split_size
    ndim = ndim_of(x, "split")
    if ndim == 0:
        raise ShapeError("split: can't split a 0-d tensor")
    dim = _dim(dim, x.ndim, "split")
    n = x.shape[dim]
    if num_or_sections is not None:
        if isinstance(num_or_sections, (int, np.integer)):
            if num_or_sections <= 0 or n % num_or_sections:
                raise ShapeError(f"split: dimension {dim} of size {n} can't be cut into "
                                 f"{num_or_sections} equal pieces")
            sizes = (n // num_or_sections,) * int(num_or_sections)
        else:
            sizes = _sizes((num_or_sections,))
            if sizes.count(-1) == 1:
                sizes = tuple(n - sum(sizes) - 1 if s == -1 else s for s in sizes)
    elif isinstance(split_size_or_sections, (int, np.integer)):
        _count_known(n, dim, "split")
        size = int(split_size_or_sections)
        if size <= 0 and n:
            raise ShapeError(f"split: the piece size must be positive, got {size}")
        sizes = (size,) * (n // size) + ((n % size,) if n % size else ()) if n else (0,)
    elif split_size_or_sections is None:
        raise TypeError("split: give the piece size or the list of sizes")
    else:
        sizes = _sizes((split_size_or_sections,))
    if sum(sizes) != n or any(s < 0 for s in sizes):
        raise ShapeError(f"split: sizes {list(sizes)} don't add up to the size {n} of "
                         f"dimension {dim} (shape {list(x.shape)})")
    pieces = _split(x, sizes, dim)
    if pieces[0] is x:  # (one piece: still a view of x, as PyTorch's)
        pieces = (x[...],)
    for piece in pieces:
        piece._version_counter = x._counter()
    if x._requires_grad:
        # views of one memory that each hold part of one node's history: an in-place write
        # through one can't rewrite it (PyTorch refuses it, `inplace.write_through`)
        creation = "multi_output" if _grad_state.enabled else "no_grad"
        for piece in pieces:
            piece._creation = creation
            if creation == "no_grad":
                piece._requires_grad = True
            else:
                piece._view, piece._view_version = (x, PIECE, None), piece._version_counter[0]
    return pieces


@tensor_method("chunk")
def chunk(x, chunks, dim=0, *, axis=None):
    """`chunks` pieces of (up to) equal size along `dim`; fewer when the size runs out (but
    `chunks` of a size of 0)."""
    if axis is not None:
        dim = axis
    if int(chunks) <= 0:
        raise ShapeError(f"chunk: the number of chunks must be positive, got {chunks}")
    if x.ndim == 0:
        raise ShapeError("chunk: expects a tensor of at least 1 dimension, got a 0-d tensor")
    n = x.shape[_dim(dim, x.ndim, "chunk")]
    _count_known(n, dim, "chunk")
    if n == 0:  # (as PyTorch: `chunks` empty pieces)
        return split(x, [0] * int(chunks), dim)
    return split(x, -(-n // int(chunks)), dim)


@tensor_method("unbind", "unstack")
def unbind(x, dim=0, *, axis=None, num=None):
    """The slices of `x` along `dim`, as a tuple of tensors with that dimension removed."""
    if axis is not None:
        dim = axis
    ndim = ndim_of(x, "unbind")
    dim = _dim(dim, ndim, "unbind")
    _count_known(x.shape[dim], dim, "unbind")
    if x.shape[dim] == 0:
        return ()
    shape = x.shape[:dim] + x.shape[dim + 1:]
    return tuple(reshape(piece, shape) for piece in split(x, 1, dim))


unstack = unbind


def _count_known(n, dim, op):
    """Refuse to cut a dimension whose size a static program learns only when it runs into
    pieces that depend on it (their number is the count of outputs, fixed when staged)."""
    if type(n) is not int and not isinstance(n, np.integer):
        raise ShapeError(f"{op}: dimension {dim} has a size unknown until the static program "
                         f"runs ({n}: None in static.data, or the count of entries a mask "
                         f"such as x > 0 selects), and the pieces would depend on "
                         f"it; give static.data that size, or cut a dimension of "
                         f"known size")


@tensor_method("narrow")
def narrow(x, dim, start, length):
    """`length` entries of dimension `dim` from `start` (a view)."""
    if x.ndim == 0:
        raise ShapeError("narrow: can't be applied to a 0-d tensor")
    dim = _dim(dim, x.ndim, "narrow")
    n = x.shape[dim]
    if isinstance(start, Tensor) and (start.ndim or start._data.dtype.kind not in "iu"):
        raise DTypeError(f"narrow: start must be an int or a 0-d integer tensor, got a "
                         f"{start.dtype} tensor of shape {list(start.shape)}")
    # (an int subclass stays: a size computed from a static program's unknown one)
    start, length = (v if isinstance(v, int) else int(v) for v in (start, length))
    start = start + (n if start < 0 else 0)
    if not 0 <= start <= n or length < 0 or start + length > n:
        raise IndexOutOfRange(f"narrow: start {start} and length {length} fall outside dimension "
                         f"{dim} of size {n}")
    return x[(slice(None),) * dim + (slice(start, start + length),)]


@tensor_method("select")
def select(x, dim, index):
    """Entry `index` of dimension `dim`, that dimension removed (a view)."""
    dim = _dim(dim, x.ndim, "select")
    return x[(slice(None),) * dim + (int(index),)]


# --- tiling -------------------------------------------------------------------------------
@tensor_method("tile")
def tile(x, *reps, repeat_times=None):
    """`x` repeated `reps[i]` times along each dimension (NumPy's tile; short reps count
    from the last dimension, long reps add leading dimensions)."""
    reps = _sizes((repeat_times,)) if repeat_times is not None else _sizes(reps)
    if any(r < 0 for r in reps):
        raise ShapeError(f"tile: repetitions must be non-negative, got {list(reps)}")
    ndim = ndim_of(x, "tile")
    n = max(len(reps), ndim)
    reps = (1,) * (n - len(reps)) + reps
    shape = (1,) * (n - x.ndim) + x.shape
    if all(r == 1 for r in reps):
        return clone(reshape(x, shape))
    # tiling is broadcasting a (1, s) pair of axes to (r, s), then merging the pair; the
    # merge may still be a view with 0 strides, so the result is made to own its memory
    paired = tuple(v for s in shape for v in (1, s))
    wide = tuple(v for r, s in zip(reps, shape) for v in (r, s))
    tiled = broadcast_to(reshape(x, paired), wide)
    return contiguous(reshape(tiled, tuple(r * s for r, s in zip(reps, shape))))


@tensor_method("repeat")
def repeat(x, *sizes):
    """PyTorch's Tensor.repeat: tile with one repetition count per dimension (or more)."""
    sizes = _sizes(sizes)
    if len(sizes) < x.ndim:
        raise ShapeError(f"repeat: {len(sizes)} repetition counts for a tensor of shape "
                         f"{list(x.shape)}; give at least one per dimension")
    return tile(x, sizes)


@tensor_method("repeat_interleave")
def repeat_interleave(x, repeats=None, dim=None, *, axis=None, output_size=None):
    """Each entry of `x` along `dim` repeated `repeats` times (an int, or one count per
    entry); with no `dim`, of the flattened tensor. With no `repeats`, `x` holds the counts
    and the result repeats their positions: repeat_interleave([2, 0, 3]) is [0, 0, 2, 2, 2]."""
    from .indexing import index_select
    if repeats is None:
        counts = x.numpy() if isinstance(x, Tensor) else np.asarray(x)
        if counts.ndim != 1 or counts.dtype.kind not in "iu" or np.any(counts < 0):
            refuse_python_value(x, "repeat_interleave")
            raise ShapeError(f"repeat_interleave: without repeats, the input holds the counts "
                             f"and must be a 1-d tensor of non-negative integers, got shape "
                             f"{list(counts.shape)} {counts.dtype}")
        return Tensor(np.repeat(np.arange(counts.size, dtype=np.int64), counts))
    if axis is not None:
        dim = axis
    if dim is None:
        x, dim = flatten(x), 0
    dim = _dim(dim, x.ndim, "repeat_interleave")
    counts = np.asarray(repeats.numpy() if isinstance(repeats, Tensor) else repeats)
    if counts.ndim == 0 or counts.size == 1 and x.shape[dim] != 1:
        r = int(counts.reshape(()))
        if r < 0:
            raise ShapeError(f"repeat_interleave: repeats must be non-negative, got {r}")
        wide = x.shape[:dim + 1] + (r,) + x.shape[dim + 1:]
        out = broadcast_to(unsqueeze(x, dim + 1), wide)
        return reshape(out, x.shape[:dim] + (x.shape[dim] * r,) + x.shape[dim + 1:])
    if counts.shape != (x.shape[dim],) or counts.dtype.kind not in "iu" or np.any(counts < 0):
        raise ShapeError(f"repeat_interleave: repeats must be one non-negative integer per "
                         f"entry of dimension {dim} (size {x.shape[dim]}), got shape "
                         f"{list(counts.shape)} {counts.dtype}")
    return index_select(x, dim, np.repeat(np.arange(x.shape[dim]), counts))


# --- reordering ---------------------------------------------------------------------------
flip_p = linear("flip", lambda x, *, axes: np.flip(x, axes).copy(),
                lambda out_bar, x, *, axes: apply(flip_p, out_bar, axes=axes),
                batch=along_axes("flip", "axes"))


@tensor_method("flip")
def flip(x, dims=None, *more_dims, axis=None):
    """`x` with the order of entries reversed along `dims` (a copy); the dims may also come
    one by one, as in `x.flip(0, 2)`."""
    if more_dims:
        dims = (dims, *more_dims)
    if axis is not None:
        dims = axis
    if dims is None:
        raise TypeError("flip: say which dimensions to reverse (dims=...)")
    axes = _dims(dims, x.ndim, "flip")
    if len(set(axes)) != len(axes):
        raise ShapeError(f"flip: dims {dims} names the same dimension twice")
    if x.ndim == 0:
        return x.clone()
    return apply(flip_p, x, axes=axes)


@tensor_method("flipud")
def flipud(x):
    """`x` upside down: its first dimension reversed."""
    refuse_python_value(x, "flipud")
    if x.ndim < 1:
        raise ShapeError("flipud: expects a tensor of at least 1 dimension, got a 0-d tensor")
    return flip(x, 0)


@tensor_method("fliplr")
def fliplr(x):
    """`x` mirrored left to right: its second dimension reversed."""
    refuse_python_value(x, "fliplr")
    if x.ndim < 2:
        raise ShapeError(f"fliplr: expects a tensor of at least 2 dimensions, got shape "
                         f"{list(x.shape)}")
    return flip(x, 1)


@tensor_method("rot90")
def rot90(x, k=1, dims=(0, 1)):
    """`x` rotated by 90 degrees k times in the plane of `dims`, from the first towards the
    second."""
    refuse_python_value(x, "rot90")
    dims = tuple(dims)
    if len(dims) != 2:
        raise ShapeError(f"rot90: dims must name 2 dimensions, got {list(dims)}")
    if x.ndim < 2:
        raise ShapeError(f"rot90: expected a tensor of at least 2 dimensions, got shape "
                         f"{list(x.shape)}")
    a, b = _dims(dims, x.ndim, "rot90")
    if a == b:
        raise ShapeError(f"rot90: dims must differ, got {list(dims)}")
    k = int(k) % 4
    if k == 1:
        return swapaxes(flip(x, b), a, b)
    if k == 2:
        return flip(x, (a, b))
    if k == 3:
        return swapaxes(flip(x, a), a, b)
    return clone(x)


@tensor_method("ravel")
def ravel(x):
    """The elements of `x` in one dimension."""
    return reshape(x, -1)


@tensor_method("unfold")
def unfold(x, dimension, size, step):
    """Every window of `size` entries along `dimension`, `step` apart, as a view of x (see
    `strided.unfold`)."""
    from .strided import unfold
    return unfold(x, dimension, size, step)


roll_p = linear("roll", lambda x, *, shifts, axes: np.roll(x, shifts, axes),
                lambda out_bar, x, *, shifts, axes: apply(
                    roll_p, out_bar, shifts=tuple(-s for s in shifts), axes=axes),
                batch=along_axes("roll", "axes"))


@tensor_method("roll")
def roll(x, shifts, dims=None, *, axis=None):
    """Entries shifted cyclically by `shifts` along `dims` (of the flattened tensor if None)."""
    if axis is not None:
        dims = axis
    shifts = (int(shifts),) if isinstance(shifts, (int, np.integer)) else _sizes((shifts,))
    if dims is None:
        if len(shifts) != 1:
            raise ShapeError(f"roll: {len(shifts)} shifts but no dims; give one dim per shift")
        return reshape(apply(roll_p, reshape(x, (-1,)), shifts=shifts, axes=(0,)), x.shape)
    axes = _dims(dims, x.ndim, "roll")
    if len(axes) != len(shifts):
        raise ShapeError(f"roll: {len(shifts)} shifts for {len(axes)} dims; give one each")
    return apply(roll_p, x, shifts=shifts, axes=axes)


# --- padding ------------------------------------------------------------------------------
# Affine in x (the fill value is a constant): the JVP pads the tangent with zeros and the
# VJP cuts the padding off again.
pad_p = Primitive(
    "pad", lambda x, *, widths, value: np.pad(x, widths, constant_values=value),
    vjp=(lambda out_bar, out, x, *, widths, value: out_bar[tuple(
        slice(before, before + n) for (before, _), n in zip(widths, x.shape))],),
    jvp=lambda tangents, out, x, *, widths, value: apply(pad_p, tangents[0], widths=widths,
                                                         value=0.0), saves_inputs=False,
    linear=(0,), batch=lambda bdims, x, *, widths, value: (
        apply(pad_p, front(x, bdims[0]), widths=((0, 0),) + tuple(widths), value=value), 0))


def pad(x, pad, mode="constant", value=0.0, *, name=None):
    """Pad `x` the way torch.nn.functional.pad does: `pad` lists (before, after) pairs
    starting from the LAST dimension; negative widths crop. `mode` is 'constant' (filled
    with `value`), 'reflect', 'replicate' or 'circular'."""
    pad = _sizes((pad,))
    if len(pad) % 2 or len(pad) // 2 > x.ndim:
        raise ShapeError(f"pad: the pad list {list(pad)} must hold (before, after) pairs, at "
                         f"most one per dimension of the tensor of shape {list(x.shape)}")
    widths = [(0, 0)] * x.ndim
    for i in range(len(pad) // 2):
        widths[x.ndim - 1 - i] = (pad[2 * i], pad[2 * i + 1])
    if mode not in ("constant", "reflect", "replicate", "circular"):
        raise NotImplementedError(f"pad: unknown mode {mode!r}; use 'constant', 'reflect', "
                         "'replicate' or 'circular'")
    if mode != "constant" and not (len(pad) <= 6 and x.ndim - 2 <= len(pad) // 2 < x.ndim):
        raise NotImplementedError(
            f"pad: {mode} padding pads the last 1, 2 or 3 dimensions of a batch ([C, ...] or "
            f"[N, C, ...]): a pad list of {len(pad)} entries needs a "
            f"{len(pad) // 2 + 1}-d or {len(pad) // 2 + 2}-d input, got shape {list(x.shape)}")
    batched = x.ndim == len(pad) // 2 + 2
    for d, ((before, after), n) in enumerate(zip(widths, x.shape)):
        least = mode in ("reflect", "replicate") and not (batched and d == 0)  # an empty batch
        if n + before + after < least:
            raise ShapeError(f"pad: padding of ({before}, {after}) leaves dimension {d} of size "
                             f"{n} with {n + before + after} entries")
    if mode in ("constant", "circular") and any(b < 0 or a < 0 for b, a in widths):
        # these crop first; reflect and replicate count negative widths from the edges of
        # the uncropped x, as PyTorch
        x = x[tuple(slice(max(-b, 0), n - max(-a, 0)) for (b, a), n in zip(widths, x.shape))]
        widths = [(max(b, 0), max(a, 0)) for b, a in widths]
    if all(b == 0 and a == 0 for b, a in widths):
        return x
    if mode == "constant":
        return apply(pad_p, x, widths=tuple(widths), value=value)
    from .indexing import index_select
    for d, (before, after) in enumerate(widths):
        if not before and not after:
            continue
        n = x.shape[d]
        limit = n - 1 if mode == "reflect" else n
        if mode != "replicate" and max(before, after) > limit or n == 0:
            raise ShapeError(f"pad: {mode} padding of ({before}, {after}) is too wide for "
                             f"dimension {d} of size {n} (at most {limit})")
        i = np.arange(-before, n + after)
        if mode == "reflect":
            i = np.abs(i)
            i = np.where(i > n - 1, 2 * (n - 1) - i, i)
        elif mode == "replicate":
            i = np.clip(i, 0, n - 1)
        else:
            i = i % n
        x = index_select(x, d, i)
    return x


# --- copies ------------------------------------------------------------------------------
clone_p = linear("clone", np.copy, lambda out_bar, x: out_bar, batch=broadcasting("clone"))


@tensor_method("clone")
def clone(x, *, memory_format=None):
    """A copy of `x` that stays in the graph (gradients flow back to `x`); it keeps x's layout
    unless `memory_format` names one."""
    if not isinstance(x, Tensor):
        refuse_python_value(x, "clone")
    if channels_last_rank(memory_format, x.ndim, "clone"):
        return apply(contiguous_p, x, channels_last=True)
    out = apply(clone_p, x)
    if memory_format is None or memory_format is preserve_format:
        return out
    return contiguous(out)


def _laid_out(x, *, channels_last=False):
    """`x`'s values laid out row-major, or copied with the channels (dimension 1) innermost."""
    if not channels_last:
        return np.ascontiguousarray(x)
    order = (0, *range(2, x.ndim), 1)
    return np.array(x.transpose(order), order="C").transpose(np.argsort(order))


def _channels_last_strides(shape, itemsize):
    """The byte strides of a channels-last layout of `shape` (PyTorch's, for every size)."""
    strides, step = [0] * len(shape), itemsize
    for d in (1, *range(len(shape) - 1, 1, -1), 0):
        strides[d] = step
        step *= shape[d]
    return tuple(strides)


def to_memory_format(x, memory_format):
    """`x` laid out as `memory_format` asks (Tensor.to's): `x` itself when its strides already
    are the format's, else a copy."""
    if channels_last_rank(memory_format, x.ndim, "to"):
        if x._data.strides == _channels_last_strides(x.shape, x._data.itemsize):
            return x
        return apply(contiguous_p, x, channels_last=True)
    return contiguous(x)


contiguous_p = linear("contiguous", _laid_out, lambda out_bar, x, **params: out_bar,
                      batch=broadcasting("contiguous"))


@tensor_method("contiguous")
def contiguous(x, memory_format=None):
    """`x` itself if its memory is laid out in row-major order (or as `memory_format` says:
    channels_last), else a copy that is (so that `view` can reshape it)."""
    if is_contiguous(x, memory_format):
        return x
    if channels_last_rank(memory_format, x.ndim, "contiguous"):
        return apply(contiguous_p, x, channels_last=True)
    return apply(contiguous_p, x)


@tensor_method("is_contiguous")
def is_contiguous(x, memory_format=None):
    """Whether x's memory is laid out in row-major order (what `view` needs), or in the
    channels-last order of `memory_format` (dimensions of size 1 don't count, as PyTorch's)."""
    if memory_format not in (channels_last, channels_last_3d):
        return bool(x._data.flags.c_contiguous)
    if x.ndim != (4 if memory_format is channels_last else 5):
        return False
    expected = 1
    for d in (1, *range(x.ndim - 1, 1, -1), 0):
        if x.shape[d] != 1:
            if x._data.strides[d] != expected * x._data.itemsize:
                return False
            expected *= x.shape[d]
    return True


def assign(x, output=None):
    """PaddlePaddle's assign: a copy of `x` (a tensor, array or list), written into `output`
    in place when given."""
    result = clone(x) if isinstance(x, Tensor) else Tensor(
        np.array(x, dtype=None if output is None else output._data.dtype))
    if output is None:
        return result
    return output._rebase_inplace(result)


# --- composites: grids, differences, matrix transpose ---------------------------------------
def meshgrid(*tensors, indexing="ij"):
    """Coordinate grids from 1-D tensors, as a tuple: with 'ij' output k varies along
    dimension k; with 'xy' (Cartesian) the first two dimensions are swapped."""
    if len(tensors) == 1 and isinstance(tensors[0], (list, tuple)):
        tensors = tensors[0]
    if indexing not in ("ij", "xy"):
        raise ArgumentError(f"meshgrid: indexing must be 'ij' or 'xy', got {indexing!r}")
    tensors = [tensor_input(x, "meshgrid") for x in tensors]
    for i, x in enumerate(tensors):
        if x.ndim > 1:
            raise ShapeError(f"meshgrid: expects 0-D or 1-D tensors, tensor {i} has shape "
                             f"{list(x.shape)}; flatten it first")
    if len({x._data.dtype for x in tensors}) > 1:
        tensors = promote_all(*tensors)
    axes = list(range(len(tensors)))
    if indexing == "xy" and len(axes) >= 2:
        axes[0], axes[1] = 1, 0
    shape = [0] * len(tensors)
    for x, axis in zip(tensors, axes):
        shape[axis] = x._data.size
    return tuple(broadcast_to(reshape(x, tuple(-1 if k == axis else 1 for k in range(len(shape)))),
                              tuple(shape))
                 for x, axis in zip(tensors, axes))


@tensor_method("diff")
def diff(x, n=1, dim=-1, prepend=None, append=None, *, axis=None):
    """The n-th forward difference along `dim`: out[i] = x[i+1] - x[i], applied n times
    (`prepend`/`append` are joined to `x` along `dim` first; bool tensors use !=)."""
    refuse_python_value(x, "diff")
    dim = dim if axis is None else axis
    if x.ndim == 0:
        raise ShapeError("diff: expects a tensor of at least 1 dimension, got a 0-D tensor")
    if n < 0:
        raise ArgumentError(f"diff: n must be non-negative, got {n}")
    dim = _dim(dim, x.ndim, "diff")
    if n == 0:  # nothing is joined either, as PyTorch
        return x
    parts = [as_tensor(p) for p in (prepend, x, append) if p is not None]
    if len(parts) > 1:
        x = concat(parts, dim)
    for _ in range(n):
        m = max(x.shape[dim] - 1, 0)
        hi, lo = narrow(x, dim, x.shape[dim] - m, m), narrow(x, dim, 0, m)
        x = hi != lo if x._data.dtype == np.bool_ else hi - lo
    return x


def gradient(x, *, spacing=1, dim=None, edge_order=1):
    """PyTorch's torch.gradient: estimates of the derivative of the samples `x` along each of
    `dim` (an int, a list, or None for all), by central differences inside and one-sided
    differences of order `edge_order` (1 or 2) at the ends. `spacing`: one step for every
    dimension, one per dimension, or the coordinates of the samples (1-d, one per dimension).
    Returns a tuple with one tensor per dimension."""
    from ._family import float_result
    if edge_order not in (1, 2):
        raise ArgumentError(f"gradient: edge_order must be 1 or 2, got {edge_order}")
    x = float_result(tensor_input(x, "gradient"))
    dims = range(x.ndim) if dim is None else _dims(dim, x.ndim, "gradient")
    dims = tuple(dims)
    if len(set(dims)) != len(dims):
        raise ArgumentError(f"gradient: a dimension appears twice in dim={dim}")
    spacing = 1 if spacing is None else spacing
    steps = list(spacing) if isinstance(spacing, (list, tuple)) else [spacing] * len(dims)
    if len(steps) != len(dims):
        raise ArgumentError(f"gradient: {len(steps)} spacings for {len(dims)} dimensions; give "
                         "one, or one per dimension")
    return tuple(_gradient_along(x, d, step, edge_order) for d, step in zip(dims, steps))


def _gradient_along(x, d, step, edge_order):
    n = x.shape[d]
    if n < edge_order + 1:
        raise ShapeError(f"gradient: dimension {d} has {n} samples; edge_order={edge_order} "
                         f"needs at least {edge_order + 1}")
    step = step.numpy() if isinstance(step, Tensor) else np.asarray(step, np.float64)
    coords = np.arange(n) * step if step.ndim == 0 else step.astype(np.float64)
    if coords.shape != (n,):
        raise ShapeError(f"gradient: {coords.size} coordinates for dimension {d} of size {n}")
    dx = np.diff(coords)

    def term(coefficient, start, length):
        shape = (length,) + (1,) * (x.ndim - 1 - d)
        return narrow(x, d, start, length) * Tensor(
            np.broadcast_to(coefficient, (length,)).reshape(shape).astype(x._data.dtype))
    # interior: the second-order central difference of unevenly spaced samples
    h1, h2 = dx[:-1], dx[1:]
    inner = (term(-h2 / (h1 * (h1 + h2)), 0, n - 2) + term((h2 - h1) / (h1 * h2), 1, n - 2)
             + term(h1 / (h2 * (h1 + h2)), 2, n - 2))
    if edge_order == 1:
        first = term(-1 / dx[0], 0, 1) + term(1 / dx[0], 1, 1)
        last = term(-1 / dx[-1], n - 2, 1) + term(1 / dx[-1], n - 1, 1)
    else:
        a, b = dx[0], dx[1]
        first = (term(-(2 * a + b) / (a * (a + b)), 0, 1) + term((a + b) / (a * b), 1, 1)
                 + term(-a / (b * (a + b)), 2, 1))
        a, b = dx[-2], dx[-1]
        last = (term(b / (a * (a + b)), n - 3, 1) + term(-(a + b) / (a * b), n - 2, 1)
                + term((2 * b + a) / (b * (a + b)), n - 1, 1))
    return concat([first, inner, last], d)


@tensor_method("t")
def t(x):
    """The transpose of a matrix (a tensor of 0 or 1 dimensions is returned as it is)."""
    ndim = ndim_of(x, "t")
    if ndim > 2:
        raise ShapeError(f"t: expects a tensor of at most 2 dimensions, got shape "
                         f"{list(x.shape)}; use transpose(x, dim0, dim1) or .mT for batches")
    return transpose(x, 0, 1) if x.ndim == 2 else x
