"""PyTorch's global switches and dtype queries that ordinary scripts call: broadcast_shapes,
result_type, promote_types, can_cast, is_floating_point, is_complex, is_nonzero,
set_printoptions, the determinism and matmul-precision switches (recorded: fluxgrad's NumPy
kernels are deterministic and compute float32 products in float32 whatever is asked),
is_inference_mode_enabled, the inter-op thread count (recorded), and the `strided` layout
every tensor has.
"""
import os
import warnings

import numpy as np

from ._core import dtypes, tensor as _tensor
from ._core.errors import ShapeError, refuse_python_value
from ._core.inference_mode import is_inference_mode_enabled
from ._core.size import Size
from ._core.tensor import Tensor

__all__ = ["broadcast_shapes", "result_type", "promote_types", "can_cast", "is_floating_point",
           "is_complex", "is_nonzero", "set_printoptions", "use_deterministic_algorithms",
           "are_deterministic_algorithms_enabled", "is_deterministic_algorithms_warn_only_enabled",
           "set_float32_matmul_precision", "get_float32_matmul_precision",
           "is_inference_mode_enabled", "layout", "strided", "is_signed",
           "get_num_interop_threads", "set_num_interop_threads"]


class layout:
    """A tensor memory layout; fluxgrad has one, `strided` (dense)."""
    __slots__ = ("name",)

    def __init__(self, name):
        self.name = name

    def __repr__(self):
        return f"fluxgrad.{self.name}"


strided = layout("strided")


def broadcast_shapes(*shapes):
    """The shape that tensors of these shapes broadcast to, as a Size."""
    shapes = [(s,) if isinstance(s, (int, np.integer)) else tuple(s) for s in shapes]
    try:
        return Size(np.broadcast_shapes(*shapes))
    except ValueError:
        raise ShapeError(f"broadcast_shapes: the shapes {[list(s) for s in shapes]} don't "
                         "broadcast together (each dimension, from the right, must be equal or "
                         "1)") from None


def result_type(tensor1, tensor2):
    """The dtype PyTorch's promotion gives an op on these tensors or numbers."""
    return dtypes.result_type(tensor1, tensor2)


def promote_types(type1, type2):
    """The smallest dtype both dtypes convert to without loss of kind."""
    for name, t in (("type1", type1), ("type2", type2)):
        if not isinstance(t, dtypes.DType):
            raise TypeError(f"promote_types(): argument '{name}' must be a fluxgrad.dtype, "
                            f"not {type(t).__name__}")
    return dtypes.result_type(Tensor._make(np.zeros(1, type1.np)),
                              Tensor._make(np.zeros(1, type2.np)))


def can_cast(from_, to):
    """Whether PyTorch's casting rules allow `from_` into `to` (not to a lower kind: float to
    int or int to bool)."""
    return dtypes.as_dtype(from_).category <= dtypes.as_dtype(to).category


def is_floating_point(x):
    refuse_python_value(x, "is_floating_point")
    return x.is_floating_point()


def is_complex(x):
    refuse_python_value(x, "is_complex")
    return x.is_complex()


def is_signed(x):
    refuse_python_value(x, "is_signed")
    return x.dtype.is_signed


def is_nonzero(x):
    """The truth of a one-element tensor."""
    refuse_python_value(x, "is_nonzero")
    if x.numel() != 1:
        count = "no" if not x.numel() else "more than one"
        raise RuntimeError(f"Boolean value of Tensor with {count} values is ambiguous")
    return bool(x.item())


def set_printoptions(precision=None, threshold=None, edgeitems=None, linewidth=None,
                     profile=None, sci_mode=None):
    """How tensors print: `precision` decimals, summarised above `threshold` elements with
    `edgeitems` at each end, `sci_mode` True/False forces or forbids scientific notation
    (None: chosen per tensor); `profile` 'default', 'short' or 'full' sets all four."""
    options = _tensor.PRINT_OPTIONS
    if profile is not None:
        presets = {"default": (4, 1000, 3, 80), "short": (2, 1000, 2, 80),
                   "full": (4, float("inf"), 3, 80)}
        if profile not in presets:
            raise ValueError(f"set_printoptions: profile must be 'default', 'short' or 'full', "
                             f"got {profile!r}")
        options.update(zip(("precision", "threshold", "edgeitems", "linewidth"),
                           presets[profile]))
    for key, value in (("precision", precision), ("threshold", threshold),
                       ("edgeitems", edgeitems), ("linewidth", linewidth)):
        if value is not None:
            options[key] = value
    options["sci_mode"] = sci_mode


_deterministic = {"enabled": False, "warn_only": False}
_MATMUL_PRECISIONS = ("highest", "high", "medium")
_matmul_precision = ["highest"]


def use_deterministic_algorithms(mode, *, warn_only=False):
    """Recorded only: every fluxgrad kernel is deterministic."""
    _deterministic.update(enabled=bool(mode), warn_only=bool(warn_only))


def are_deterministic_algorithms_enabled():
    return _deterministic["enabled"]


def is_deterministic_algorithms_warn_only_enabled():
    return _deterministic["warn_only"]


def set_float32_matmul_precision(precision):
    """Recorded only: float32 products are computed in float32 whatever is asked."""
    if precision not in _MATMUL_PRECISIONS:
        warnings.warn(f"{precision} is not one of 'highest', 'high', or 'medium'; the current "
                      "set_float32_matmul_precision call has no effect.")
        return
    _matmul_precision[0] = precision


def get_float32_matmul_precision():
    return _matmul_precision[0]


_interop_threads = [os.cpu_count() or 1]


def get_num_interop_threads():
    return _interop_threads[0]


def set_num_interop_threads(n):
    """Recorded only: fluxgrad runs no inter-op thread pool (see set_num_threads for NumPy's
    BLAS threads)."""
    if int(n) <= 0:
        raise RuntimeError(f"set_num_interop_threads expects a positive integer, got {n}")
    _interop_threads[0] = int(n)
