"""Strides and views: stride() / storage_offset() / is_contiguous of views, as_strided for
sliding windows, overlapping windows and the transpose, unfold windows that write through to
their base, gradients through both, and a 1-d convolution written with unfold."""
import numpy as np
import fluxgrad as torch
import fluxgrad.nn.functional as F

x = torch.arange(12.).reshape(3, 4)
print(x.stride(), x.storage_offset(), x.is_contiguous())
print(x.t().stride(), x.t().is_contiguous(), x[1:].storage_offset(), x[:, 1:].stride())
print(torch.as_strided(x, (2, 2), (1, 2)))
print(x.as_strided((3, 3), (4, 1), 1))
print(x.as_strided((4, 3), (1, 4)), torch.equal(x.as_strided((4, 3), (1, 4)), x.t()))
print(torch.arange(6.).as_strided((4, 3), (1, 1)))
print(x[1:].as_strided((2, 2), (1, 2)), x[1:].as_strided((2,), (1,), 5))
signal = torch.arange(1., 11.)
windows = signal.unfold(0, 4, 2)
print(windows, windows.shape)
print(x.unfold(1, 2, 2), x.unfold(0, 2, 1).shape)
windows[0, 0] = 100.
print(signal)
v = torch.arange(1., 7.)
w = v.unfold(0, 2, 2)
w.mul_(10)
print(v)
t = torch.tensor([0.5, -1.0, 2.0, 3.0, 1.5, -2.0], requires_grad=True)
(t.as_strided((3, 3), (1, 1)) ** 2).sum().backward()
print(t.grad)
t.grad = None
t.unfold(0, 3, 1).prod(-1).sum().backward()
print(t.grad)
rng = np.random.default_rng(17)
sig = torch.from_numpy(rng.standard_normal((2, 1, 9)).astype(np.float32))
kernel = torch.from_numpy(rng.standard_normal((1, 1, 3)).astype(np.float32))
by_unfold = (sig.unfold(2, 3, 2) * kernel.view(1, 1, 1, 3)).sum(-1)
print(torch.allclose(by_unfold, F.conv1d(sig, kernel, stride=2), atol=1e-6), by_unfold.shape)
img = torch.arange(16.).view(1, 1, 4, 4)
patches = img.unfold(2, 2, 2).unfold(3, 2, 2)
print(patches.shape, patches[0, 0, 1, 0])
print(patches.contiguous().view(1, 1, 4, 4).sum(-1))
c = x.t().contiguous()
print(c.stride(), c.is_contiguous(), x.t().reshape(-1))
e = torch.zeros(3, 1).expand(3, 4)
print(e.stride(), e.is_contiguous())
n = x.narrow(1, 1, 2)
print(n, n.stride(), n.storage_offset())
