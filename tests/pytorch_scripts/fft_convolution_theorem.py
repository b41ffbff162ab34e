"""The convolution theorem checked the way a signal-processing course does: linear convolution by
zero-padded rfft products equals F.conv1d on the flipped kernel, circular convolution by fft,
cross-correlation of two shifted signals finding the lag, a 2-d Gaussian blur by fft2 against
F.conv2d with circular padding, fftn/ifftn over chosen dims, and the gradient of an FFT-based loss
against the same loss written with conv1d."""
import numpy as np
import fluxgrad as torch
import fluxgrad.nn.functional as F

rng = np.random.default_rng(21)
x = torch.from_numpy(rng.normal(size=40).astype(np.float32))
k = torch.tensor([0.25, 0.5, 0.25, -0.1])
n = x.numel() + k.numel() - 1
fft_conv = torch.fft.irfft(torch.fft.rfft(x, n=n) * torch.fft.rfft(k, n=n), n=n)
direct = F.conv1d(x.view(1, 1, -1), k.flip(0).view(1, 1, -1), padding=k.numel() - 1).view(-1)
print(fft_conv.shape, direct.shape, (fft_conv - direct).abs().max() < 1e-5, fft_conv[:5])

a = torch.tensor([1.0, 2.0, 3.0, 4.0])
b = torch.tensor([0.0, 1.0, 0.5, 0.0])
circ = torch.fft.ifft(torch.fft.fft(a) * torch.fft.fft(b)).real
manual = torch.stack([sum(a[j] * b[(i - j) % 4] for j in range(4)) for i in range(4)])
print(circ, manual)

sig = torch.from_numpy(rng.normal(size=64).astype(np.float32))
shifted = torch.roll(sig, shifts=5)
xcorr = torch.fft.irfft(torch.fft.rfft(shifted) * torch.fft.rfft(sig).conj(), n=64)
print("lag", xcorr.argmax().item(), round(xcorr.max().item(), 3))

img = torch.from_numpy(rng.normal(size=(1, 1, 16, 16)).astype(np.float32))
coords = torch.arange(-2, 3, dtype=torch.float32)
g = torch.exp(-coords ** 2 / 2)
kernel2d = torch.outer(g, g) / torch.outer(g, g).sum()
padded = torch.zeros(16, 16)
padded[:5, :5] = kernel2d
padded = torch.roll(padded, shifts=(-2, -2), dims=(0, 1))
blur_fft = torch.fft.ifft2(torch.fft.fft2(img[0, 0]) * torch.fft.fft2(padded)).real
blur_conv = F.conv2d(F.pad(img, (2, 2, 2, 2), mode="circular"), kernel2d.view(1, 1, 5, 5))[0, 0]
print(kernel2d.sum(), (blur_fft - blur_conv).abs().max() < 1e-5, blur_fft[0, :3])

vol = torch.from_numpy(rng.normal(size=(2, 4, 6)).astype(np.float32))
f = torch.fft.fftn(vol, dim=(1, 2))
print(f.shape, torch.allclose(torch.fft.ifftn(f, dim=(1, 2)).real, vol, atol=1e-5), f[0, 0, 0], torch.fft.rfftn(vol).shape, torch.fft.irfftn(torch.fft.rfftn(vol), s=vol.shape).shape)

w1 = torch.tensor([0.3, -0.2, 0.1], requires_grad=True)
w2 = torch.tensor([0.3, -0.2, 0.1], requires_grad=True)
m = x.numel() + 2
loss_fft = torch.fft.irfft(torch.fft.rfft(x, n=m) * torch.fft.rfft(w1, n=m), n=m).pow(2).sum()
loss_conv = F.conv1d(x.view(1, 1, -1), w2.flip(0).view(1, 1, -1), padding=2).pow(2).sum()
loss_fft.backward()
loss_conv.backward()
print(round(loss_fft.item(), 4), round(loss_conv.item(), 4), w1.grad, w2.grad)
