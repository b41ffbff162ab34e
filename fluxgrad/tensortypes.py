"""PyTorch's legacy typed tensors (`FloatTensor`, `LongTensor`, ...) and `Tensor.type`.

`FloatTensor([1, 2])` makes a float32 tensor, `LongTensor(3)` an uninitialised
one of size 3, and `isinstance(t, FloatTensor)` asks whether `t` is a float32
tensor: the names are constructors and dtype tests, not subclasses.
"""
import numbers

import numpy as np

from . import cuda
from ._core import dtypes
from ._core.devices import refuse_accelerator
from ._core.size import Size
from ._core.tensor import Tensor, as_array, tensor_method

__all__ = ["FloatTensor", "DoubleTensor", "HalfTensor", "LongTensor", "IntTensor",
           "ShortTensor", "CharTensor", "ByteTensor", "BoolTensor"]


class _TensorTypeName(type):
    def __instancecheck__(cls, obj):
        return isinstance(obj, Tensor) and obj._data.dtype == cls.dtype.np

    def __call__(cls, *args):
        if not args or isinstance(args[0], Size) or all(
                isinstance(a, (numbers.Integral, np.integer)) and not isinstance(a, bool)
                for a in args):
            shape = args[0] if len(args) == 1 and isinstance(args[0], Size) else args or (0,)
            return Tensor._make(np.empty(tuple(int(s) for s in shape), cls.dtype.np))
        if len(args) > 1:
            raise TypeError(f"{cls.__name__}(): give sizes as ints, or one sequence of data")
        return Tensor._make(as_array(args[0], cls.dtype).copy())

    def __repr__(cls):
        return f"<class 'fluxgrad.{cls.__name__}'>"


def _legacy(name, dtype):
    return _TensorTypeName(name, (), {"dtype": dtype, "__doc__":
                                      f"Legacy constructor of {dtype} tensors; also an "
                                      f"isinstance target."})


FloatTensor = _legacy("FloatTensor", dtypes.float32)
DoubleTensor = _legacy("DoubleTensor", dtypes.float64)
HalfTensor = _legacy("HalfTensor", dtypes.float16)
LongTensor = _legacy("LongTensor", dtypes.int64)
IntTensor = _legacy("IntTensor", dtypes.int32)
ShortTensor = _legacy("ShortTensor", dtypes.int16)
CharTensor = _legacy("CharTensor", dtypes.int8)
ByteTensor = _legacy("ByteTensor", dtypes.uint8)
BoolTensor = _legacy("BoolTensor", dtypes.bool_)

_BY_DTYPE = {cls.dtype: cls for cls in (FloatTensor, DoubleTensor, HalfTensor, LongTensor,
                                        IntTensor, ShortTensor, CharTensor, ByteTensor,
                                        BoolTensor)}
_BY_NAME = {prefix + cls.__name__: cls for cls in _BY_DTYPE.values()
            for prefix in ("torch.", "fluxgrad.", "")}


@tensor_method("type")
def type_(x, dtype=None, non_blocking=False, **kwargs):
    """With no argument, the legacy type name ('torch.FloatTensor', as PyTorch prints it);
    with a dtype or such a name, `x` converted to it."""
    from .ops.elementwise import cast
    if dtype is None:
        return "torch." + _BY_DTYPE[x.dtype].__name__
    if isinstance(dtype, str) and dtype in _BY_NAME:
        dtype = _BY_NAME[dtype].dtype
    elif isinstance(dtype, _TensorTypeName):
        dtype = dtype.dtype
    elif isinstance(dtype, cuda._CudaTensorType) or (
            isinstance(dtype, str) and dtype.startswith("torch.cuda.")):
        refuse_accelerator("Tensor.type")
    return cast(x, dtype)


def _caster(dtype):
    def convert(x, memory_format=None):
        from .ops.elementwise import cast
        return cast(x, dtype)
    convert.__doc__ = f"`x` converted to {dtype}."
    return convert


for _name, _dtype in (("half", dtypes.float16), ("short", dtypes.int16), ("char", dtypes.int8),
                      ("byte", dtypes.uint8)):
    setattr(Tensor, _name, _caster(_dtype))


@tensor_method("new")
def new(x, *args):
    """Legacy `x.new(...)`: like `Tensor(...)` (sizes, or data), in x's dtype."""
    if args and not isinstance(args[0], Size) and not all(
            isinstance(a, (numbers.Integral, np.integer)) and not isinstance(a, bool)
            for a in args):
        return Tensor._make(as_array(args[0], x.dtype).copy())
    shape = args[0] if len(args) == 1 and isinstance(args[0], Size) else args or (0,)
    return Tensor._make(np.empty(tuple(int(s) for s in shape), x._data.dtype))


@tensor_method("get_device")
def get_device(x):
    """-1: the CPU, as PyTorch numbers it."""
    return -1
