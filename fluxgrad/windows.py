"""PyTorch's window functions (hann, hamming, blackman, bartlett, kaiser) and `histogram`:
factories of constant tensors, computed in float64 and returned in `dtype` (the default
float dtype unless given). A periodic window of length L is the symmetric window of length
L + 1 without its last point, as in PyTorch.
"""
import collections

import numpy as np

from ._core import dtypes
from ._core.errors import refuse_python_value
from ._core.tensor import Tensor

__all__ = ["hann_window", "hamming_window", "blackman_window", "bartlett_window",
           "kaiser_window", "histogram"]


def _window(name, length, periodic, dtype, requires_grad, shape_of):
    if length < 0:
        raise RuntimeError(f"{name} requires non-negative window_length, got "
                           f"window_length={length}")
    dtype = dtypes.default_float if dtype is None else dtypes.as_dtype(dtype)
    if not dtype.is_floating_point:
        raise RuntimeError(f"{name} expects floating point dtypes, got: {dtype}")
    if length <= 1:
        values = np.ones(length)
    else:
        n = length + 1 if periodic else length
        values = shape_of(np.arange(n, dtype=np.float64), n)[:length]
    return Tensor(values.astype(dtype.np), requires_grad=requires_grad)


def _cosine_sum(*coefficients):
    def shape_of(k, n):
        phase = 2 * np.pi * k / (n - 1)
        return sum(c * np.cos(j * phase) for j, c in enumerate(coefficients))
    return shape_of


def hann_window(window_length, periodic=True, *, dtype=None, layout=None, device=None,
                pin_memory=False, requires_grad=False):
    """0.5 - 0.5 cos(2 pi n / (N - 1))."""
    return _window("hann_window", window_length, periodic, dtype, requires_grad,
                   _cosine_sum(0.5, -0.5))


def hamming_window(window_length, periodic=True, alpha=0.54, beta=0.46, *, dtype=None,
                   layout=None, device=None, pin_memory=False, requires_grad=False):
    """alpha - beta cos(2 pi n / (N - 1))."""
    return _window("hamming_window", window_length, periodic, dtype, requires_grad,
                   _cosine_sum(alpha, -beta))


def blackman_window(window_length, periodic=True, *, dtype=None, layout=None, device=None,
                    pin_memory=False, requires_grad=False):
    """0.42 - 0.5 cos(2 pi n / (N - 1)) + 0.08 cos(4 pi n / (N - 1))."""
    return _window("blackman_window", window_length, periodic, dtype, requires_grad,
                   _cosine_sum(0.42, -0.5, 0.08))


def bartlett_window(window_length, periodic=True, *, dtype=None, layout=None, device=None,
                    pin_memory=False, requires_grad=False):
    """The triangle 1 - |2 n / (N - 1) - 1|."""
    return _window("bartlett_window", window_length, periodic, dtype, requires_grad,
                   lambda k, n: 1 - np.abs(2 * k / (n - 1) - 1))


def kaiser_window(window_length, periodic=True, beta=12.0, *, dtype=None, layout=None,
                  device=None, pin_memory=False, requires_grad=False):
    """I0(beta sqrt(1 - (2 n / (N - 1) - 1)^2)) / I0(beta)."""
    return _window("kaiser_window", window_length, periodic, dtype, requires_grad,
                   lambda k, n: np.i0(beta * np.sqrt(np.clip(
                       1 - (2 * k / (n - 1) - 1) ** 2, 0, None))) / np.i0(beta))


HistogramResult = collections.namedtuple("histogram", ["hist", "bin_edges"])


def histogram(x, bins=100, *, range=None, weight=None, density=False):
    """Counts (or summed `weight`) of x's elements in `bins` equal bins over `range` (default:
    the data's) or between the given edges (a 1-d tensor); the last bin includes its right
    edge. Returns (hist, bin_edges), both of x's floating dtype."""
    from .ops.math_extras import refuse_value_reads
    refuse_python_value(x, "histogram")
    refuse_value_reads("histogram", x, weight)
    if x._data.dtype.kind != "f":
        raise NotImplementedError(f"histogram: defined for floating tensors, not {x.dtype}; "
                                  "convert it with .float()")
    data = x._data.reshape(-1).astype(np.float64)
    if isinstance(bins, Tensor):
        edges = bins._data.astype(np.float64)
    else:
        if bins <= 0:
            raise RuntimeError(f"torch.histogram(): bins must be > 0, but got {bins}")
        lo, hi = range if range is not None else (
            (data.min(), data.max()) if data.size else (0.0, 1.0))
        if lo > hi:
            raise RuntimeError(f"torch.histogram(): max must be larger than min, got range "
                               f"({lo}, {hi})")
        if lo == hi:
            lo, hi = lo - 0.5, hi + 0.5
        edges = np.linspace(lo, hi, int(bins) + 1).astype(x._data.dtype).astype(np.float64)
    w = None if weight is None else weight._data.reshape(-1).astype(np.float64)
    hist, edges = np.histogram(data, edges, weights=w, density=density)
    return HistogramResult(Tensor._make(hist.astype(x._data.dtype)),
                           Tensor._make(edges.astype(x._data.dtype)))
