"""An ESPCN-style super-resolution net: convolutions to C * r^2 channels then nn.PixelShuffle(r),
ICNR initialisation (each sub-pixel copy starts equal, so no checkerboard), PixelUnshuffle as the
exact inverse (space-to-depth for a downsampling stem), F.pixel_shuffle on a hand-made tensor to
show the channel-to-space order, and a few training steps against bicubic-upscaled targets."""
import numpy as np
import fluxgrad as torch
import fluxgrad.nn as nn
import fluxgrad.nn.functional as F

rng = np.random.default_rng(12)
r = 2
ps = nn.PixelShuffle(r)
pu = nn.PixelUnshuffle(r)
t = torch.arange(16.0).view(1, 4, 2, 2)
print(ps, pu, ps(t))
print(pu(ps(t)).equal(t), F.pixel_unshuffle(torch.arange(16.0).view(1, 1, 4, 4), 2)[0, :, 0, 0])
print(F.pixel_shuffle(torch.arange(18.0).view(2, 9, 1, 1), 3)[1, 0])
print(ps(torch.zeros(3, 8, 4, 5)).shape, pu(torch.zeros(2, 3, 6, 4)).shape, ps(torch.zeros(12, 2, 3)).shape)


def icnr_(weight, scale):
    out_c, in_c, kh, kw = weight.shape
    sub = torch.from_numpy(rng.uniform(-0.3, 0.3, (out_c // scale ** 2, in_c, kh, kw)).astype(np.float32))
    with torch.no_grad():
        weight.copy_(sub.repeat_interleave(scale ** 2, dim=0))


class ESPCN(nn.Module):
    def __init__(self, channels=1, scale=2):
        super().__init__()
        self.body = nn.Sequential(nn.Conv2d(channels, 8, 5, padding=2), nn.Tanh(), nn.Conv2d(8, 4, 3, padding=1), nn.Tanh())
        self.up = nn.Conv2d(4, channels * scale ** 2, 3, padding=1)
        self.shuffle = nn.PixelShuffle(scale)

    def forward(self, x):
        return self.shuffle(self.up(self.body(x)))


net = ESPCN()
with torch.no_grad():
    for m in net.modules():
        if isinstance(m, nn.Conv2d):
            m.weight.copy_(torch.from_numpy(rng.uniform(-0.3, 0.3, tuple(m.weight.shape)).astype(np.float32)))
            m.bias.zero_()
icnr_(net.up.weight, 2)
hr = torch.from_numpy(rng.uniform(0, 1, (4, 1, 8, 8)).astype(np.float32))
lr_img = F.interpolate(hr, scale_factor=0.5, mode="area")
y0 = net(lr_img)
print(y0.shape, torch.allclose(y0[:, :, 0::2, 0::2], y0[:, :, 1::2, 1::2]))
opt = torch.optim.Adam(net.parameters(), lr=0.01)
baseline = F.mse_loss(F.interpolate(lr_img, scale_factor=2, mode="bicubic", align_corners=False), hr)
print(f"bicubic {baseline.item():.5f}")
for step in range(6):
    opt.zero_grad()
    loss = F.mse_loss(net(lr_img), hr)
    loss.backward()
    opt.step()
    print(step, f"{loss.item():.5f}", f"{10 * torch.log10(1 / loss).item():.3f}")
stem = nn.Sequential(nn.PixelUnshuffle(2), nn.Conv2d(4, 2, 1))
with torch.no_grad():
    stem[1].weight.fill_(0.25)
    stem[1].bias.zero_()
print(stem(hr).shape, torch.allclose(stem(hr)[:, 0], F.avg_pool2d(hr, 2)[:, 0]))
