"""Making tensors: from data, filled, and ranges (random ones come from `fluxgrad.random`).

Every factory takes PyTorch's keywords (`dtype=`, `device=`, `requires_grad=`,
`out=`) and PaddlePaddle's forms (`zeros([2, 3], 'float32')`, a positional dtype).
`device` may only name the CPU.

While a static program is built, a size taken from an unknown dimension (`zeros(x.shape[0],
3)`, `arange(x.shape[0])`, `eye(x.shape[1])`, see `static.dims`) makes the array at every
run in the size fed (`static._ops.full` / `iota`), instead of a constant of the stand-in size.
"""
import math
import warnings

import numpy as np

from ._core import dtypes
from ._core.devices import check_device
from ._core.errors import ArgumentError, ShapeError, refuse_python_value
from ._core.outputs import written
from ._core.static_mode import state as _static_state
from ._core.tensor import Tensor, as_array, tensor_method
from .random import get_rng, manual_seed, rand, randint, randn, seed, size_keyword, sizes

__all__ = ["tensor", "to_tensor", "from_numpy", "as_tensor", "zeros", "ones", "full", "empty",
           "arange", "linspace", "logspace", "eye", "rand", "randn", "randint", "zeros_like",
           "ones_like", "full_like", "empty_like", "rand_like", "randn_like", "randint_like",
           "manual_seed", "seed", "get_rng", "is_tensor", "numel", "scalar_tensor", "shape",
           "range"]


def _dtype_like(value):
    """Whether a positional argument is PaddlePaddle's dtype rather than a size."""
    return isinstance(value, (str, dtypes.DType, np.dtype)) or (
        isinstance(value, type) and value in (float, int, bool))



def tensor(data, dtype=None, device=None, requires_grad=False, pin_memory=False):
    """A new leaf tensor holding a copy of `data` (nested lists, scalars, arrays or tensors)."""
    check_device(device, "tensor")
    if not isinstance(data, (np.ndarray, Tensor)) and _unknown(data):
        return _staged_tensor(data, dtype)
    arr = as_array(data, dtype)
    if isinstance(data, (np.ndarray, Tensor)) and arr is (data._data if isinstance(data, Tensor)
                                                           else data):
        arr = arr.copy()
    return Tensor(arr, requires_grad=requires_grad)


def _staged_tensor(data, dtype):
    """`tensor(x.shape[0])` / `tensor([x.shape[0], 3])` while a program is built: the numbers
    as the sizes fed make them at every run."""
    from .ops import stack
    from .static._ops import full as staged_full
    flat = data if isinstance(data, (tuple, list)) else [data]
    if not all(isinstance(v, (int, float)) for v in flat):
        raise ValueError(f"tensor: numbers computed from an unknown size can be staged as a "
                         f"number or a flat list of numbers, got {data!r}")
    np_dtype = (dtypes.as_dtype(dtype) if dtype is not None else
                dtypes.result_type(*[_stand_in(v) for v in flat])).np
    parts = [staged_full((), v, np_dtype) for v in flat]
    return stack(parts) if isinstance(data, (tuple, list)) else parts[0]


def _stand_in(v):
    """A number's plain Python value (a size's stand-in), for picking the dtype."""
    return float(v) if isinstance(v, float) else int.__int__(v)


def to_tensor(data, dtype=None, place=None, stop_gradient=True):
    """PaddlePaddle's spelling of `tensor`: gradients are off unless `stop_gradient=False`."""
    return tensor(data, dtype=dtype, device=place, requires_grad=not stop_gradient)


def scalar_tensor(value, dtype=None, device=None, requires_grad=False):
    return tensor(value, dtype=dtype if dtype is not None else dtypes.default_float,
                  device=device, requires_grad=requires_grad)


def from_numpy(array):
    """A tensor sharing memory with `array`."""
    if not isinstance(array, np.ndarray):
        raise TypeError(f"from_numpy expects a numpy.ndarray, got {type(array).__name__}")
    return Tensor(array)


def as_tensor(data, dtype=None, device=None):
    check_device(device, "as_tensor")
    return data if isinstance(data, Tensor) and dtype is None else Tensor(data, dtype)


def _float(dtype):
    return dtypes.as_dtype(dtype).np if dtype is not None else dtypes.default_float.np


def _unknown(*numbers):
    """Whether a program is being built and one of `numbers` (ints, or one tuple of them) was
    computed from an unknown size: the array is then staged, its sizes re-bound at every run."""
    if not _static_state.armed:
        return False
    from .static import dims
    from .static.staging import programs
    return (_static_state.enabled or programs.tracing) and dims.mentions_symbol(numbers)


def _shape_of(args):
    return tuple(args[0]) if len(args) == 1 and isinstance(args[0], (tuple, list)) else args


def _filled(fill, args, dtype, device, requires_grad, out, op):
    """zeros/ones/empty: PyTorch's `*size` or PaddlePaddle's `(shape, dtype)`."""
    check_device(device, op)
    if len(args) == 2 and _dtype_like(args[1]) and dtype is None:
        args, dtype = args[:1], args[1]
    shape = sizes(args, op)
    if _unknown(args):
        from .static._ops import full as staged_full
        return staged_full(_shape_of(args), 1 if fill is np.ones else 0, _float(dtype))
    t = Tensor(fill(shape, _float(dtype)), requires_grad=requires_grad)
    return written(t, out, op)


def zeros(*args, size=None, dtype=None, device=None, requires_grad=False, out=None, name=None):
    return _filled(np.zeros, size_keyword(args, size, "zeros"), dtype, device, requires_grad,
                   out, "zeros")


def ones(*args, size=None, dtype=None, device=None, requires_grad=False, out=None, name=None):
    return _filled(np.ones, size_keyword(args, size, "ones"), dtype, device, requires_grad, out,
                   "ones")


def empty(*args, size=None, dtype=None, device=None, requires_grad=False, out=None, name=None,
          memory_format=None, pin_memory=False):
    return _filled(np.empty, size_keyword(args, size, "empty"), dtype, device, requires_grad,
                   out, "empty")


def full(size, fill_value, dtype=None, *, device=None, requires_grad=False, out=None, name=None):
    """`fill_value` everywhere; the dtype follows the value (int64, bool, or the default float)."""
    check_device(device, "full")
    if isinstance(fill_value, Tensor):
        fill_value = fill_value.item()
    if isinstance(fill_value, (str, bytes, list, tuple, dict)) or fill_value is None:
        raise TypeError(f"full(): fill_value must be a number, got {type(fill_value).__name__} "
                        f"{fill_value!r}; for a tensor of given values use fluxgrad.tensor(...)")
    if dtype is None:
        dtype = dtypes.result_type(fill_value)
    shape = sizes((size,), "full")
    if _unknown(size, fill_value):
        from .static._ops import full as staged_full
        return staged_full(_shape_of((size,)), fill_value, dtypes.as_dtype(dtype).np)
    t = Tensor(np.full(shape, fill_value, dtypes.as_dtype(dtype).np),
               requires_grad=requires_grad)
    return written(t, out, "full")


def _number(value):
    return value.item() if isinstance(value, Tensor) else value


def arange(start=0, end=None, step=1, dtype=None, *, device=None, requires_grad=False, out=None,
           name=None):
    """start, start + step, ... up to (not including) end; `arange(end)` starts at 0."""
    check_device(device, "arange")
    start, end, step = _number(start), _number(end), _number(step)
    if end is None:
        start, end = 0, start
    _check_range(start, end, step)
    if dtype is None and out is not None:
        dtype = out.dtype  # torch's rule: the range is made in out's dtype
    dtype = dtypes.result_type(start, end, step) if dtype is None else dtypes.as_dtype(dtype)
    if _unknown(start, end, step):
        return _staged_arange(start, end, step, dtype)
    if dtype is dtypes.int64:  # its length, too, from the ends and step as integers, as PyTorch
        start, end, step = int(start), int(end), int(step)
        _check_range(start, end, step)
        values = np.arange(start, end, step)
    elif not dtype.is_floating_point:  # the values from integers, the length from the numbers
        values = int(start) + int(step) * np.arange(math.ceil((end - start) / step))
    else:
        values = np.arange(start, end, step)
    t = Tensor(values.astype(dtype.np), requires_grad=requires_grad)
    return written(t, out, "arange")


def _staged_arange(start, end, step, dtype):
    """arange whose ends or step come from an unknown size: `start + step * index`, with as
    many entries as the size fed makes (a length that is not the size itself or a multiple of
    it is refused when staged, see `static.dims`)."""
    from .static._ops import iota
    if not all(isinstance(v, int) for v in (start, end, step)):
        raise ValueError(f"arange: a float range whose ends come from an unknown size can't be "
                         f"staged (start={start}, end={end}, step={step}); give integer ends "
                         "and step, or give static.data a known size")
    index = iota((-((start - end) // step),), 0, dtype.np)
    return index if (start, step) == (0, 1) else (start + step * index).to(dtype)


def _check_range(start, end, step):
    """PyTorch's checks of arange's arguments (same types and words, plus the values)."""
    if step == 0:
        raise ArgumentError(f"arange: step must be nonzero (got start={start}, end={end}, "
                           "step=0)")
    if not (math.isfinite(start) and math.isfinite(end)):
        raise RuntimeError(f"arange: unsupported range: {start} -> {end}")
    if (end - start) * step < 0:
        raise RuntimeError(f"arange: upper bound and lower bound inconsistent with step sign "
                           f"(start={start}, end={end}, step={step})")


def _steps(steps, op):
    if isinstance(steps, float):
        raise TypeError(f"{op}: steps must be an int, got the float {steps}; give an int "
                        f"({op}(start, end, {int(steps)}))")
    if steps is None or int(steps) < 0:
        raise RuntimeError(f"{op}: steps must be a non-negative int, got {steps}")
    return int(steps)


def _range_dtype(dtype, op):
    dtype = dtypes.as_dtype(dtype) if dtype is not None else dtypes.default_float
    if dtype is dtypes.bool_:
        raise TypeError(f"{op}: dtype bool is not supported; use a numeric dtype")
    return dtype.np


def _inclusive_range(start=0, end=None, step=1, dtype=None, *, device=None, requires_grad=False,
                     out=None):
    """torch.range, deprecated there: start, start + step, ... up to end included, in the
    default float dtype unless `dtype` says otherwise."""
    warnings.warn("torch.range is deprecated and will be removed in a future release because its "
                  "behavior is inconsistent with Python's range builtin. Instead, use "
                  "torch.arange, which produces values in [start, end).", UserWarning,
                  stacklevel=2)
    check_device(device, "range")
    if end is None:
        raise TypeError("range() needs an end (it includes it): range(start, end, step)")
    start, end, step = (_number(v) for v in (start, end, step))
    if step == 0:
        raise RuntimeError("range: step must be nonzero")
    if (end - start) * step < 0:
        raise RuntimeError(f"range: upper bound and lower bound inconsistent with step sign "
                           f"(start {start}, end {end}, step {step})")
    count = int(math.floor((end - start) / step)) + 1
    np_dtype = _float(dtype)
    values = (start + np.arange(count, dtype=np.float64) * step).astype(np_dtype)
    return written(Tensor(values, requires_grad=requires_grad), out, "range")


def linspace(start, end, steps, dtype=None, *, device=None, requires_grad=False, out=None,
             name=None):
    """`steps` values evenly spaced from start to end, both included."""
    check_device(device, "linspace")
    if dtype is not None and dtypes.as_dtype(dtype) == dtypes.bool_:
        raise NotImplementedError("linspace: bool is not a dtype a range can have (PyTorch "
                                  "refuses it too); compare a float range instead")
    if _unknown(steps):
        return _staged_linspace(start, end, steps, _range_dtype(dtype, "linspace"), "linspace")
    steps = _steps(steps, "linspace")
    _check_ends(start, end, "linspace")
    np_dtype = _range_dtype(dtype, "linspace")
    if np_dtype.kind in "iu":
        values = _integer_range(_number(start), _number(end), steps)
    elif isinstance(start, Tensor) or isinstance(end, Tensor):
        return written(_linspace_between_tensors(start, end, steps, dtype, requires_grad), out,
                       "linspace")
    elif np_dtype in (np.float32, np.float64):
        values = _float_range(_number(start), _number(end), steps, np_dtype)
    else:
        values = np.linspace(start, end, steps)
    t = Tensor(values.astype(np_dtype), requires_grad=requires_grad)
    return written(t, out, "linspace")


def _float_range(start, end, steps, np_dtype):
    """PyTorch's linspace points to the bit: in the dtype, step = (end - start) / (steps - 1);
    the first half is fma(step, i, start), the second fma(-step, steps - 1 - i, end) (the
    fused multiply-add its kernel compiles to, emulated here)."""
    work = np_dtype.type
    start, end = work(start), work(end)
    if steps == 1:
        return np.array([start])
    step = (end - start) / work(steps - 1)
    i = np.arange(steps)
    first = i < steps // 2
    counts = np.where(first, i, steps - 1 - i).astype(work)
    return _fused_multiply_add(np.where(first, step, -step), counts, np.where(first, start, end))


def _fused_multiply_add(a, b, c):
    """a * b + c rounded once. float32 operands: their product is exact in float64. float64:
    the product's rounding error (Dekker's split) and the sum's (Knuth's two-sum) are added back
    before the last rounding."""
    if a.dtype == np.float32:
        return (a.astype(np.float64) * b + c).astype(np.float32)
    product = a * b
    split = 134217729.0
    a_hi = a * split - (a * split - a)
    b_hi = b * split - (b * split - b)
    a_lo, b_lo = a - a_hi, b - b_hi
    product_error = ((a_hi * b_hi - product) + a_hi * b_lo + a_lo * b_hi) + a_lo * b_lo
    total = product + c
    virtual = total - product
    sum_error = (product - (total - virtual)) + (c - virtual)
    return total + (sum_error + product_error)


def _check_ends(start, end, op):
    for name, value in (("start", start), ("end", end)):
        if isinstance(value, Tensor) and value.ndim:
            raise ShapeError(f"{op}: {name} must be a number or a 0-d tensor, got shape "
                             f"{list(value.shape)}")


def _integer_range(start, end, steps):
    """The float64 points of PyTorch's linspace for an integer dtype (truncated when cast):
    the ends truncated to integers, the first half counted up from start, the second down from
    end."""
    start, end = int(start), int(end)
    i = np.arange(steps, dtype=np.float64)
    step = (end - start) / max(steps - 1, 1)
    return np.where((i < steps // 2) | (steps == 1), start + step * i,
                    end - step * (steps - 1 - i))


def _staged_linspace(start, end, steps, np_dtype, op):
    """linspace with as many steps as a size known only when the program runs: NumPy's
    `start + i * step`, the last value `end` itself (one step: `start`)."""
    from .ops import clamp, logical_and, where
    from .static._ops import iota
    if np_dtype.kind not in "fc" or isinstance(start, Tensor) or isinstance(end, Tensor):
        raise ValueError(f"{op}: a range of a size known only when the program runs is staged "
                         f"with number ends and a float dtype (got start={start!r}, end={end!r},"
                         f" dtype {np_dtype}); give static.data a known size")
    i = iota((steps,), 0, np.float64)
    last = tensor(steps, dtype="float64") - 1
    values = start + i * ((end - start) / clamp(last, min=1))
    return where(logical_and(i == last, last > 0), float(end), values).to(np_dtype)


def _linspace_between_tensors(start, stop, num, dtype, requires_grad):
    """linspace with 0-d tensor ends, differentiable in them (in every mode); the first half
    counts up from `start`, the second down from `stop`, as PyTorch computes it."""
    from .ops import where
    i = Tensor(np.arange(num, dtype=_float(dtype)))
    step = (stop - start) / max(num - 1, 1)
    out = where(i < num / 2, start + step * i, stop - step * (num - 1 - i)).to(_float(dtype))
    return out.requires_grad_() if requires_grad and not out.requires_grad else out


def logspace(start, end, steps, base=10.0, dtype=None, *, device=None, requires_grad=False,
             out=None, name=None):
    """`base ** linspace(start, end, steps)`."""
    check_device(device, "logspace")
    if _unknown(steps):
        exponents = _staged_linspace(_number(start), _number(end), steps, np.dtype(np.float64),
                                     "logspace")
        return (base ** exponents).to(_range_dtype(dtype, "logspace"))
    steps, np_dtype = _steps(steps, "logspace"), _range_dtype(dtype, "logspace")
    _check_ends(start, end, "logspace")
    if np_dtype.kind in "iu":
        values = np.power(float(base), _integer_range(_number(start), _number(end), steps))
    else:
        values = np.logspace(_number(start), _number(end), steps, base=base)
    t = Tensor(values.astype(np_dtype), requires_grad=requires_grad)
    return written(t, out, "logspace")


def eye(n, m=None, dtype=None, *, device=None, requires_grad=False, out=None, name=None):
    check_device(device, "eye")
    for arg, size in (("n", n), ("m", m)):
        if type(size) is float:
            raise TypeError(f"eye(): argument '{arg}' must be int, not float; got {size!r}, "
                            f"pass int({size!r})")
    if n < 0 or (m is not None and m < 0):
        raise RuntimeError(f"eye: sizes must be non-negative, got n={n}, m={m}")
    if _unknown(n, m):
        from .static._ops import iota
        shape = (n, n if m is None else m)
        return (iota(shape, 0, np.int64) == iota(shape, 1, np.int64)).to(_float(dtype))
    t = Tensor(np.eye(int(n), None if m is None else int(m), dtype=_float(dtype)),
               requires_grad=requires_grad)
    return written(t, out, "eye")


def _like(x, dtype, device, op):
    refuse_python_value(x, op)
    check_device(device, op)
    return dtypes.as_dtype(x.dtype if dtype is None else dtype).np


def _filled_like(x, value, dtype, device, requires_grad, op):
    np_dtype = _like(x, dtype, device, op)
    if getattr(x, "program", None) is not None:
        # a static Variable: its shape (an unknown batch size) is known when the program runs
        from .static._ops import full_like as staged_full_like
        return staged_full_like(x, value, np_dtype)
    # a value outside an integer dtype wraps around, as PyTorch
    return Tensor(np.full(x.shape, np.asarray(value).astype(np_dtype)),
                  requires_grad=requires_grad)


def zeros_like(x, dtype=None, *, device=None, requires_grad=False, memory_format=None,
               name=None):
    return _filled_like(x, 0, dtype, device, requires_grad, "zeros_like")


def ones_like(x, dtype=None, *, device=None, requires_grad=False, memory_format=None,
              name=None):
    return _filled_like(x, 1, dtype, device, requires_grad, "ones_like")


def full_like(x, fill_value, dtype=None, *, device=None, requires_grad=False,
              memory_format=None, name=None):
    return _filled_like(x, _number(fill_value), dtype, device, requires_grad, "full_like")


def empty_like(x, dtype=None, *, device=None, requires_grad=False, memory_format=None,
               name=None):
    if getattr(x, "program", None) is not None:
        return _filled_like(x, 0, dtype, device, requires_grad, "empty_like")
    np_dtype = _like(x, dtype, device, "empty_like")
    return Tensor(np.empty(x.shape, np_dtype), requires_grad=requires_grad)


def rand_like(x, dtype=None, *, generator=None, device=None, requires_grad=False,
              memory_format=None):
    np_dtype = _like(x, dtype, device, "rand_like")
    return rand(x.shape, dtype=np_dtype, generator=generator, requires_grad=requires_grad)


def randn_like(x, dtype=None, *, generator=None, device=None, requires_grad=False,
               memory_format=None):
    np_dtype = _like(x, dtype, device, "randn_like")
    return randn(x.shape, dtype=np_dtype, generator=generator, requires_grad=requires_grad)


def randint_like(x, low=0, high=None, *, dtype=None, generator=None, device=None,
                 requires_grad=False, memory_format=None):
    """Integers on [low, high) in x's shape; `randint_like(x, high)` starts at 0."""
    np_dtype = _like(x, dtype, device, "randint_like")
    return randint(low, high, x.shape, dtype=np_dtype, generator=generator,
                   requires_grad=requires_grad)


@tensor_method("new_zeros")
def new_zeros(x, *size, dtype=None, device=None, requires_grad=False):
    """Zeros of `size` with x's dtype (unless `dtype` is given)."""
    return zeros(*size, dtype=dtype or x.dtype, device=device, requires_grad=requires_grad)


@tensor_method("new_ones")
def new_ones(x, *size, dtype=None, device=None, requires_grad=False):
    return ones(*size, dtype=dtype or x.dtype, device=device, requires_grad=requires_grad)


@tensor_method("new_empty")
def new_empty(x, *size, dtype=None, device=None, requires_grad=False):
    return empty(*size, dtype=dtype or x.dtype, device=device, requires_grad=requires_grad)


@tensor_method("new_full")
def new_full(x, size, fill_value, dtype=None, device=None, requires_grad=False):
    return full(size, fill_value, dtype=dtype or x.dtype, device=device,
                requires_grad=requires_grad)


@tensor_method("new_tensor")
def new_tensor(x, data, dtype=None, device=None, requires_grad=False):
    return tensor(data, dtype=dtype or x.dtype, device=device, requires_grad=requires_grad)


def shape(input, name=None):
    """PaddlePaddle's `paddle.shape`: x's shape as an int64 tensor; in a static program, the
    shape of the array fed (an unknown batch size included) at every run."""
    from .static._ops import shape as shape_of
    return shape_of(input)


def is_tensor(obj):
    return isinstance(obj, Tensor)


def numel(x):
    refuse_python_value(x, "numel")
    return x.numel()


range = _inclusive_range  # noqa: A001  torch's name; the builtin is not used in this module
