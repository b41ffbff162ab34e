"""The primitives static mode adds, both without a derivative:
- `full_like(x, value=, dtype=)`: an array of x's shape (known only when the program runs)
  filled with `value` (its output does not depend on x's values), like `ones_like` /
  `zeros_like` in eager mode, which make a constant instead;
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


stop_gradient_p = Primitive(
    "stop_gradient", lambda x: x,
    batch=lambda bdims, x: (apply(stop_gradient_p, x), bdims[0]))


def stop_gradient(x):
    return apply(stop_gradient_p, x)
