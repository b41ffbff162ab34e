"""Samples for the Fourier transforms (fluxgrad/ops/fft.py through fluxgrad.fft): every norm,
forward and inverse, crops and zero-pads (`n` / `s`), one and several dimensions, odd and even
lengths (irfft's doubled entries differ). Complex inputs are built from real pairs and
complex outputs returned as `view_as_real`, as in samples/complex.py."""
import fluxgrad as fg

from . import Sample, normal


def _pair(*shape, seed=0):
    return [normal(*shape, seed=seed), normal(*shape, seed=seed + 1)]


def _fg(name, **kwargs):
    return lambda z: getattr(fg.fft, name)(z, **kwargs)


def _torch(name, **kwargs):
    def fn(z):
        import torch
        return getattr(torch.fft, name)(z, **kwargs)
    return fn


def _as_real(out, module):
    return module.view_as_real(out.resolve_conj()) if out.is_complex() else out


def _complex_in(op, name, shape, **kwargs):
    def ours(a, b):
        return _as_real(_fg(name, **kwargs)(fg.complex(a, b)), fg)

    def theirs(a, b):
        import torch
        return _as_real(_torch(name, **kwargs)(torch.complex(a, b)), torch)
    return Sample(op, ours, _pair(*shape), torch_fn=theirs)


def _real_in(op, name, shape, **kwargs):
    def theirs(x):
        import torch
        return _as_real(_torch(name, **kwargs)(x), torch)
    return Sample(op, lambda x: _as_real(_fg(name, **kwargs)(x), fg), [normal(*shape)],
                  torch_fn=theirs)


SAMPLES = [
    _complex_in("fft_c2c", "fft", (5,)),
    _complex_in("fft_c2c", "ifft", (2, 4), norm="ortho"),
    _complex_in("fft_c2c", "fft", (3, 4), n=6, dim=0, norm="forward"),
    _complex_in("fft_c2c", "fft2", (3, 4), s=(2, 5)),
    _complex_in("fft_c2c", "ifftn", (2, 3, 2), norm="forward"),
    _real_in("fft_c2c", "fftn", (3, 4), dim=(1,), norm="ortho"),
    _real_in("fft_r2c", "rfft", (6,)),
    _real_in("fft_r2c", "rfft", (2, 5), norm="ortho"),
    _real_in("fft_r2c", "rfft", (4, 3), n=6, dim=0, norm="forward"),
    _real_in("fft_r2c", "rfft2", (3, 4), s=(2, 3)),
    _real_in("fft_r2c", "rfftn", (2, 3, 4)),
    _real_in("fft_r2c", "ihfft", (5,), norm="ortho"),
    _complex_in("fft_c2r", "irfft", (4,)),
    _complex_in("fft_c2r", "irfft", (2, 4), n=7, norm="ortho"),
    _complex_in("fft_c2r", "irfft", (3, 2), n=4, dim=0, norm="forward"),
    _complex_in("fft_c2r", "irfft2", (3, 3), s=(3, 5)),
    _complex_in("fft_c2r", "irfftn", (2, 2, 3)),
    _complex_in("fft_c2r", "hfft", (4,), n=5),
    _complex_in("fft_c2r", "hfft2", (3, 4)),
    _complex_in("fft_c2r", "hfftn", (2, 3, 4), s=(3, 6), dim=(0, 2), norm="ortho"),
    _real_in("fft_r2c", "ihfft2", (3, 4)),
    _real_in("fft_r2c", "ihfftn", (2, 3, 5), norm="forward"),
]
