"""A spectrogram without torch.stft, as audio notebooks build one: frames by Tensor.unfold with a
hop, a periodic Hann window (torch.hann_window), rfft per frame, power and log-magnitude in dB,
a triangular mel filterbank built with torch.linspace and clamp, MFCC-style DCT-II by a cosine
matrix, the phase with angle() and a Griffin-Lim-free reconstruction by overlap-add of irfft."""
import math

import numpy as np
import fluxgrad as torch

rng = np.random.default_rng(3)
sr, n_fft, hop = 800, 64, 16
t = torch.arange(0, 800, dtype=torch.float32) / sr
chirp = torch.sin(2 * math.pi * (50 * t + 100 * t ** 2))
wave = chirp + 0.05 * torch.from_numpy(rng.normal(size=800).astype(np.float32))

window = torch.hann_window(n_fft)
print(window[:4], window.sum(), torch.hann_window(5, periodic=False), torch.hamming_window(4))
frames = wave.unfold(0, n_fft, hop)
print(frames.shape, frames.stride(), torch.equal(frames[1], wave[hop:hop + n_fft]))
spec = torch.fft.rfft(frames * window, dim=-1)
power = spec.abs() ** 2
db = 10 * torch.log10(power.clamp(min=1e-10))
print(spec.shape, power.shape, db.max().item(), db.mean().item())
peak_bins = power.argmax(dim=-1)
print(peak_bins[::8], (peak_bins[::8] * sr / n_fft))


def hz_to_mel(f):
    return 2595.0 * torch.log10(1.0 + f / 700.0)


def mel_to_hz(m):
    return 700.0 * (10 ** (m / 2595.0) - 1.0)


def mel_filterbank(n_mels, n_freqs, sample_rate):
    fft_freqs = torch.linspace(0, sample_rate / 2, n_freqs)
    mel_pts = torch.linspace(hz_to_mel(torch.tensor(0.0)).item(), hz_to_mel(torch.tensor(sample_rate / 2)).item(), n_mels + 2)
    hz_pts = mel_to_hz(mel_pts)
    lower, center, upper = hz_pts[:-2, None], hz_pts[1:-1, None], hz_pts[2:, None]
    up = (fft_freqs - lower) / (center - lower)
    down = (upper - fft_freqs) / (upper - center)
    return torch.clamp(torch.minimum(up, down), min=0.0)


fb = mel_filterbank(10, n_fft // 2 + 1, sr)
mel = power @ fb.T
log_mel = torch.log(mel + 1e-6)
print(fb.shape, fb.sum(dim=1), log_mel.shape, log_mel[0])

n_mfcc, n_mels = 5, 10
k = torch.arange(n_mfcc, dtype=torch.float32).unsqueeze(1)
n = torch.arange(n_mels, dtype=torch.float32).unsqueeze(0)
dct = torch.cos(math.pi / n_mels * (n + 0.5) * k) * math.sqrt(2.0 / n_mels)
dct[0] /= math.sqrt(2.0)
mfcc = log_mel @ dct.T
print(mfcc.shape, mfcc.mean(dim=0), (dct @ dct.T).diagonal())

phase = spec.angle()
rebuilt_frames = torch.fft.irfft(spec.abs() * torch.exp(1j * phase), n=n_fft)
out = torch.zeros(800)
norm = torch.zeros(800)
for i in range(rebuilt_frames.shape[0]):
    out[i * hop:i * hop + n_fft] += rebuilt_frames[i] * window
    norm[i * hop:i * hop + n_fft] += window ** 2
middle = slice(n_fft, 800 - n_fft)
recon = out[middle] / norm[middle]
print(phase.shape, phase.dtype, (recon - wave[middle]).abs().max() < 1e-4)
