"""The primitives static mode adds, all without a derivative:
- `full(shape=, value=, dtype=)` and `iota(shape=, axis=, dtype=)` (each entry's index along
  `axis`): the arrays `zeros`, `ones`, `full`, `empty`, `arange` and `eye` make when a size
  is unknown (`zeros(x.shape[0], 3)`); eager mode and known sizes make a constant instead;
- `full_like(x, value=, dtype=)`: an array of x's shape (known only when the program runs)
  filled with `value` (its output does not depend on x's values), like `ones_like` /
  `zeros_like` in eager mode, which make a constant instead;
- `shape(x)`: x's shape as an int64 vector (PaddlePaddle's `paddle.shape`), read when the
  program runs (so an unknown size is the size fed);
- `stop_gradient(x)`: x itself, through which no derivative flows (`Variable.detach()`),
  like a detached tensor in eager mode."""
import numpy as np

from .._core.dispatch import apply
from .._core.primitive import Primitive
from .._core.tensor import Tensor

full_like_p = Primitive(
    "full_like", lambda x, *, value, dtype: np.full(x.shape, value, dtype),
    batch=lambda bdims, x, **params: (apply(full_like_p, x, **params), bdims[0]))


def full_like(x, value, dtype=None):
    """`value` in the shape of `x` (a Variable: staged; a Tensor: computed now)."""
    dtype = np.dtype(x._data.dtype if dtype is None else dtype)
    out = apply(full_like_p, x, value=value, dtype=dtype)
    return out if isinstance(out, Tensor) else Tensor(out)


full_p = Primitive("full", lambda *, shape, value, dtype: np.full(shape, value, dtype),
                   batch=lambda bdims, **params: (apply(full_p, **params), None))

iota_p = Primitive(
    "iota", lambda *, shape, axis, dtype: np.broadcast_to(
        np.arange(shape[axis], dtype=dtype).reshape((-1,) + (1,) * (len(shape) - axis - 1)),
        shape).copy(), batch=lambda bdims, **params: (apply(iota_p, **params), None))


def full(shape, value, dtype):
    """`value` in `shape`, whose sizes may be unknown (staged while a program is built)."""
    out = apply(full_p, shape=tuple(shape), value=value, dtype=np.dtype(dtype))
    return out if isinstance(out, Tensor) else Tensor(out)


def iota(shape, axis, dtype):
    """Each entry's index along `axis`, in `shape` (sizes may be unknown)."""
    out = apply(iota_p, shape=tuple(shape), axis=axis, dtype=np.dtype(dtype))
    return out if isinstance(out, Tensor) else Tensor(out)


def _shape_batch(bdims, x):
    """(Every example has the shape of x without its batch axis.)"""
    keep = [i for i in range(x.ndim) if i != bdims[0]]
    return apply(shape_p, x)[keep], None


shape_p = Primitive("shape", lambda x: np.array(x.shape, np.int64), batch=_shape_batch,
                    saves_inputs=False)


def shape(x):
    """x's shape as an int64 tensor (a Variable: staged, the sizes fed at every run)."""
    out = apply(shape_p, x)
    return out if isinstance(out, Tensor) else Tensor(out)


stop_gradient_p = Primitive(
    "stop_gradient", lambda x: x,
    batch=lambda bdims, x: (apply(stop_gradient_p, x), bdims[0]))


def stop_gradient(x):
    return apply(stop_gradient_p, x)
