"""PyTorch's `out=`: write a result into a tensor the caller passes in.

As in PyTorch, `out` takes the result's shape (resized if it differs) and keeps
its own dtype when the result casts to it safely; `out=` is refused when the
result needs gradients, since the write can't be part of the graph.
"""
import numpy as np

from . import dtypes
from .grad_mode import state
from .tensor import Tensor


def write_out(out, result, op):
    """Copy `result` into `out` in place and return `out`."""
    if isinstance(out, (tuple, list)):
        if not isinstance(result, tuple) or len(out) != len(result):
            raise TypeError(f"{op}(out=...): expected {len(result)} output tensors")
        written = [write_out(o, r, op) for o, r in zip(out, result)]
        return type(result)(*written) if hasattr(result, "_fields") else tuple(written)
    if not isinstance(out, Tensor):
        raise TypeError(f"{op}(out=...): out must be a Tensor, got {type(out).__name__}")
    if state.enabled and (result._requires_grad or out._requires_grad):
        raise RuntimeError(f"{op}(out=...): out= doesn't support automatic differentiation (an "
                           "input or out requires grad); use the returned tensor instead, or "
                           "run under fluxgrad.no_grad()")
    data = result._data
    if not np.can_cast(data.dtype, out._data.dtype, "same_kind"):
        raise RuntimeError(f"{op}(out=...): the result type {dtypes.from_numpy_dtype(data.dtype)} "
                           f"can't be cast to out's dtype {out.dtype}")
    if out._data.shape != data.shape:
        out._data = np.empty(data.shape, out._data.dtype)
    np.copyto(out._data, data, casting="unsafe")
    out._bump_version()
    return out


def written(result, out, op):
    """`result`, or `out` holding it when the caller passed `out=`."""
    return result if out is None else write_out(out, result, op)
