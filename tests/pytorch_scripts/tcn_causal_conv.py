"""A temporal convolutional network (Bai et al.): causal dilated Conv1d by left padding and
by padding-then-chomp, weight normalisation (nn.utils.parametrizations.weight_norm),
residual 1x1 downsampling; trained a few steps on next-value prediction; checks causality
by perturbing the future."""
import numpy as np
import fluxgrad as torch
import fluxgrad.nn as nn
import fluxgrad.nn.functional as F
from fluxgrad.nn.utils.parametrizations import weight_norm

rng = np.random.default_rng(21)


class Chomp1d(nn.Module):
    def __init__(self, chomp):
        super().__init__()
        self.chomp = chomp

    def forward(self, x):
        return x[:, :, :-self.chomp].contiguous()


class TemporalBlock(nn.Module):
    def __init__(self, cin, cout, k, dilation):
        super().__init__()
        pad = (k - 1) * dilation
        self.conv1 = weight_norm(nn.Conv1d(cin, cout, k, padding=pad, dilation=dilation))
        self.chomp1 = Chomp1d(pad)
        self.conv2 = nn.Conv1d(cout, cout, k, dilation=dilation)
        self.left = pad
        self.downsample = nn.Conv1d(cin, cout, 1) if cin != cout else None

    def forward(self, x):
        out = F.relu(self.chomp1(self.conv1(x)))
        out = F.relu(self.conv2(F.pad(out, (self.left, 0))))
        res = x if self.downsample is None else self.downsample(x)
        return F.relu(out + res)


class TCN(nn.Module):
    def __init__(self):
        super().__init__()
        self.net = nn.Sequential(TemporalBlock(1, 4, 2, 1), TemporalBlock(4, 4, 2, 2),
                                 TemporalBlock(4, 4, 2, 4))
        self.head = nn.Conv1d(4, 1, 1)

    def forward(self, x):
        return self.head(self.net(x))


model = TCN()
with torch.no_grad():
    for name, p in model.named_parameters():
        p.copy_(torch.from_numpy(rng.uniform(-0.5, 0.5, tuple(p.shape)).astype(np.float32)))
print([n for n, _ in model.named_parameters()][:4])
print(model.net[0].conv1.parametrizations.weight.original0.shape,
      model.net[0].conv1.weight.norm(dim=(1, 2)))

t = np.linspace(0, 4 * np.pi, 33)
series = torch.from_numpy(np.sin(t).astype(np.float32)).view(1, 1, -1)
inp, target = series[:, :, :-1], series[:, :, 1:]
opt = torch.optim.Adam(model.parameters(), lr=5e-3)
for step in range(5):
    opt.zero_grad()
    loss = F.mse_loss(model(inp), target)
    loss.backward()
    opt.step()
    print(f"step {step} mse {loss.item():.6f}")
with torch.no_grad():
    base = model(inp)
    bumped = inp.clone()
    bumped[..., 20:] += 1.0
    changed = (model(bumped) - base).abs().squeeze()
print("first changed index", int(torch.nonzero(changed > 1e-6)[0]), changed[:20].max().item())
print(base.shape, base[0, 0, -5:])
