"""DLPack interop: tensors move to and from PyTorch, NumPy, JAX, CuPy ... without a copy.

`from_dlpack(x)` takes any object with `__dlpack__` (or a raw DLPack capsule's
producer) through NumPy's own DLPack support; `Tensor.__dlpack__` exports the
underlying ndarray. Memory is shared: writes on one side are seen on the other.
fluxgrad lives on the CPU, so producers on another device must be moved first.
"""
import numpy as np

from ._core.tensor import Tensor

__all__ = ["from_dlpack", "to_dlpack"]


def from_dlpack(x, requires_grad=False):
    """A Tensor sharing `x`'s memory (a copy only when fluxgrad can't store its dtype,
    e.g. uint16, which becomes int32)."""
    if getattr(x, "requires_grad", False) and hasattr(x, "detach") and not isinstance(x, Tensor):
        raise RuntimeError("from_dlpack: the tensor requires grad, and DLPack carries no "
                           "gradient history; pass x.detach() (its gradients stay with the "
                           "other framework)")
    if not hasattr(x, "__dlpack__"):
        raise TypeError(f"from_dlpack: a {type(x).__name__} has no __dlpack__ method; pass a "
                        "tensor or array from a DLPack-aware library (PyTorch, NumPy, JAX, CuPy)")
    try:
        arr = np.from_dlpack(x)
    except (BufferError, RuntimeError, ValueError) as e:
        raise type(e)(f"from_dlpack: NumPy could not import this {type(x).__name__} ({e}). "
                      "fluxgrad runs on the CPU: move the tensor there first (e.g. x.cpu()).") \
            from None
    t = Tensor(arr)
    if requires_grad:
        t.requires_grad = True
    return t


def to_dlpack(t):
    """A DLPack capsule of `t`'s data (the legacy capsule API; prefer passing `t` itself)."""
    return t.__dlpack__()
