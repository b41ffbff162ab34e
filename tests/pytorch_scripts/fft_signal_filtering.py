"""Signal processing with torch.fft the way a DSP notebook does it: a two-tone signal plus NumPy
noise, rfft with rfftfreq to find the peaks, an ideal low-pass filter by zeroing bins and irfft
back (with n= for odd lengths), Parseval's identity, fftshift/ifftshift of a full fft, norm='ortho'
and 'forward', fft over a chosen dim of a batch, and gradients of a spectral-energy loss."""
import math

import numpy as np
import fluxgrad as torch

rng = np.random.default_rng(8)
fs, n = 64.0, 128
t = torch.arange(n, dtype=torch.float32) / fs
noise = torch.from_numpy(rng.normal(0, 0.3, n).astype(np.float32))
signal = torch.sin(2 * math.pi * 5.0 * t) + 0.5 * torch.sin(2 * math.pi * 20.0 * t) + noise

spectrum = torch.fft.rfft(signal)
freqs = torch.fft.rfftfreq(n, d=1 / fs)
print(spectrum.shape, spectrum.dtype, freqs[:6], freqs[-1])
magnitude = spectrum.abs()
top = torch.topk(magnitude, 2)
print("peaks at", freqs[top.indices], top.values.round(decimals=2))

cutoff = 10.0
filtered_spectrum = spectrum.clone()
filtered_spectrum[freqs > cutoff] = 0
smooth = torch.fft.irfft(filtered_spectrum, n=n)
clean = torch.sin(2 * math.pi * 5.0 * t)
print("error before %.4f after %.4f" % ((signal - clean).pow(2).mean(), (smooth - clean).pow(2).mean()))

odd = signal[:101]
back = torch.fft.irfft(torch.fft.rfft(odd), n=101)
print(back.shape, torch.allclose(back, odd, atol=1e-5), torch.fft.irfft(torch.fft.rfft(odd)).shape)

full = torch.fft.fft(signal)
energy_time = signal.pow(2).sum()
energy_freq = full.abs().pow(2).sum() / n
print("Parseval", round(energy_time.item(), 3), round(energy_freq.item(), 3))
print(torch.fft.fftfreq(8), torch.fft.fftshift(torch.fft.fftfreq(8)), torch.fft.ifftshift(torch.fft.fftshift(torch.arange(7))))

x = torch.tensor([1.0, 2.0, 0.0, -1.0])
print(torch.fft.fft(x), torch.fft.fft(x, norm="ortho"), torch.fft.fft(x, norm="forward"))
print(torch.fft.ifft(torch.fft.fft(x)).real, torch.fft.fft(x, n=6), torch.fft.hfft(torch.fft.rfft(x) / 4, n=4))

batch = torch.from_numpy(rng.normal(size=(3, 16)).astype(np.float32))
per_row = torch.fft.rfft(batch, dim=-1)
per_col = torch.fft.fft(batch, dim=0)
print(per_row.shape, per_col.shape, torch.allclose(per_row[1], torch.fft.rfft(batch[1]), atol=1e-5))

w = torch.zeros(16, requires_grad=True)
target = torch.from_numpy(rng.normal(size=16).astype(np.float32))
opt = torch.optim.SGD([w], lr=0.1)
for step in range(4):
    opt.zero_grad()
    high = torch.fft.rfft(w)[4:].abs().pow(2).sum()
    loss = (w - target).pow(2).mean() + 0.01 * high
    loss.backward()
    opt.step()
    print(step, round(loss.item(), 5), w.grad.norm().item())
