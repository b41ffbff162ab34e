"""The discrete Fourier transforms as three primitives, each linear, its VJP the adjoint
transform (PyTorch's convention for complex gradients, see ops/complex.py):

- `fft_c2c`: complex to complex over `dims`, forward or inverse. The adjoint of a transform
  scaled by `norm` is the opposite transform with the dual scaling (backward <-> forward,
  ortho <-> ortho).
- `fft_r2c`: real to the onesided spectrum (the last of `dims` keeps n // 2 + 1 entries).
  Its adjoint zero-pads the spectrum back to n, applies the inverse transform with the dual
  scaling and keeps the real part.
- `fft_c2r`: a onesided spectrum to a real signal of length `n` along the last of `dims`
  (the other half filled by conjugate symmetry). Its adjoint is `fft_r2c` with the dual
  scaling, the entries whose mirror image lies outside the onesided range doubled.

The impls are NumPy's (pocketfft), cast to PyTorch's dtypes (float32 -> complex64). The
public functions (fluxgrad.fft) resize the input (`n` / `s`: crop or zero-pad) with ordinary
ops first, so the records only see full-length transforms.
"""
import numpy as np

from .._core.dispatch import apply
from .._core.tensor import Tensor
from ._batch import along_axes
from ._family import linear
from .complex import real_p
from .shape import pad_p

DUAL = {"backward": "forward", "forward": "backward", "ortho": "ortho"}


def _complex_dtype(x):
    return np.complex128 if x.dtype in (np.float64, np.complex128) else np.complex64


def _c2c(x, *, dims, norm, forward):
    transform = np.fft.fftn if forward else np.fft.ifftn
    return transform(x, axes=dims, norm=norm).astype(_complex_dtype(x), copy=False)


def _r2c(x, *, dims, norm):
    return np.fft.rfftn(x, axes=dims, norm=norm).astype(_complex_dtype(x), copy=False)


def _c2r(x, *, dims, norm, n):
    sizes = [x.shape[d] for d in dims[:-1]] + [n]
    out = np.fft.irfftn(x, s=sizes, axes=dims, norm=norm)
    return out.astype(np.float64 if x.dtype == np.complex128 else np.float32, copy=False)


def _c2c_transpose(out_bar, x, *, dims, norm, forward):
    return apply(fft_c2c_p, out_bar, dims=dims, norm=DUAL[norm], forward=not forward)


def _r2c_transpose(out_bar, x, *, dims, norm):
    last = dims[-1]
    widths = [(0, 0)] * out_bar.ndim
    widths[last] = (0, x.shape[last] - out_bar.shape[last])
    full = apply(pad_p, out_bar, widths=tuple(widths), value=0.0)
    return apply(real_p, apply(fft_c2c_p, full, dims=dims, norm=DUAL[norm], forward=False))


def _c2r_transpose(out_bar, x, *, dims, norm, n):
    last = dims[-1]
    x_bar = apply(fft_r2c_p, out_bar, dims=dims, norm=DUAL[norm])
    onesided = x_bar.shape[last]
    doubled = n - onesided  # entries 1 .. n - onesided stand for themselves and their mirror
    if doubled <= 0:
        return x_bar
    scale = np.ones(onesided, out_bar.dtype.np)
    scale[1:1 + doubled] = 2
    shape = [1] * x_bar.ndim
    shape[last] = onesided
    return x_bar * Tensor._make(scale.reshape(shape))


fft_c2c_p = linear("fft_c2c", _c2c, _c2c_transpose, batch=along_axes("fft_c2c", "dims"))
fft_r2c_p = linear("fft_r2c", _r2c, _r2c_transpose, batch=along_axes("fft_r2c", "dims"))
fft_c2r_p = linear("fft_c2r", _c2r, _c2r_transpose, batch=along_axes("fft_c2r", "dims"))
