"""fluxgrad's dtypes and PyTorch-style type promotion.

A `DType` wraps a NumPy dtype. Promotion follows PyTorch: the category
(bool < integer < floating) decides first, then size; dimensioned tensors
outrank 0-d tensors, which outrank Python scalars, unless a lower-ranked
operand brings a higher category.
"""
import numpy as np


class DType:
    __slots__ = ("name", "np", "category", "is_floating_point")

    def __init__(self, name, category):
        self.name = name
        self.np = np.dtype(name)
        self.category = category
        self.is_floating_point = category == 2

    def __repr__(self):
        return f"fluxgrad.{self.name}"

    def __eq__(self, other):
        try:
            return self.np == as_dtype(other).np
        except TypeError:
            return NotImplemented

    def __hash__(self):
        return hash(self.np)


bool_ = DType("bool", 0)
int32 = DType("int32", 1)
int64 = DType("int64", 1)
float32 = DType("float32", 2)
float64 = DType("float64", 2)

_BY_NUMPY = {d.np: d for d in (bool_, int32, int64, float32, float64)}
_ALIASES = {"float": float32, "double": float64, "long": int64, "int": int32,
            "bool": bool_, float: float32, int: int64, bool: bool_}
_NARROWED = {np.dtype("float16"): float32, np.dtype("int8"): int32, np.dtype("int16"): int32,
             np.dtype("uint8"): int32, np.dtype("uint16"): int32, np.dtype("uint32"): int64,
             np.dtype("uint64"): int64}

default_float = float32


def as_dtype(dtype):
    """Accept a DType, a NumPy dtype or type, a string ('float32') or a Python type."""
    if isinstance(dtype, DType):
        return dtype
    alias = _ALIASES.get(dtype) if isinstance(dtype, (str, type)) else None
    if alias is not None:
        return alias
    try:
        npdt = np.dtype(dtype)
    except TypeError:
        raise TypeError(f"{dtype!r} is not a dtype fluxgrad knows; use one of "
                        "fluxgrad.float32, float64, int32, int64, bool") from None
    found = _BY_NUMPY.get(npdt)
    if found is None:
        raise TypeError(f"dtype {npdt} is not supported; use one of "
                        "fluxgrad.float32, float64, int32, int64, bool")
    return found


def from_numpy_dtype(npdt):
    """The fluxgrad dtype an array of this NumPy dtype is stored as."""
    found = _BY_NUMPY.get(npdt)
    if found is not None:
        return found
    narrowed = _NARROWED.get(npdt)
    if narrowed is not None:
        return narrowed
    raise TypeError(f"arrays of dtype {npdt} are not supported; convert to float32, float64, "
                    "int32, int64 or bool first")


def _wider(a, b):
    if a is None:
        return b
    if b is None or a is b:
        return a
    if a.category != b.category:
        return a if a.category > b.category else b
    return a if a.np.itemsize >= b.np.itemsize else b


def _scalar_dtype(value):
    if isinstance(value, (bool, np.bool_)):
        return bool_
    if isinstance(value, (int, np.integer)):
        return int64
    return default_float


def result_type(*operands):
    """The dtype PyTorch gives an elementwise op on these tensors and Python scalars."""
    dimensioned = zero_dim = scalars = None
    for x in operands:
        data = getattr(x, "_data", None)
        if data is None:
            scalars = _wider(scalars, _scalar_dtype(x))
        elif data.ndim:
            dimensioned = _wider(dimensioned, x.dtype)
        else:
            zero_dim = _wider(zero_dim, x.dtype)
    result = dimensioned
    for lower in (zero_dim, scalars):
        if lower is not None and (result is None or lower.category > result.category):
            result = lower
    return result
