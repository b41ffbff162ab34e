"""PixelCNN's masked convolution as blog posts write it: a Conv2d subclass holding its mask as a
buffer (type A excludes the centre, type B includes it), the mask applied to weight.data in
forward, a few training steps with a 256-way cross-entropy on (N, C, H, W) logits, and a check that
the receptive field is causal: the gradient of one output pixel touches only pixels before it."""
import numpy as np
import fluxgrad as torch
import fluxgrad.nn as nn
import fluxgrad.nn.functional as F

rng = np.random.default_rng(2)


class MaskedConv2d(nn.Conv2d):
    def __init__(self, mask_type, *args, **kwargs):
        super().__init__(*args, **kwargs)
        assert mask_type in {"A", "B"}
        self.register_buffer("mask", self.weight.data.clone())
        _, _, kH, kW = self.weight.size()
        self.mask.fill_(1)
        self.mask[:, :, kH // 2, kW // 2 + (mask_type == "B"):] = 0
        self.mask[:, :, kH // 2 + 1:] = 0

    def forward(self, x):
        self.weight.data *= self.mask
        return super().forward(x)


fm, levels = 8, 4
net = nn.Sequential(
    MaskedConv2d("A", 1, fm, 5, 1, 2, bias=False), nn.BatchNorm2d(fm), nn.ReLU(True),
    MaskedConv2d("B", fm, fm, 3, 1, 1, bias=False), nn.BatchNorm2d(fm), nn.ReLU(True),
    nn.Conv2d(fm, levels, 1))
with torch.no_grad():
    for p in net.parameters():
        if p.dim() > 1:
            p.copy_(torch.from_numpy(rng.normal(0, 0.3, tuple(p.shape)).astype(np.float32)))
        elif p is net[6].bias:
            p.zero_()
print(net[0].mask[0, 0])
print(net[3].mask[0, 0])
print([k for k in net.state_dict().keys()])

images = torch.from_numpy(rng.integers(0, levels, (4, 1, 6, 6)))
inputs = images.float() / (levels - 1)
opt = torch.optim.Adam(net.parameters(), lr=0.01)
for step in range(4):
    logits = net(inputs)
    loss = F.cross_entropy(logits, images[:, 0])
    opt.zero_grad()
    loss.backward()
    opt.step()
    print(step, round(loss.item(), 5))
print(logits.shape, (net[0].weight * (1 - net[0].mask)).abs().sum().item())

net.eval()
x = inputs[:1].clone().requires_grad_(True)
out = net(x)
out[0, :, 3, 2].sum().backward()
dependent = (x.grad[0, 0] != 0).int()
print(dependent)
print(dependent[3, 2:].sum().item(), dependent[4:].sum().item())

with torch.no_grad():
    sample = torch.zeros(1, 1, 6, 6)
    for i in range(2):
        for j in range(6):
            probs = F.softmax(net(sample)[0, :, i, j], dim=0)
            sample[0, 0, i, j] = probs.argmax().float() / (levels - 1)
print(sample[0, 0, :2])
