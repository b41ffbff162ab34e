"""Samples for torch.stft / torch.istft (fluxgrad/ops/stft.py), compositions whose records are
the Fourier transforms, `as_strided` (the frames) and `index_scatter` (istft's overlap-add):
centered and not, each pad mode, a window shorter than n_fft, normalized, two-sided,
batched, complex signals; istft of a real and a complex signal, with and without `length`.
Spectra come back as `view_as_real`, as in samples/fft.py."""
import numpy as np

import fluxgrad as fg

from . import Sample, normal


def _hann(n):
    return np.hanning(n + 1)[:-1]


def _window(module, win_length, hann):
    """A Hann window, or none: fluxgrad's default, torch's ones (torch warns without one)."""
    if hann:
        return module.tensor(_hann(win_length))
    return None if module is fg else module.ones(win_length, dtype=module.float64)


def _stft(op, shape, n_fft, *, complex_signal=False, hann=False, **kwargs):
    win_length = kwargs.get("win_length", n_fft)

    def run(module, parts):
        x = module.complex(*parts) if complex_signal else parts[0]
        spectrum = module.stft(x, n_fft, window=_window(module, win_length, hann),
                               return_complex=True, **kwargs)
        return module.view_as_real(spectrum)

    def torch_fn(*parts):
        import torch
        return run(torch, parts)
    args = [normal(*shape, seed=1)] + ([normal(*shape, seed=2)] if complex_signal else [])
    return Sample(op, lambda *parts: run(fg, parts), args, torch_fn)


def _istft(op, shape, n_fft, *, hann=True, **kwargs):
    """istft of a spectrum [..., n_freq, n_frames] built from real pairs."""
    win_length = kwargs.get("win_length", n_fft)

    def run(module, a, b):
        signal = module.istft(module.complex(a, b), n_fft,
                              window=_window(module, win_length, hann), **kwargs)
        return module.view_as_real(signal) if signal.is_complex() else signal

    def torch_fn(a, b):
        import torch
        return run(torch, a, b)
    return Sample(op, lambda a, b: run(fg, a, b), [normal(*shape, seed=3), normal(*shape, seed=4)],
                  torch_fn)


SAMPLES = [
    _stft("fft_r2c", (20,), 8),
    _stft("as_strided", (2, 17), 6, hop_length=3, hann=True, normalized=True),
    _stft("fft_r2c", (12,), 5, center=False, hop_length=2),
    _stft("fft_r2c", (15,), 8, win_length=5, hann=True, pad_mode="replicate"),
    _stft("fft_c2c", (16,), 6, pad_mode="constant", onesided=False),
    _stft("fft_c2c", (2, 14), 4, complex_signal=True, pad_mode="circular"),
    _istft("index_scatter", (5, 7), 8, hop_length=2),
    _istft("fft_c2r", (2, 4, 6), 6, hop_length=3, length=14, normalized=True),
    _istft("index_scatter", (6, 5), 6, hop_length=2, center=False, onesided=False, hann=False),
    _istft("fft_c2c", (6, 5), 6, hop_length=2, return_complex=True, length=9),
]
