"""The one primitive static mode adds: `full_like(x, value=, dtype=)`, an array of x's shape
(known only when the program runs) filled with `value`. It has no derivative (its output
does not depend on x's values), like `ones_like`/`zeros_like` in eager mode, which make a
constant instead."""
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
