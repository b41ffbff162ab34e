"""fluxgrad's dtypes and PyTorch-style type promotion.

A `DType` wraps a NumPy dtype. Promotion follows PyTorch: the category
(bool < integer < floating < complex) decides first, then size; dimensioned tensors
outrank 0-d tensors, which outrank Python scalars, unless a lower-ranked
operand brings a higher category (a complex one over a floating one gives the complex dtype
of the floating one's precision: float64 tensor + complex64 scalar is complex128).
"""
import numpy as np


class DType:
    """A fluxgrad dtype (PyTorch's `torch.dtype`, exported as `fluxgrad.dtype`)."""
    __slots__ = ("name", "np", "category", "is_floating_point", "is_complex", "is_signed",
                 "itemsize")

    def __init__(self, name, category):
        self.name = name
        self.np = np.dtype(name)
        self.category = category
        self.is_floating_point = category == 2
        self.is_complex = category == 3
        self.is_signed = self.np.kind in "ifc"
        self.itemsize = self.np.itemsize

    def __reduce__(self):
        return as_dtype, (self.name,)

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
uint8 = DType("uint8", 1)
int8 = DType("int8", 1)
int16 = DType("int16", 1)
int32 = DType("int32", 1)
int64 = DType("int64", 1)
float16 = DType("float16", 2)
float32 = DType("float32", 2)
float64 = DType("float64", 2)
complex64 = DType("complex64", 3)
complex128 = DType("complex128", 3)

ALL = (bool_, uint8, int8, int16, int32, int64, float16, float32, float64, complex64, complex128)
_BY_NUMPY = {d.np: d for d in ALL}
_SCALAR_TYPE_NAMES = dict(zip(ALL, ("Bool", "Byte", "Char", "Short", "Int", "Long", "Half", "Float",
                                    "Double", "ComplexFloat", "ComplexDouble")))
_ALIASES = {"float": float32, "double": float64, "long": int64, "int": int32, "short": int16,
            "half": float16, "bool": bool_, float: float32, int: int64, bool: bool_,
            "cfloat": complex64, "cdouble": complex128}
_NARROWED = {np.dtype("uint16"): int32, np.dtype("uint32"): int64, np.dtype("uint64"): int64}
_KNOWN = ("fluxgrad.float16, float32, float64, complex64, complex128, uint8, int8, int16, int32, "
          "int64, bool")

default_float = float32


def as_dtype(dtype):
    """Accept a DType, a NumPy dtype or type, a string ('float32') or a Python type."""
    if isinstance(dtype, DType):
        return dtype
    alias = _ALIASES.get(dtype) if isinstance(dtype, (str, type)) else None
    if alias is not None:
        return alias
    if dtype is complex:
        return default_complex()
    try:
        npdt = np.dtype(dtype)
    except TypeError:
        from .errors import UnknownDTypeName
        raise UnknownDTypeName(f"{dtype!r} is not a dtype fluxgrad knows; use one of "
                               f"{_KNOWN}") from None
    found = _BY_NUMPY.get(npdt)
    if found is None:
        raise TypeError(f"dtype {npdt} is not supported; use one of {_KNOWN}")
    return found


def from_numpy_dtype(npdt):
    """The fluxgrad dtype an array of this NumPy dtype is stored as."""
    found = _BY_NUMPY.get(npdt)
    if found is not None:
        return found
    narrowed = _NARROWED.get(npdt)
    if narrowed is not None:
        return narrowed
    raise TypeError(f"arrays of dtype {npdt} are not supported; convert to one of {_KNOWN} "
                    "first")


def default_complex():
    """The complex dtype of Python complex numbers: complex64, or complex128 when the default
    float is float64 (as PyTorch)."""
    return complex128 if default_float is float64 else complex64


def to_complex(dtype):
    """The complex dtype holding two of the floating `dtype` (float64: complex128)."""
    return complex128 if dtype is float64 or dtype is complex128 else complex64


def scalar_type_name(dtype):
    """The name PyTorch's messages give a dtype (float32: 'Float', int64: 'Long')."""
    return _SCALAR_TYPE_NAMES[as_dtype(dtype)]


def to_real(dtype):
    """The floating dtype of a complex dtype's parts (complex64: float32); others as they are."""
    return float64 if dtype is complex128 else float32 if dtype is complex64 else dtype


def _wider(a, b):
    if a is None:
        return b
    if b is None or a is b:
        return a
    if a.category != b.category:
        high, low = (a, b) if a.category > b.category else (b, a)
        if high.category == 3 and low.category == 2 and low.itemsize == 8:
            return complex128  # float64 with complex64
        return high
    if a.itemsize == b.itemsize and a.is_signed != b.is_signed:
        return int16 if a.itemsize == 1 else int64  # int8 with uint8: a wider signed type
    return a if a.itemsize >= b.itemsize else b


def _scalar_dtype(value):
    if isinstance(value, (bool, np.bool_)):
        return bool_
    if isinstance(value, (int, np.integer)):
        return int64
    if isinstance(value, (complex, np.complexfloating)):
        return default_complex()
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
            # a complex operand over a floating one keeps the floating one's precision
            result = to_complex(result) if lower.category == 3 and result is not None and \
                result.category == 2 else lower
    return result


def set_default_dtype(dtype):
    """The floating dtype that Python floats and float factories give (float32 to start with)."""
    global default_float
    dtype = as_dtype(dtype)
    if not dtype.is_floating_point:
        raise TypeError(f"set_default_dtype: only floating dtypes can be the default, got {dtype}")
    default_float = dtype


def get_default_dtype():
    return default_float


class finfo:
    """Machine limits of a floating dtype (PyTorch's `torch.finfo`)."""

    def __init__(self, dtype=None):
        dtype = default_float if dtype is None else to_real(as_dtype(dtype))
        if not dtype.is_floating_point:
            raise TypeError(f"finfo: {dtype} is not a floating dtype; use iinfo for integers")
        info = np.finfo(dtype.np)
        self.bits, self.dtype = info.bits, dtype.name
        self.eps, self.max, self.min = float(info.eps), float(info.max), float(info.min)
        self.tiny = self.smallest_normal = float(info.tiny)
        self.resolution = 10.0 ** -info.precision

    def __repr__(self):
        return (f"finfo(resolution={self.resolution:g}, min={self.min:g}, max={self.max:g}, "
                f"eps={self.eps:g}, smallest_normal={self.tiny:g}, tiny={self.tiny:g}, "
                f"dtype={self.dtype})")


class iinfo:
    """Limits of an integer dtype (PyTorch's `torch.iinfo`)."""

    def __init__(self, dtype):
        dtype = as_dtype(dtype)
        if dtype.category != 1:
            raise TypeError(f"iinfo: {dtype} is not an integer dtype"
                            + ("; use finfo" if dtype.is_floating_point else ""))
        info = np.iinfo(dtype.np)
        self.bits, self.dtype = info.bits, dtype.name
        self.max, self.min = int(info.max), int(info.min)

    def __repr__(self):
        return f"iinfo(min={self.min:g}, max={self.max:g}, dtype={self.dtype})"
