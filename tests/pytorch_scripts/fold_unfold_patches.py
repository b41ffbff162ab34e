"""Patch extraction and reassembly with unfold / fold, as vision-transformer and image-denoising
code does: nn.Unfold into [N, C*k*k, L] columns, a ViT patch embedding by unfold + Linear equal to
a strided Conv2d, nn.Fold putting non-overlapping patches back exactly, overlapping patches
averaged by dividing by fold(unfold(ones)), dilation / padding / stride options, conv2d written as
unfold + matmul + view (checked against F.conv2d), Tensor.unfold for sliding windows and the
gradient through fold/unfold."""
import numpy as np
import fluxgrad as torch
import fluxgrad.nn as nn
import fluxgrad.nn.functional as F

rng = np.random.default_rng(67)
img = torch.from_numpy(rng.standard_normal((2, 3, 8, 8)).astype(np.float32))
unfold = nn.Unfold(kernel_size=4, stride=4)
cols = unfold(img)
print(unfold, cols.shape, cols[0, :5, 0])
patches = cols.transpose(1, 2)
print(patches.shape)
fold = nn.Fold(output_size=(8, 8), kernel_size=4, stride=4)
print(fold, torch.equal(fold(cols), img))

proj = nn.Linear(3 * 4 * 4, 6)
conv = nn.Conv2d(3, 6, kernel_size=4, stride=4)
with torch.no_grad():
    proj.weight.copy_(torch.from_numpy(rng.uniform(-0.2, 0.2, (6, 48)).astype(np.float32)))
    proj.bias.copy_(torch.from_numpy(rng.uniform(-0.2, 0.2, 6).astype(np.float32)))
    conv.weight.copy_(proj.weight.view(6, 3, 4, 4))
    conv.bias.copy_(proj.bias)
tokens = proj(patches)
conv_tokens = conv(img).flatten(2).transpose(1, 2)
print(tokens.shape, torch.allclose(tokens, conv_tokens, atol=1e-5), tokens[1, 2])

over = F.unfold(img, kernel_size=3, stride=1, padding=1)
print(over.shape)
counts = F.fold(F.unfold(torch.ones(1, 1, 8, 8), 3, padding=1), (8, 8), 3, padding=1)
print(counts[0, 0, :3, :3])
recon = F.fold(over, (8, 8), 3, padding=1) / counts
print(torch.allclose(recon, img, atol=1e-6))
print(F.unfold(img, kernel_size=(2, 3), dilation=2, stride=(2, 1)).shape, F.unfold(img[:, :1], 2, stride=3)[0, :, :3])

weight = torch.from_numpy(rng.standard_normal((5, 3, 3, 3)).astype(np.float32))
inp_unf = F.unfold(img, 3, padding=1)
out_unf = inp_unf.transpose(1, 2).matmul(weight.view(5, -1).t()).transpose(1, 2)
out = out_unf.view(2, 5, 8, 8)
print(torch.allclose(out, F.conv2d(img, weight, padding=1), atol=1e-4), out[0, 1, 0, :3])

series = torch.arange(10.0)
windows = series.unfold(0, 4, 2)
print(windows, windows.mean(1))
x = torch.arange(16.0).view(1, 1, 4, 4)
print(x.unfold(2, 2, 2).unfold(3, 2, 2).shape)
print(x.unfold(2, 2, 2).unfold(3, 2, 2)[0, 0, 1, 0])

src = img.clone().requires_grad_()
u = F.unfold(src, 3, stride=2, padding=1)
(u * torch.linspace(0, 1, u.shape[-1])).sum().backward()
print(src.grad[0, 0, :3, :3])
c = over.clone().requires_grad_()
F.fold(c, (8, 8), 3, padding=1).pow(2).sum().backward()
print(c.grad[0, :3, :3])
