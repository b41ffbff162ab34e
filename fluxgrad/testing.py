"""`fluxgrad.testing`, PyTorch's `torch.testing`: `assert_close` (PyTorch's default tolerances
per dtype, its checks of shape and dtype, and its messages) and `make_tensor`.

Inputs may be tensors, NumPy arrays, Python numbers, or sequences and mappings of them
(compared item by item); as in PyTorch, a tensor is compared only with a tensor, an array
with an array, a number with a number. A 0-d tensor is reported as a scalar, as PyTorch does.
"""
import math
import numbers
from collections.abc import Mapping, Sequence

import numpy as np

from ._core import dtypes
from ._core.tensor import Tensor

__all__ = ["assert_close", "make_tensor"]

# (rtol, atol) by dtype; integers and bool compare exactly
_TOLERANCES = {np.dtype("float16"): (1e-3, 1e-5), np.dtype("float32"): (1.3e-6, 1e-5),
               np.dtype("float64"): (1e-7, 1e-7)}


class _Mismatch(AssertionError):
    pass


def assert_close(actual, expected, *, allow_subclasses=True, rtol=None, atol=None,
                 equal_nan=False, check_device=True, check_dtype=True, check_layout=True,
                 check_stride=False, msg=None):
    """Raise AssertionError unless |actual - expected| <= atol + rtol * |expected| everywhere
    (NaN equal to NaN only with equal_nan), with equal shapes (and dtypes, by default)."""
    if (rtol is None) != (atol is None):
        raise ValueError(f"Both 'rtol' and 'atol' must be either specified or omitted, but got "
                         f"no {'atol' if atol is None else 'rtol'}.")
    try:
        _compare(actual, expected, rtol, atol, equal_nan, check_dtype, [])
    except _Mismatch as err:
        if msg is None:
            raise AssertionError(str(err)) from None
        raise AssertionError(msg(str(err)) if callable(msg) else msg) from None


def _compare(actual, expected, rtol, atol, equal_nan, check_dtype, path):
    if isinstance(expected, Mapping) and isinstance(actual, Mapping):
        if set(actual) != set(expected):
            raise _Mismatch(_at(f"The keys of the mappings do not match:\n"
                                f"Missing keys: {sorted(set(expected) - set(actual))}\n"
                                f"Additional keys: {sorted(set(actual) - set(expected))}", path))
        for key in expected:
            _compare(actual[key], expected[key], rtol, atol, equal_nan, check_dtype,
                     path + [key])
        return
    if _is_sequence(expected) and _is_sequence(actual):
        if len(actual) != len(expected):
            raise _Mismatch(_at(f"The length of the sequences mismatch: {len(actual)} != "
                                f"{len(expected)}", path))
        for i, (a, e) in enumerate(zip(actual, expected)):
            _compare(a, e, rtol, atol, equal_nan, check_dtype, path + [i])
        return
    kinds = (_kind(actual), _kind(expected))
    if None in kinds or kinds[0] != kinds[1]:
        raise TypeError(f"No comparison pair was able to handle inputs of type "
                        f"{type(actual)} and {type(expected)}.")
    if kinds[0] == "number":
        _compare_numbers(actual, expected, rtol, atol, equal_nan, check_dtype, path)
    else:
        _compare_arrays(actual, expected, rtol, atol, equal_nan, check_dtype, path)


def _is_sequence(x):
    return isinstance(x, Sequence) and not isinstance(x, str)


def _kind(x):
    if isinstance(x, Tensor):
        return "tensor"
    if isinstance(x, np.ndarray):
        return "ndarray"
    if isinstance(x, numbers.Number):
        return "number"
    return None


def _array(x):
    return x.detach().numpy() if isinstance(x, Tensor) else np.asarray(x)


def _dtype_name(x):
    return repr(x.dtype) if isinstance(x, Tensor) else f"numpy.{x.dtype}"


def _compare_arrays(actual, expected, rtol, atol, equal_nan, check_dtype, path):
    a, e = _array(actual), _array(expected)
    if a.shape != e.shape:
        size = "fluxgrad.Size" if isinstance(actual, Tensor) else "shape"
        raise _Mismatch(_at(f"The values for attribute 'shape' do not match: "
                            f"{size}({list(a.shape)}) != {size}({list(e.shape)}).", path))
    if check_dtype and a.dtype != e.dtype:
        raise _Mismatch(_at(f"The values for attribute 'dtype' do not match: "
                            f"{_dtype_name(actual)} != {_dtype_name(expected)}.", path))
    if rtol is None:
        rtol, atol = (max(v) for v in zip(_tolerance(a.dtype), _tolerance(e.dtype)))
    common = np.result_type(a.dtype, e.dtype)
    exact = common.kind in "biu"
    if exact:
        common = np.dtype(np.int64) if common.kind != "u" else common
    a, e = a.astype(common), e.astype(common)
    close = _close(a, e, rtol, atol, equal_nan)
    if close.all():
        return
    if a.ndim == 0:
        _report_scalars(a.item(), e.item(), rtol, atol, exact, path)
    diff = np.abs(a - e) if not exact else np.abs(a.astype(np.int64) - e.astype(np.int64))
    with np.errstate(divide="ignore", invalid="ignore"):
        # integers: the relative difference in the default float dtype, as PyTorch
        rel = diff / np.abs(e) if not exact else (
            diff.astype(np.float32) / np.abs(e).astype(np.float32))
    diff = np.where(close, 0, diff) if not exact else diff
    rel = np.where(close, 0, rel)
    n_bad, n = int((~close).sum()), close.size
    lines = [f"Tensor-likes are not {'equal' if exact else 'close'}!", "",
             f"Mismatched elements: {n_bad} / {n} ({100 * n_bad / n:.1f}%)",
             _greatest("absolute", diff, None if exact else atol),
             _greatest("relative", rel, None if exact else rtol)]
    raise _Mismatch(_at("\n".join(lines), path))


def _greatest(what, values, allowed):
    flat = values.reshape(-1)
    i = int(np.argmax(np.where(np.isnan(flat), np.inf, flat))) if flat.size else 0
    value = flat[i].item()
    index = tuple(int(j) for j in np.unravel_index(i, values.shape))
    text = f"Greatest {what} difference: {value} at index {index}"
    return text if allowed is None else text + f" (up to {allowed} allowed)"


def _tolerance(dtype):
    return _TOLERANCES.get(np.dtype(dtype), (0.0, 0.0))


def _close(a, e, rtol, atol, equal_nan):
    if a.dtype.kind in "biu":
        return a == e
    with np.errstate(invalid="ignore", over="ignore"):
        close = (a == e) | (np.abs(a - e) <= atol + rtol * np.abs(e))
    if equal_nan:
        close |= np.isnan(a) & np.isnan(e)
    return close


def _compare_numbers(actual, expected, rtol, atol, equal_nan, check_dtype, path):
    if check_dtype and type(actual) is not type(expected):
        raise _Mismatch(_at(f"The (d)types do not match: {type(actual)} != {type(expected)}.",
                            path))
    exact = all(isinstance(v, (bool, int)) for v in (actual, expected))
    if rtol is None:
        rtol, atol = (0.0, 0.0) if exact else _TOLERANCES[np.dtype("float64")]
    if actual == expected or (equal_nan and _isnan(actual) and _isnan(expected)):
        return
    if not exact and abs(actual - expected) <= atol + rtol * abs(expected):
        return
    _report_scalars(actual, expected, rtol, atol, exact, path)


def _isnan(v):
    return isinstance(v, float) and math.isnan(v)


def _report_scalars(actual, expected, rtol, atol, exact, path):
    diff = abs(actual - expected)
    rel = diff / abs(expected) if expected else math.inf
    if exact:
        lines = ["Scalars are not equal!", "", f"Expected {expected} but got {actual}.",
                 f"Absolute difference: {diff}", f"Relative difference: {rel}"]
    else:
        lines = ["Scalars are not close!", "", f"Expected {expected} but got {actual}.",
                 f"Absolute difference: {diff} (up to {atol} allowed)",
                 f"Relative difference: {rel} (up to {rtol} allowed)"]
    raise _Mismatch(_at("\n".join(lines), path))


def _at(text, path):
    if not path:
        return text
    return text + "\n\nThe failure occurred for item " + "".join(f"[{p!r}]" for p in path)


def make_tensor(*shape, dtype, device=None, low=None, high=None, requires_grad=False,
                noncontiguous=False, exclude_zero=False, memory_format=None):
    """A tensor of `shape` filled with random values in [low, high) (floats: default [-9, 9);
    integers: [-9, 10), from 0 for uint8; bool: either), drawn from the default generator."""
    from .random import numpy_generator
    if len(shape) == 1 and isinstance(shape[0], (tuple, list)):
        shape = tuple(shape[0])
    dtype = dtypes.as_dtype(dtype)
    gen = numpy_generator(None)
    if low is not None and high is not None and low > high:
        raise ValueError(f"make_tensor: low must be less than or equal to high, got "
                         f"low={low}, high={high}")
    if dtype == dtypes.bool_:
        data = gen.random(shape) < 0.5
    elif dtype.is_floating_point:
        lo = -9.0 if low is None else float(low)
        hi = 9.0 if high is None else float(high)
        data = gen.uniform(lo, hi, shape) if lo != hi else np.full(shape, lo)
    else:
        info = np.iinfo(dtype.np)
        lo = max(-9 if low is None else math.ceil(low), int(info.min))
        hi = min(10 if high is None else math.ceil(high), int(info.max) + 1)
        data = gen.integers(lo, max(hi, lo + 1), shape)
    data = np.asarray(data).astype(dtype.np)
    if exclude_zero:
        tiny = np.finfo(dtype.np).tiny if dtype.is_floating_point else 1
        data = np.where(data == 0, tiny if dtype != dtypes.bool_ else True, data).astype(
            dtype.np)
    if noncontiguous and data.ndim:
        doubled = np.repeat(data, 2, axis=-1)
        data = doubled[..., ::2]
    return Tensor(data, requires_grad=requires_grad and dtype.is_floating_point)
