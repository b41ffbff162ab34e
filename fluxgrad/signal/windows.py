"""`fluxgrad.signal.windows`, PyTorch's `torch.signal.windows`: window functions of length M.

    bartlett blackman cosine exponential gaussian general_cosine general_hamming hamming hann
    kaiser nuttall

Factories of constant tensors as in torch: computed in float64 and returned in `dtype` (float32
or float64; the default float dtype unless given). `sym=True` (the default) gives a symmetric
window for filter design; `sym=False` a periodic one for spectral analysis (the symmetric window
of length M + 1 without its last point). M == 0 gives an empty tensor, M == 1 the window [1.].
A negative M, a dtype other than float32/float64, a layout other than strided or a bad shape
parameter (tau, std, beta, a) raise ValueError (TypeError for coefficients that aren't a
sequence), as torch.
"""
import collections.abc
import math

import numpy as np

from .._core import dtypes
from .._core.tensor import Tensor
from ..settings import strided

__all__ = ["bartlett", "blackman", "cosine", "exponential", "gaussian", "general_cosine",
           "general_hamming", "hamming", "hann", "kaiser", "nuttall"]


def _checked_dtype(name, M, dtype, layout):
    if M < 0:
        raise ValueError(f"{name} requires non-negative window length, got M={M}")
    if layout is not None and layout is not strided and str(layout) != "torch.strided":
        raise ValueError(f"{name} is implemented for strided tensors only, got: {layout}")
    dtype = dtypes.default_float if dtype is None else dtypes.as_dtype(dtype)
    if dtype not in (dtypes.float32, dtypes.float64):
        raise ValueError(f"{name} expects float32 or float64 dtypes, got: {dtype}")
    return dtype


def _window(values, dtype, requires_grad):
    return Tensor(np.asarray(values, np.float64).astype(dtype.np), requires_grad=requires_grad)


def _points(M, start, step):
    """start, start + step, ..., M points (torch builds them with linspace)."""
    return np.linspace(start, start + (M - 1) * step, M)


def exponential(M, *, center=None, tau=1.0, sym=True, dtype=None, layout=strided, device=None,
                requires_grad=False):
    """exp(-|n - center| / tau); center defaults to the window's middle."""
    dtype = _checked_dtype("exponential", M, dtype, layout)
    if tau <= 0:
        raise ValueError(f"Tau must be positive, got: {tau} instead.")
    if sym and center is not None:
        raise ValueError("Center must be None for symmetric windows")
    if center is None:
        center = (M if not sym and M > 1 else M - 1) / 2.0
    k = _points(M, -center / tau, 1 / tau)
    return _window(np.exp(-np.abs(k)), dtype, requires_grad)


def cosine(M, *, sym=True, dtype=None, layout=strided, device=None, requires_grad=False):
    """sin(pi (n + 0.5) / M), the sine window (as SciPy's cosine)."""
    dtype = _checked_dtype("cosine", M, dtype, layout)
    step = math.pi / (M + 1 if not sym and M > 1 else M) if M else 0.0
    return _window(np.sin(_points(M, 0.5 * step, step)), dtype, requires_grad)


def gaussian(M, *, std=1.0, sym=True, dtype=None, layout=strided, device=None,
             requires_grad=False):
    """exp(-n**2 / (2 std**2)) with n measured from the window's middle."""
    dtype = _checked_dtype("gaussian", M, dtype, layout)
    if std <= 0:
        raise ValueError(f"Standard deviation must be positive, got: {std} instead.")
    step = 1 / (std * math.sqrt(2))
    start = -(M if not sym and M > 1 else M - 1) / 2.0
    return _window(np.exp(-_points(M, start * step, step) ** 2), dtype, requires_grad)


def kaiser(M, *, beta=12.0, sym=True, dtype=None, layout=strided, device=None,
           requires_grad=False):
    """I0(beta sqrt(1 - (2n/N - 1)**2)) / I0(beta), N = M - 1 (sym) or M."""
    dtype = _checked_dtype("kaiser", M, dtype, layout)
    if beta < 0:
        raise ValueError(f"beta must be non-negative, got: {beta} instead.")
    if M <= 1:
        return _window(np.ones(M), dtype, requires_grad)
    step = 2.0 * beta / (M if not sym else M - 1)
    k = np.linspace(-beta, min(beta, -beta + (M - 1) * step), M)
    return _window(np.i0(np.sqrt(beta * beta - k * k)) / np.i0(beta), dtype, requires_grad)


def bartlett(M, *, sym=True, dtype=None, layout=strided, device=None, requires_grad=False):
    """The triangular window 1 - |2n / (M - 1) - 1|."""
    dtype = _checked_dtype("bartlett", M, dtype, layout)
    if M <= 1:
        return _window(np.ones(M), dtype, requires_grad)
    return _window(1 - np.abs(_points(M, -1.0, 2 / (M if not sym else M - 1))), dtype,
                   requires_grad)


def general_cosine(M, *, a, sym=True, dtype=None, layout=strided, device=None,
                   requires_grad=False):
    """sum_i (-1)**i a[i] cos(2 pi i n / (M - 1)), the sum of cosines with coefficients a."""
    dtype = _checked_dtype("general_cosine", M, dtype, layout)
    if M <= 1:
        return _window(np.ones(M), dtype, requires_grad)
    if not isinstance(a, collections.abc.Iterable):
        raise TypeError("Coefficients must be a list/tuple")
    a = list(a)
    if not a:
        raise ValueError("Coefficients cannot be empty")
    k = _points(M, 0.0, 2 * math.pi / (M if not sym else M - 1))
    values = sum((-1) ** i * w * np.cos(i * k) for i, w in enumerate(a))
    return _window(values, dtype, requires_grad)


def general_hamming(M, *, alpha=0.54, sym=True, dtype=None, layout=strided, device=None,
                    requires_grad=False):
    """alpha - (1 - alpha) cos(2 pi n / (M - 1))."""
    return general_cosine(M, a=[alpha, 1.0 - alpha], sym=sym, dtype=dtype, layout=layout,
                          requires_grad=requires_grad)


def hamming(M, *, sym=True, dtype=None, layout=strided, device=None, requires_grad=False):
    """The Hamming window, general_hamming with alpha 0.54."""
    return general_hamming(M, sym=sym, dtype=dtype, layout=layout, requires_grad=requires_grad)


def hann(M, *, sym=True, dtype=None, layout=strided, device=None, requires_grad=False):
    """The Hann window, general_hamming with alpha 0.5."""
    return general_hamming(M, alpha=0.5, sym=sym, dtype=dtype, layout=layout,
                           requires_grad=requires_grad)


def blackman(M, *, sym=True, dtype=None, layout=strided, device=None, requires_grad=False):
    """0.42 - 0.5 cos(2 pi n / (M - 1)) + 0.08 cos(4 pi n / (M - 1))."""
    return general_cosine(M, a=[0.42, 0.5, 0.08], sym=sym, dtype=dtype, layout=layout,
                          requires_grad=requires_grad)


def nuttall(M, *, sym=True, dtype=None, layout=strided, device=None, requires_grad=False):
    """Nuttall's minimum 4-term Blackman-Harris window."""
    return general_cosine(M, a=[0.3635819, 0.4891775, 0.1365995, 0.0106411], sym=sym,
                          dtype=dtype, layout=layout, requires_grad=requires_grad)
