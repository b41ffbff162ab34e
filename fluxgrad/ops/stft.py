"""The short-time Fourier transform and its inverse, as torch.stft / torch.istft.

Both are compositions of differentiable ops (padding, `unfold`, a product with the window,
`fft.rfft` / `fft.fft` and back, an overlap-add that is a scatter-add of the frames), so
their gradients, forward-mode tangents and vmap come from those ops' rules; no record of
their own. Shapes and defaults are PyTorch's: a signal [L] or [B, L] gives a spectrum
[n_freq, n_frames] or [B, n_freq, n_frames], with n_freq = n_fft // 2 + 1 (onesided, the
default for real signals and windows) or n_fft, n_frames = 1 + (L - n_fft) // hop_length
(L counted after center padding of n_fft // 2 on each side). A window shorter than n_fft
is zero-padded on both sides to n_fft; no window is a rectangular one. `normalized`
scales by n_fft ** -0.5 (the "ortho" norm). As PyTorch, a real signal needs
return_complex (False gives `view_as_real` of the spectrum).
"""
import numpy as np

from .._core.dispatch import apply
from .._core.tensor import Tensor, tensor_method
from .indexing import ARRAY, index_scatter_p
from .complex import real, view_as_real
from .shape import movedim, narrow, pad, reshape, unfold

__all__ = ["stft", "istft"]


def _signature(op, x, n_fft, hop_length, win_length):
    return (f"{op}(input of shape {list(x.shape)} and dtype {x.dtype}, n_fft={n_fft}, "
            f"hop_length={hop_length}, win_length={win_length})")


def _lengths(op, x, n_fft, hop_length, win_length):
    hop_length = n_fft // 4 if hop_length is None else hop_length
    win_length = n_fft if win_length is None else win_length
    where = _signature(op, x, n_fft, hop_length, win_length)
    if hop_length <= 0:
        raise RuntimeError(f"{where}: expected hop_length > 0, but got hop_length={hop_length}")
    if not 0 < win_length <= n_fft:
        raise RuntimeError(f"{where}: expected 0 < win_length <= n_fft, but got "
                           f"win_length={win_length}")
    return hop_length, win_length


def _full_window(op, window, x, n_fft, hop_length, win_length, dtype):
    """The window zero-padded (centered) to n_fft; no window is ones of win_length."""
    if window is None:
        from ..creation import ones
        window = ones(win_length, dtype=dtype)
    elif window.ndim != 1 or window.shape[0] != win_length:
        raise RuntimeError(f"{_signature(op, x, n_fft, hop_length, win_length)}: expected a 1D "
                           f"window tensor of size equal to win_length={win_length}, but got "
                           f"window with size {list(window.shape)}")
    if win_length < n_fft:
        left = (n_fft - win_length) // 2
        window = pad(window, (left, n_fft - win_length - left))
    return window


def _real_dtype(x):
    return real(x).dtype if x.dtype.is_complex else x.dtype


def _is_complex(t):
    return t is not None and t.dtype.is_complex


@tensor_method("stft")
def stft(input, n_fft, hop_length=None, win_length=None, window=None, center=True,
         pad_mode="reflect", normalized=False, onesided=None, return_complex=None,
         align_to_window=None):
    """The short-time Fourier transform of a signal [L] or a batch [B, L], as torch.stft
    (see the module docstring): the spectrum of each frame of n_fft entries, hop_length
    apart, times the window. `center` pads the signal by n_fft // 2 on each side first
    (`pad_mode`: 'reflect', 'constant', 'replicate' or 'circular')."""
    x = input
    complex_case = _is_complex(x) or _is_complex(window)
    if return_complex is None:
        if not complex_case:
            raise RuntimeError("stft requires the return_complex parameter be given for real "
                               "inputs, and will further require that return_complex=True in "
                               "a future PyTorch release.")
        return_complex = True
    if align_to_window:
        raise NotImplementedError("stft: align_to_window=True is not supported; leave it None "
                                  "(frames start at the signal's start)")
    hop_length, win_length = _lengths("stft", x, n_fft, hop_length, win_length)
    if x.ndim not in (1, 2):
        raise RuntimeError(f"{_signature('stft', x, n_fft, hop_length, win_length)}: expected "
                           "a 1D or 2D tensor")
    if center:
        half = n_fft // 2
        padded = pad(reshape(x, (1,) * (3 - x.ndim) + tuple(x.shape)), (half, half), pad_mode)
        x = reshape(padded, padded.shape[3 - x.ndim:])
    length = x.shape[-1]
    if not 0 < n_fft <= length:
        raise RuntimeError(f"{_signature('stft', x, n_fft, hop_length, win_length)}: expected "
                           f"0 < n_fft < {length}, but got n_fft={n_fft}")
    onesided = not complex_case if onesided is None else onesided
    if onesided and complex_case:
        raise RuntimeError("Cannot have onesided output if window or input is complex")
    frames = unfold(x, -1, n_fft, hop_length)  # [..., n_frames, n_fft]
    if window is not None or win_length < n_fft:
        frames = frames * _full_window("stft", window, x, n_fft, hop_length, win_length,
                                       _real_dtype(x))
    from .. import fft
    norm = "ortho" if normalized else "backward"
    spectrum = (fft.rfft if onesided else fft.fft)(frames, dim=-1, norm=norm)
    spectrum = movedim(spectrum, -1, -2)
    return spectrum if return_complex else view_as_real(spectrum)


def _overlap_add(frames, hop_length):
    """The frames [..., n_frames, n_fft] added at offsets hop_length apart: [..., length]."""
    n_frames, n_fft = frames.shape[-2:]
    length = n_fft + hop_length * (n_frames - 1)
    at = np.arange(n_frames)[:, None] * hop_length + np.arange(n_fft)
    batch = tuple(frames.shape[:-2])
    columns = movedim(reshape(frames, (-1, n_frames, n_fft)), 0, -1)  # [n_frames, n_fft, B]
    out = apply(index_scatter_p, columns, at, index=(ARRAY,),
                shape=(length, columns.shape[-1]))
    return reshape(movedim(out, -1, 0), batch + (length,))


@tensor_method("istft")
def istft(input, n_fft, hop_length=None, win_length=None, window=None, center=True,
          normalized=False, onesided=None, length=None, return_complex=False):
    """The inverse of stft, as torch.istft: a spectrum [n_freq, n_frames] (or a batch of
    them) back to the signal, by the inverse transform of each frame, times the window,
    overlap-added and divided by the overlap-added squared window. `length` trims (or
    zero-pads) the signal to that many entries; `return_complex=True` inverts a two-sided
    spectrum into a complex signal."""
    x = input
    if not _is_complex(x):
        raise RuntimeError("istft requires a complex-valued input tensor matching the output "
                           "from stft with return_complex=True.")
    hop_length, win_length = _lengths("istft", x, n_fft, hop_length, win_length)
    where = _signature("istft", x, n_fft, hop_length, win_length)
    if x.ndim not in (2, 3):
        raise RuntimeError(f"{where}: expected a tensor with 2 or 3 dimensions of complex "
                           f"dtype, but got shape {list(x.shape)}")
    n_freq = x.shape[-2]
    onesided = n_freq != n_fft if onesided is None else onesided
    if onesided and n_freq != n_fft // 2 + 1:
        raise RuntimeError(f"{where}: expected the frequency dimension (3rd to the last) of "
                           "the input tensor to match n_fft / 2 + 1 when onesided=True, but "
                           f"got {n_freq}")
    if not onesided and n_freq != n_fft:
        raise RuntimeError(f"{where}: expected the frequency dimension (3rd to the last) of "
                           f"the input tensor to match n_fft when onesided=False, but got "
                           f"{n_freq}")
    window = _full_window("istft", window, x, n_fft, hop_length, win_length, _real_dtype(x))
    from .. import fft
    norm = "ortho" if normalized else "backward"
    frames = movedim(x, -2, -1)  # [..., n_frames, n_freq]
    if return_complex:
        if onesided:
            raise RuntimeError("Cannot have onesided output if window or input is complex")
        frames = fft.ifft(frames, dim=-1, norm=norm)
    else:
        if _is_complex(window):
            raise RuntimeError("Complex windows are incompatible with return_complex=False")
        if not onesided:
            frames = narrow(frames, -1, 0, n_fft // 2 + 1)
        frames = fft.irfft(frames, n_fft, dim=-1, norm=norm)
    n_frames = frames.shape[-2]
    signal = _overlap_add(frames * window, hop_length)
    envelope = _overlap_add(reshape(window * window, (1, 1, n_fft)).expand(1, n_frames, n_fft),
                            hop_length)[0]
    expected = n_fft + hop_length * (n_frames - 1)
    start = n_fft // 2 if center else 0
    end = start + length if length is not None else expected - n_fft // 2 if center \
        else expected
    signal = signal[..., start:end]
    envelope = envelope[start:end]
    if type(envelope) is Tensor:  # (a traced or batched envelope has no values to check)
        lowest = float(np.abs(envelope._data).min()) if envelope.shape[0] else 1.0
        if lowest < 1e-11:
            raise RuntimeError(f"{where}: window overlap add min: {lowest:g} (the window, "
                               f"hop_length and center leave samples the frames don't cover; "
                               "use a window that is nonzero where the frames overlap)")
    signal = signal / envelope
    if length is not None and end > expected:
        signal = pad(signal, (0, end - expected))
    return signal
