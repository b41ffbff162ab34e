"""PyTorch's legacy constructor `Tensor(...)`: the arguments Tensor.__init__ reads.

`Tensor(*sizes)` (or a `Size`) is an uninitialised tensor of that shape,
`Tensor()` is empty, and `Tensor(list_or_number)` holds the data in the default
floating dtype (`Tensor([0])` is float32, as in PyTorch). Data that already has a
dtype (an ndarray, a tensor) keeps it, as does anything given `dtype=`. Subclasses
(`Parameter`) construct as they define.

(Not a metaclass's `__call__`: a metaclass other than `type` makes every `isinstance(v, Tensor)`
of a non-tensor look up and call `__instancecheck__`, ~600 instructions on the op hot path.)
"""
import numbers

import numpy as np

from . import dtypes
from .size import Size


def _is_int(value):
    return isinstance(value, (numbers.Integral, np.integer)) and not isinstance(value, bool)


def legacy_args(args, kwargs):
    """The arguments `(data, dtype=None, requires_grad=False)` that `Tensor(*args, **kwargs)`
    means."""
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
