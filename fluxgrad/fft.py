"""`fluxgrad.fft`, the real-valued part of PyTorch's `torch.fft`: `fftshift` and `ifftshift`,
which move the zero-frequency entry of a spectrum to the middle and back.

Both are `roll` by half of each dimension's size (rounded down for fftshift, up for ifftshift),
so they keep the input's dtype and are differentiable, as torch's. `dim` is an int or a
sequence of ints, all dimensions by default. The transforms themselves (fft, rfft, ...) need
complex dtypes and are not built.
"""
from .ops.shape import roll

__all__ = ["fftshift", "ifftshift"]


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
