"""MADE and a masked autoregressive flow as in Germain et al. and Papamakarios et al.'s reference
code: a MaskedLinear subclass of nn.Linear with a registered mask buffer set by set_mask (degrees
assigned with torch.arange, masks by comparing them), the autoregressive property checked with
torch.autograd.functional.jacobian (a strictly lower-triangular Jacobian), a MAF layer giving
mu and log-scale, the exact log-likelihood with its log|det| = -sum(alpha), sequential inversion for
sampling with NumPy base noise, a flip permutation between layers, and a few Adam steps on
maximum likelihood."""
import math

import numpy as np
import fluxgrad as torch
import fluxgrad.nn as nn
import fluxgrad.nn.functional as F
from fluxgrad.autograd.functional import jacobian

rng = np.random.default_rng(2017)


class MaskedLinear(nn.Linear):
    def __init__(self, in_features, out_features, bias=True):
        super().__init__(in_features, out_features, bias)
        self.register_buffer("mask", torch.ones(out_features, in_features))

    def set_mask(self, mask):
        self.mask.data.copy_(mask.float())

    def forward(self, input):
        return F.linear(input, self.mask * self.weight, self.bias)


class MADE(nn.Module):
    def __init__(self, nin, hidden, nout_per_input):
        super().__init__()
        self.nin = nin
        self.net = nn.Sequential(MaskedLinear(nin, hidden), nn.ReLU(), MaskedLinear(hidden, hidden), nn.ReLU(),
                                 MaskedLinear(hidden, nin * nout_per_input))
        self.nout_per_input = nout_per_input
        m_in = torch.arange(nin)
        m_h1 = torch.arange(hidden) % max(nin - 1, 1)
        m_h2 = torch.arange(hidden) % max(nin - 1, 1)
        masks = [m_in[None, :] <= m_h1[:, None], m_h1[None, :] <= m_h2[:, None],
                 (m_h2[None, :] < m_in[:, None]).repeat(nout_per_input, 1)]
        layers = [l for l in self.net.modules() if isinstance(l, MaskedLinear)]
        for layer, mask in zip(layers, masks):
            layer.set_mask(mask)

    def forward(self, x):
        return self.net(x)


class MAFLayer(nn.Module):
    def __init__(self, dim, hidden, reverse):
        super().__init__()
        self.made = MADE(dim, hidden, 2)
        self.reverse = reverse

    def forward(self, x):
        out = self.made(x)
        mu, alpha = out.chunk(2, dim=1)
        u = (x - mu) * torch.exp(-alpha)
        log_det = -alpha.sum(dim=1)
        return (u.flip(dims=(1,)) if self.reverse else u), log_det

    def inverse(self, u):
        u = u.flip(dims=(1,)) if self.reverse else u
        x = torch.zeros_like(u)
        for i in range(u.shape[1]):
            mu, alpha = self.made(x).chunk(2, dim=1)
            x[:, i] = mu[:, i] + u[:, i] * torch.exp(alpha[:, i])
        return x


made = MADE(3, 8, 1)
with torch.no_grad():
    for p in made.parameters():
        p.copy_(torch.from_numpy(rng.normal(0, 0.5, tuple(p.shape)).astype(np.float32)))
print([tuple(b.shape) for _, b in made.named_buffers()], made.net[4].mask.sum().item())
J = jacobian(lambda v: made(v.unsqueeze(0)).squeeze(0), torch.tensor([0.3, -0.2, 0.5]))
print(J, torch.equal(J.triu(), torch.zeros(3, 3)))

flow = nn.ModuleList([MAFLayer(2, 8, reverse=True), MAFLayer(2, 8, reverse=True)])
with torch.no_grad():
    for p in flow.parameters():
        p.copy_(torch.from_numpy(rng.normal(0, 0.2, tuple(p.shape)).astype(np.float32)))


def log_prob(x):
    total = torch.zeros(x.shape[0])
    for layer in flow:
        x, ld = layer(x)
        total = total + ld
    base = -0.5 * (x ** 2).sum(1) - math.log(2 * math.pi)
    return base + total


theta = rng.uniform(0, 2 * math.pi, 64)
data = torch.from_numpy(np.stack([np.cos(theta), np.sin(theta)], 1) * 2 + 0.1 * rng.normal(size=(64, 2))).float()
optimizer = torch.optim.Adam(flow.parameters(), lr=1e-2)
for step in range(5):
    optimizer.zero_grad()
    loss = -log_prob(data).mean()
    loss.backward()
    optimizer.step()
    print(step, round(loss.item(), 5))

with torch.no_grad():
    z = torch.from_numpy(rng.normal(size=(4, 2)).astype(np.float32))
    x = z
    for layer in reversed(flow):
        x = layer.inverse(x)
    u = x
    for layer in flow:
        u, _ = layer(u)
print(x, torch.allclose(u, z, atol=1e-5))
