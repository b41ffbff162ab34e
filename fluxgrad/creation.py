"""Making tensors: from data, filled, ranges, and random (from fluxgrad's own seeded generator)."""
import math

import numpy as np

from ._core import batching, dtypes
from ._core.tensor import Tensor, as_array, tensor_method

__all__ = ["tensor", "to_tensor", "from_numpy", "as_tensor", "zeros", "ones", "full", "empty",
           "arange", "linspace", "eye", "rand", "randn", "randint", "zeros_like", "ones_like",
           "full_like", "empty_like", "rand_like", "randn_like", "randint_like", "manual_seed",
           "seed", "get_rng", "is_tensor", "numel"]

_rng = np.random.default_rng()


def manual_seed(seed):
    """Seed fluxgrad's generator, so that rand/randn/randint/shuffles repeat."""
    global _rng
    _rng = np.random.default_rng(int(seed))


seed = manual_seed


def get_rng():
    """fluxgrad's generator (a NumPy Generator), for code that draws random numbers."""
    return _rng


def tensor(data, dtype=None, requires_grad=False):
    """A new leaf tensor holding a copy of `data` (nested lists, scalars, arrays or tensors)."""
    arr = as_array(data, dtype)
    if isinstance(data, (np.ndarray, Tensor)) and arr is (data._data if isinstance(data, Tensor)
                                                           else data):
        arr = arr.copy()
    return Tensor(arr, requires_grad=requires_grad)


def to_tensor(data, dtype=None, place=None, stop_gradient=True):
    """PaddlePaddle's spelling of `tensor`: gradients are off unless `stop_gradient=False`."""
    return tensor(data, dtype=dtype, requires_grad=not stop_gradient)


def from_numpy(array):
    """A tensor sharing memory with `array`."""
    if not isinstance(array, np.ndarray):
        raise TypeError(f"from_numpy expects a numpy.ndarray, got {type(array).__name__}")
    return Tensor(array)


def as_tensor(data, dtype=None):
    return data if isinstance(data, Tensor) and dtype is None else Tensor(data, dtype)


def _shape(shape):
    if len(shape) == 1 and isinstance(shape[0], (tuple, list)):
        shape = shape[0]
    if len(shape) == 1 and isinstance(shape[0], Tensor):
        shape = shape[0].tolist()
    return tuple(int(s) for s in shape)


def _float(dtype):
    return dtypes.as_dtype(dtype).np if dtype is not None else dtypes.default_float.np


def _new(arr, requires_grad):
    return Tensor(arr, requires_grad=requires_grad)


def zeros(*shape, dtype=None, requires_grad=False):
    return _new(np.zeros(_shape(shape), _float(dtype)), requires_grad)


def ones(*shape, dtype=None, requires_grad=False):
    return _new(np.ones(_shape(shape), _float(dtype)), requires_grad)


def empty(*shape, dtype=None, requires_grad=False):
    return _new(np.empty(_shape(shape), _float(dtype)), requires_grad)


def full(shape, fill_value, dtype=None, requires_grad=False):
    if dtype is None:
        dtype = dtypes.result_type(fill_value)
    return _new(np.full(_shape((shape,)), fill_value, dtypes.as_dtype(dtype).np), requires_grad)


def arange(start, end=None, step=1, dtype=None, requires_grad=False):
    if end is None:
        start, end = 0, start
    _check_range(start, end, step)
    if dtype is None:
        dtype = dtypes.result_type(start, end, step)
    return _new(np.arange(start, end, step).astype(dtypes.as_dtype(dtype).np), requires_grad)


def _check_range(start, end, step):
    """PyTorch's checks of arange's arguments (same types and words, plus the values)."""
    start, end, step = (v.item() if isinstance(v, Tensor) else v for v in (start, end, step))
    if step == 0:
        raise RuntimeError(f"arange: step must be nonzero (got start={start}, end={end}, "
                           "step=0)")
    if not (math.isfinite(start) and math.isfinite(end)):
        raise RuntimeError(f"arange: unsupported range: {start} -> {end}")
    if (end - start) * step < 0:
        raise RuntimeError(f"arange: upper bound and lower bound inconsistent with step sign "
                           f"(start={start}, end={end}, step={step})")


def linspace(start, stop, num, dtype=None, requires_grad=False):
    if dtype is not None and dtypes.as_dtype(dtype) == dtypes.bool_:
        raise NotImplementedError("linspace: bool is not a dtype a range can have (PyTorch "
                                  "refuses it too); compare a float range instead")
    if isinstance(start, Tensor) or isinstance(stop, Tensor):
        return _linspace_between_tensors(start, stop, int(num), dtype, requires_grad)
    return _new(np.linspace(start, stop, int(num)).astype(_float(dtype)), requires_grad)


def _linspace_between_tensors(start, stop, num, dtype, requires_grad):
    """linspace with 0-d tensor ends, differentiable in them (in every mode); the first half
    counts up from `start`, the second down from `stop`, as PyTorch computes it."""
    from .ops import where
    for name, end in (("start", start), ("end", stop)):
        if isinstance(end, Tensor) and end.ndim:
            raise ValueError(f"linspace: {name} must be a number or a 0-d tensor, got shape "
                             f"{list(end.shape)}")
    i = Tensor(np.arange(num, dtype=_float(dtype)))
    step = (stop - start) / max(num - 1, 1)
    out = where(i < num / 2, start + step * i, stop - step * (num - 1 - i)).to(_float(dtype))
    return out.requires_grad_() if requires_grad and not out.requires_grad else out


def eye(n, m=None, dtype=None, requires_grad=False):
    return _new(np.eye(int(n), None if m is None else int(m), dtype=_float(dtype)), requires_grad)


def _random(draw, shape, np_dtype, requires_grad):
    """`draw(shape)` as a tensor; inside vmap(randomness='different') a different draw for
    every example (see `batching.random_levels`)."""
    levels = batching.random_levels()
    lead = tuple(batching.batch_size(level) for level in levels)
    t = _new(draw(lead + tuple(shape)).astype(np_dtype), requires_grad)
    for level in levels:  # outermost vmap first: each takes the leading dimension left
        t = batching.wrap(t, level, 0)
    return t


def rand(*shape, dtype=None, requires_grad=False):
    """Uniform samples on [0, 1)."""
    return _random(_rng.random, _shape(shape), _float(dtype), requires_grad)


def randn(*shape, dtype=None, requires_grad=False):
    """Standard normal samples."""
    return _random(_rng.standard_normal, _shape(shape), _float(dtype), requires_grad)


def randint(low=0, high=None, shape=(), dtype=None, requires_grad=False):
    """Integers uniform on [low, high); `randint(high)` and `randint(low, high, shape)`."""
    if high is None:
        low, high = 0, low
    if isinstance(shape, int):
        shape = (shape,)
    dtype = dtypes.as_dtype(dtype or "int64")
    return _random(lambda size: _rng.integers(low, high, size=size), _shape((shape,)), dtype.np,
                   requires_grad)


def _like(x, dtype):
    return x.dtype if dtype is None else dtype


def zeros_like(x, dtype=None, requires_grad=False):
    return _new(np.zeros(x.shape, dtypes.as_dtype(_like(x, dtype)).np), requires_grad)


def ones_like(x, dtype=None, requires_grad=False):
    return _new(np.ones(x.shape, dtypes.as_dtype(_like(x, dtype)).np), requires_grad)


def full_like(x, fill_value, dtype=None, requires_grad=False):
    return _new(np.full(x.shape, fill_value, dtypes.as_dtype(_like(x, dtype)).np), requires_grad)


def empty_like(x, dtype=None, requires_grad=False):
    return _new(np.empty(x.shape, dtypes.as_dtype(_like(x, dtype)).np), requires_grad)


def rand_like(x, dtype=None, requires_grad=False):
    return rand(x.shape, dtype=_like(x, dtype), requires_grad=requires_grad)


def randn_like(x, dtype=None, requires_grad=False):
    return randn(x.shape, dtype=_like(x, dtype), requires_grad=requires_grad)


def randint_like(x, low=0, high=None, dtype=None):
    return randint(low, high, x.shape, dtype=_like(x, dtype))


@tensor_method("new_zeros")
def new_zeros(x, *shape, dtype=None, requires_grad=False):
    """Zeros of `shape` with x's dtype (unless `dtype` is given)."""
    return zeros(*shape, dtype=dtype or x.dtype, requires_grad=requires_grad)


@tensor_method("new_ones")
def new_ones(x, *shape, dtype=None, requires_grad=False):
    return ones(*shape, dtype=dtype or x.dtype, requires_grad=requires_grad)


@tensor_method("new_empty")
def new_empty(x, *shape, dtype=None, requires_grad=False):
    return empty(*shape, dtype=dtype or x.dtype, requires_grad=requires_grad)


@tensor_method("new_full")
def new_full(x, size, fill_value, dtype=None, requires_grad=False):
    return full(size, fill_value, dtype=dtype or x.dtype, requires_grad=requires_grad)


@tensor_method("new_tensor")
def new_tensor(x, data, dtype=None, requires_grad=False):
    return tensor(data, dtype=dtype or x.dtype, requires_grad=requires_grad)


def is_tensor(obj):
    return isinstance(obj, Tensor)


def numel(x):
    return x.numel()
