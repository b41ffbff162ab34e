"""`fluxgrad.fft`, PyTorch's `torch.fft`: the discrete Fourier transforms and their helpers.

fft / ifft / fft2 / ifft2 / fftn / ifftn (complex to complex), rfft / rfft2 / rfftn (real to
the onesided spectrum), irfft / irfft2 / irfftn (back to real), hfft / hfft2 / hfftn and
ihfft / ihfft2 / ihfftn (a Hermitian signal's spectrum and back), fftfreq / rfftfreq (the
sample frequencies), fftshift / ifftshift (the zero frequency to the middle and back: `roll`).

As in PyTorch: `n` (one dimension) or `s` (several) crops or zero-pads the input along
`dim` first (irfft: the output's length, 2 * (m - 1) by default for m input entries);
`dim` defaults to the last dimension (fft2: the last two; fftn: all, or the last len(s));
`norm` is "backward" (the forward transform unscaled, the inverse scaled by 1/n, the
default), "ortho" (both by 1/sqrt(n)) or "forward" (the forward transform by 1/n). Real and
integer inputs of a complex transform are made complex first; float32 gives complex64 and
float64 complex128. Every transform is differentiable (the records in ops/fft.py).
"""
import numpy as np

from ._core import dtypes
from ._core.dispatch import apply
from ._core.errors import ShapeError, ShapeIndexError
from ._core.tensor import Tensor
from .ops._family import cast_to, float_result, tensor_input
from .ops.complex import conj
from .ops.fft import DUAL, fft_c2c_p, fft_c2r_p, fft_r2c_p
from .ops.shape import narrow, pad_p, roll

__all__ = ["fft", "ifft", "fft2", "ifft2", "fftn", "ifftn", "rfft", "irfft", "rfft2", "irfft2",
           "rfftn", "irfftn", "hfft", "ihfft", "hfft2", "hfftn", "ihfft2", "ihfftn", "fftfreq",
           "rfftfreq", "fftshift", "ifftshift"]


# --- arguments ---------------------------------------------------------------------------
def _norm(norm):
    norm = "backward" if norm is None else norm
    if norm not in DUAL:
        raise RuntimeError(f'Invalid normalization mode: "{norm}"; use "backward" (the '
                           'default), "ortho" or "forward"')
    return norm


def _dims(x, s, dim, op, default_all=True):
    """The transformed dimensions (non-negative, in order) and their sizes (None: as they
    are), from torch's `s` and `dim`."""
    ndim = x.ndim
    if dim is None:
        if s is None:
            if not default_all:
                raise ShapeError(f"{op}: give dim or s")
            dims = tuple(range(ndim))
        else:
            if len(s) > ndim:
                raise ShapeError(f"{op}: got shape with {len(s)} values but input tensor only "
                                 f"has {ndim} dimensions")
            dims = tuple(range(ndim - len(s), ndim))
    else:
        dims = (dim,) if isinstance(dim, int) else tuple(dim)
        if s is not None and len(s) != len(dims):
            raise ShapeError(f"{op}: when given, dim and shape arguments must have the same "
                             f"length (dim {dims}, s {tuple(s)})")
        resolved = []
        for d in dims:
            if not -max(ndim, 1) <= d < max(ndim, 1) or not ndim:
                raise ShapeIndexError(f"{op}: dimension {d} is out of range for a tensor of "
                                      f"{ndim} dimensions")
            resolved.append(d % ndim)
        dims = tuple(resolved)
        if len(set(dims)) != len(dims):
            raise ShapeError(f"{op}: FFT dims must be unique, got {dims}")
    sizes = (None,) * len(dims) if s is None else tuple(s)
    for n in sizes:
        if n is not None and n != -1 and n < 1:
            raise ShapeError(f"{op}: Invalid number of data points ({n}) specified; give a "
                             "positive n / s")
    return dims, tuple(None if n == -1 else n for n in sizes)


def _resized(x, dims, sizes):
    """`x` cropped or zero-padded to `sizes` along `dims` (None: as it is)."""
    widths = [(0, 0)] * x.ndim
    for d, n in zip(dims, sizes):
        if n is None or n == x.shape[d]:
            continue
        if n < x.shape[d]:
            x = narrow(x, d, 0, n)
        else:
            widths[d] = (0, n - x.shape[d])
    if any(after for _, after in widths):
        x = apply(pad_p, x, widths=tuple(widths), value=0.0)
    return x


def _as_complex(x):
    x = float_result(x)
    if x._data.dtype.kind == "c":
        return x
    return cast_to(x, dtypes.to_complex(dtypes.to_real(x.dtype)))


def _as_real(x, op):
    if x._data.dtype.kind == "c":
        raise RuntimeError(f"{op} expects a real input tensor, but got {x.dtype}; take "
                           "x.real or x.abs() first, or use fft for a complex input")
    x = float_result(x)
    if x._data.dtype.itemsize < 4:
        x = cast_to(x, dtypes.float32)
    return x


# --- the transforms ----------------------------------------------------------------------
def _complex_to_complex(x, s, dim, norm, forward, op, default_all=True):
    x = tensor_input(x, op)
    dims, sizes = _dims(x, s, dim, op, default_all)
    x = _resized(_as_complex(x), dims, sizes)
    return apply(fft_c2c_p, x, dims=dims, norm=_norm(norm), forward=forward)


def _real_to_complex(x, s, dim, norm, op):
    x = _as_real(tensor_input(x, op), op)
    dims, sizes = _dims(x, s, dim, op)
    return apply(fft_r2c_p, _resized(x, dims, sizes), dims=dims, norm=_norm(norm))


def _complex_to_real(x, s, dim, norm, op):
    x = tensor_input(x, op)
    dims, sizes = _dims(x, s, dim, op)
    n = sizes[-1] if sizes and sizes[-1] is not None else 2 * (x.shape[dims[-1]] - 1)
    if n < 1:
        raise ShapeError(f"{op}: Invalid number of data points ({n}) specified; an input of "
                         f"{x.shape[dims[-1]]} entries along dim {dims[-1]} needs n")
    x = _resized(_as_complex(x), dims, sizes[:-1] + (n // 2 + 1,))
    return apply(fft_c2r_p, x, dims=dims, norm=_norm(norm), n=n)


def _one(n):
    return None if n is None else (n,)


def fft(input, n=None, dim=-1, norm=None):
    """The discrete Fourier transform along `dim`."""
    return _complex_to_complex(input, _one(n), dim, norm, True, "fft")


def ifft(input, n=None, dim=-1, norm=None):
    """The inverse discrete Fourier transform along `dim`."""
    return _complex_to_complex(input, _one(n), dim, norm, False, "ifft")


def fft2(input, s=None, dim=(-2, -1), norm=None):
    """The two-dimensional transform (over the last two dimensions by default)."""
    return _complex_to_complex(input, s, dim, norm, True, "fft2")


def ifft2(input, s=None, dim=(-2, -1), norm=None):
    return _complex_to_complex(input, s, dim, norm, False, "ifft2")


def fftn(input, s=None, dim=None, norm=None):
    """The N-dimensional transform (over every dimension, or the last len(s), by default)."""
    return _complex_to_complex(input, s, dim, norm, True, "fftn")


def ifftn(input, s=None, dim=None, norm=None):
    return _complex_to_complex(input, s, dim, norm, False, "ifftn")


def rfft(input, n=None, dim=-1, norm=None):
    """The transform of a real signal: the n // 2 + 1 non-negative frequencies."""
    return _real_to_complex(input, _one(n), dim, norm, "rfft")


def rfft2(input, s=None, dim=(-2, -1), norm=None):
    return _real_to_complex(input, s, dim, norm, "rfft2")


def rfftn(input, s=None, dim=None, norm=None):
    return _real_to_complex(input, s, dim, norm, "rfftn")


def irfft(input, n=None, dim=-1, norm=None):
    """The inverse of rfft: a real signal of length n (2 * (m - 1) for m input entries)."""
    return _complex_to_real(input, _one(n), dim, norm, "irfft")


def irfft2(input, s=None, dim=(-2, -1), norm=None):
    return _complex_to_real(input, s, dim, norm, "irfft2")


def irfftn(input, s=None, dim=None, norm=None):
    return _complex_to_real(input, s, dim, norm, "irfftn")


def _hermitian_to_real(input, s, dim, norm, op):
    # the forward transform of a Hermitian signal is the inverse one of its conjugate, with
    # the dual scaling (over several dims too: the conjugate of a Hermitian signal is one)
    return _complex_to_real(conj(tensor_input(input, op)), s, dim, DUAL[_norm(norm)], op)


def _real_to_hermitian(input, s, dim, norm, op):
    x = _as_real(tensor_input(input, op), op)
    return conj(_real_to_complex(x, s, dim, DUAL[_norm(norm)], op))


def hfft(input, n=None, dim=-1, norm=None):
    """The (real) transform of a signal with Hermitian symmetry, given by its first half."""
    return _hermitian_to_real(input, _one(n), dim, norm, "hfft")


def ihfft(input, n=None, dim=-1, norm=None):
    """The inverse of hfft: the first half of a real signal's inverse transform."""
    return _real_to_hermitian(input, _one(n), dim, norm, "ihfft")


def hfft2(input, s=None, dim=(-2, -1), norm=None):
    """hfftn over the last two dimensions by default."""
    return _hermitian_to_real(input, s, dim, norm, "hfft2")


def hfftn(input, s=None, dim=None, norm=None):
    """The (real) N-dimensional transform of a signal with Hermitian symmetry, given by its
    first half along the last of `dim` (2 * (m - 1) entries there by default)."""
    return _hermitian_to_real(input, s, dim, norm, "hfftn")


def ihfft2(input, s=None, dim=(-2, -1), norm=None):
    """ihfftn over the last two dimensions by default."""
    return _real_to_hermitian(input, s, dim, norm, "ihfft2")


def ihfftn(input, s=None, dim=None, norm=None):
    """The inverse of hfftn: the N-dimensional inverse transform of a real signal, its first
    half (n // 2 + 1 entries) along the last of `dim`."""
    return _real_to_hermitian(input, s, dim, norm, "ihfftn")


# --- frequencies and shifts --------------------------------------------------------------
def fftfreq(n, d=1.0, *, dtype=None, device=None, requires_grad=False, **kwargs):
    """The sample frequencies of an n-point transform, [0, 1, ..., -1] / (d * n)."""
    k = np.concatenate((np.arange(0, (n - 1) // 2 + 1), np.arange(-(n // 2), 0)))
    return _frequencies(k / (d * n), dtype, requires_grad)


def rfftfreq(n, d=1.0, *, dtype=None, device=None, requires_grad=False, **kwargs):
    """The non-negative sample frequencies of an n-point real transform."""
    return _frequencies(np.arange(0, n // 2 + 1) / (d * n), dtype, requires_grad)


def _frequencies(values, dtype, requires_grad):
    return Tensor(values, dtype=dtypes.default_float if dtype is None else dtype,
                  requires_grad=requires_grad)


def _shifted(input, dim, half):
    dims = tuple(range(input.ndim)) if dim is None else (dim,) if isinstance(dim, int) \
        else tuple(dim)
    if not dims:
        return input.clone()
    shifts = [half(input.shape[d]) for d in dims]
    return roll(input, shifts, dims)


def fftshift(input, dim=None):
    """input rolled by size // 2 along each of `dim`: the zero frequency moves to the middle."""
    return _shifted(input, dim, lambda n: n // 2)


def ifftshift(input, dim=None):
    """The inverse of fftshift: input rolled by (size + 1) // 2 along each of `dim`."""
    return _shifted(input, dim, lambda n: (n + 1) // 2)

