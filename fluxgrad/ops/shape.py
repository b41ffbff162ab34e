"""Shape ops: reshape, broadcast and its transpose `sum_to`, transpose, squeeze and friends."""
import numpy as np

from .._core.dispatch import apply
from .._core.tensor import tensor_method
from ._family import linear

__all__ = ["reshape", "broadcast_to", "sum_to", "expand_reduced"]


reshape_p = linear("reshape", lambda x, *, shape: np.reshape(x, shape),
                   lambda out_bar, x, *, shape: reshape(out_bar, x.shape), view=True)


@tensor_method("reshape", "view")
def reshape(x, *shape):
    """The same elements in a new shape (one entry may be -1)."""
    if len(shape) == 1 and isinstance(shape[0], (tuple, list)):
        shape = shape[0]
    shape = tuple(int(s) for s in shape)
    try:
        target = _resolve(x.shape, shape)
    except ValueError as err:
        raise ValueError(f"reshape: can't reshape a tensor of shape {list(x.shape)} "
                         f"({x.size} elements) to {list(shape)}") from err
    if target == x.shape:
        return x
    return apply(reshape_p, x, shape=target)


def _resolve(old, shape):
    size = int(np.prod(old))
    if shape.count(-1) > 1:
        raise ValueError("only one dimension can be -1")
    known = int(np.prod([s for s in shape if s != -1]))
    if -1 in shape:
        if known == 0 or size % known:
            raise ValueError("not divisible")
        shape = tuple(size // known if s == -1 else s for s in shape)
    if int(np.prod(shape)) != size:
        raise ValueError("size mismatch")
    return shape


broadcast_to_p = linear("broadcast_to", lambda x, *, shape: np.broadcast_to(x, shape),
                        lambda out_bar, x, *, shape: sum_to(out_bar, x.shape), view=True)
sum_to_p = linear("sum_to", lambda x, *, shape: _sum_to_array(x, shape),
                  lambda out_bar, x, *, shape: broadcast_to(out_bar, x.shape))


@tensor_method("broadcast_to")
def broadcast_to(x, shape):
    """`x` broadcast to `shape` (NumPy rules)."""
    shape = tuple(int(s) for s in shape)
    if x.shape == shape:
        return x
    try:
        np.broadcast_shapes(x.shape, shape)
    except ValueError:
        raise ValueError(f"broadcast_to: can't broadcast shape {list(x.shape)} to "
                         f"{list(shape)}") from None
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
    out = x.sum(axis=axes, keepdims=True) if axes else x
    return out.reshape(shape)


def expand_reduced(out_bar, ndim, axis, keepdims):
    """Re-insert the axes a reduction removed, so `out_bar` broadcasts against its input."""
    if keepdims or axis is None and out_bar.ndim == ndim:
        return out_bar
    if axis is None:
        return reshape(out_bar, (1,) * ndim)
    shape = list(out_bar.shape)
    for a in axis:
        shape.insert(a, 1)
    return reshape(out_bar, shape)
