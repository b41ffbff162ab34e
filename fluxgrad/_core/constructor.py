"""PyTorch's legacy constructor `Tensor(...)`, read by Tensor's metaclass.

`Tensor(*sizes)` (or a `Size`) is an uninitialised tensor of that shape,
`Tensor()` is empty, and `Tensor(list_or_number)` holds the data in the default
floating dtype (`Tensor([0])` is float32, as in PyTorch). Data that already has a
dtype (an ndarray, a tensor) keeps it, as does anything given `dtype=`. Subclasses
(`Parameter`) construct as they define.
"""
import numbers

import numpy as np

from . import dtypes
from .size import Size


class TensorType(type):
    def __call__(cls, *args, **kwargs):
        # Tensor itself (not a subclass), given anything but an array (the common, fast case)
        if cls.__base__ is object and (not args or type(args[0]) is not _ndarray):
            args = _legacy_args(args, kwargs)
        return type.__call__(cls, *args, **kwargs)


_ndarray = np.ndarray


def _is_int(value):
    return isinstance(value, (numbers.Integral, np.integer)) and not isinstance(value, bool)


def _legacy_args(args, kwargs):
    if "data" in kwargs:
        return args
    if not args:
        return (np.empty((0,), dtypes.default_float.np),)
    if isinstance(args[0], Size) and len(args) == 1:
        return (np.empty(args[0], dtypes.default_float.np),)
    if all(_is_int(a) for a in args) and "dtype" not in kwargs:
        return (np.empty(tuple(int(a) for a in args), dtypes.default_float.np),)
    data = args[0]
    has_dtype = len(args) > 1 or "dtype" in kwargs
    if not has_dtype and isinstance(data, (list, tuple, numbers.Number)) and \
            not isinstance(data, np.generic):
        return (np.asarray(data, dtypes.default_float.np),) + args[1:] \
            if not _holds_tensors(data) else args
    return args


def _holds_tensors(data):
    return isinstance(data, (list, tuple)) and any(
        _holds_tensors(d) or hasattr(d, "_data") for d in data)
