"""Convolution shape arithmetic people check by printing: Conv2d with padding='same' and dilation
(odd and even kernels), padding='valid', asymmetric stride/padding tuples, groups and depthwise
multipliers, padding_mode 'circular' / 'reflect' / 'replicate', ConvTranspose2d with
output_padding and with forward(x, output_size=...) to undo a strided conv, Conv3d and
ConvTranspose1d, and the out = floor((in + 2p - d(k-1) - 1)/s) + 1 formula against the layers."""
import math

import numpy as np
import fluxgrad as torch
import fluxgrad.nn as nn

rng = np.random.default_rng(109)


def init(m):
    with torch.no_grad():
        for p in m.parameters():
            p.copy_(torch.from_numpy(rng.normal(0, 0.3, tuple(p.shape)).astype(np.float32)))
    return m


def out_size(n, k, s=1, p=0, d=1):
    return math.floor((n + 2 * p - d * (k - 1) - 1) / s) + 1


x = torch.from_numpy(rng.normal(0, 1, (1, 2, 7, 9)).astype(np.float32))
for k, d in [(3, 1), (3, 2), (4, 1), (2, 3)]:
    conv = init(nn.Conv2d(2, 3, k, padding="same", dilation=d))
    y = conv(x)
    print(k, d, tuple(y.shape), y[0, 0, 0, :3])
conv = init(nn.Conv2d(2, 4, (3, 5), stride=(2, 1), padding=(1, 2)))
print(conv(x).shape, (out_size(7, 3, 2, 1), out_size(9, 5, 1, 2)), conv)
valid = init(nn.Conv2d(2, 2, 3, padding="valid", groups=2))
print(valid(x).shape, valid.weight.shape)
depthwise = init(nn.Conv2d(2, 6, 3, groups=2, padding=1, bias=False))
print(depthwise(x)[0, 5, 3, :4], depthwise.weight.shape)
for mode in ("zeros", "circular", "reflect", "replicate"):
    m = init(nn.Conv2d(2, 1, 3, padding=2, padding_mode=mode))
    y = m(x)
    print(mode, tuple(y.shape), y[0, 0, 0, :3], y[0, 0, -1, -2:])

down = init(nn.Conv2d(2, 3, 3, stride=2, padding=1))
up = init(nn.ConvTranspose2d(3, 2, 3, stride=2, padding=1))
h = down(x)
print(h.shape, up(h).shape, up(h, output_size=x.shape[2:]).shape, up(h, output_size=[8, 10]).shape)
up_pad = init(nn.ConvTranspose2d(3, 2, 3, stride=2, padding=1, output_padding=1))
print(up_pad(h).shape, up_pad(h)[0, 1, -1, :3])
try:
    up(h, output_size=(11, 11))
except ValueError as e:
    print("ValueError")

v = torch.from_numpy(rng.normal(0, 1, (1, 2, 4, 5, 6)).astype(np.float32))
c3 = init(nn.Conv3d(2, 2, (2, 3, 3), stride=(1, 2, 2), padding=(0, 1, 1)))
print(c3(v).shape, c3(v)[0, 1, 0, 0])
t1 = init(nn.ConvTranspose1d(2, 3, 4, stride=3, padding=1, dilation=2))
s = torch.from_numpy(rng.normal(0, 1, (2, 2, 5)).astype(np.float32))
print(t1(s).shape, t1(s)[1, 2])
y = depthwise(x)
y.sum().backward()
print(depthwise.weight.grad[1, 0], depthwise.weight.grad.shape)
