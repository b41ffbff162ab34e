"""A RealNVP normalizing flow on 2-D data the way flow tutorials write it: affine coupling layers
with alternating binary masks, scale by tanh-bounded s(x) and shift t(x) nets, log-determinants
summed over layers, the base distribution's log_prob (MultivariateNormal and an Independent
Normal agreeing), negative log-likelihood training with Adam, exact inversion (x -> z -> x), and
sampling from given base draws; plus a TransformedDistribution with AffineTransform and
ExpTransform against LogNormal."""
import math

import numpy as np
import fluxgrad as torch
import fluxgrad.nn as nn
from fluxgrad.distributions import (AffineTransform, ExpTransform, Independent, LogNormal,
                                    MultivariateNormal, Normal, TransformedDistribution)

rng = np.random.default_rng(79)


class Coupling(nn.Module):
    def __init__(self, mask):
        super().__init__()
        self.register_buffer("mask", mask)
        self.s = nn.Sequential(nn.Linear(2, 16), nn.ReLU(), nn.Linear(16, 2), nn.Tanh())
        self.t = nn.Sequential(nn.Linear(2, 16), nn.ReLU(), nn.Linear(16, 2))

    def forward(self, x):
        x_masked = x * self.mask
        s = self.s(x_masked) * (1 - self.mask)
        t = self.t(x_masked) * (1 - self.mask)
        z = x_masked + (1 - self.mask) * (x * torch.exp(s) + t)
        return z, s.sum(dim=1)

    def inverse(self, z):
        z_masked = z * self.mask
        s = self.s(z_masked) * (1 - self.mask)
        t = self.t(z_masked) * (1 - self.mask)
        return z_masked + (1 - self.mask) * ((z - t) * torch.exp(-s))


class RealNVP(nn.Module):
    def __init__(self, n_layers=4):
        super().__init__()
        masks = [torch.tensor([1.0, 0.0]) if i % 2 == 0 else torch.tensor([0.0, 1.0]) for i in range(n_layers)]
        self.layers = nn.ModuleList(Coupling(m) for m in masks)
        self.base = MultivariateNormal(torch.zeros(2), torch.eye(2))

    def forward(self, x):
        log_det = torch.zeros(x.shape[0])
        for layer in self.layers:
            x, ld = layer(x)
            log_det = log_det + ld
        return x, log_det

    def log_prob(self, x):
        z, log_det = self(x)
        return self.base.log_prob(z) + log_det

    def inverse(self, z):
        for layer in reversed(self.layers):
            z = layer.inverse(z)
        return z


flow = RealNVP()
with torch.no_grad():
    for p in flow.parameters():
        p.copy_(torch.from_numpy(rng.uniform(-0.3, 0.3, tuple(p.shape)).astype(np.float32)))
print([n for n, _ in flow.named_buffers()])
theta = rng.uniform(0, math.pi, 64)
moons = np.stack([np.cos(theta), np.sin(theta)], 1) + 0.1 * rng.standard_normal((64, 2))
data = torch.from_numpy(moons.astype(np.float32))
base_ind = Independent(Normal(torch.zeros(2), torch.ones(2)), 1)
z, ld = flow(data)
print(torch.allclose(flow.base.log_prob(z), base_ind.log_prob(z), atol=1e-5), ld[:3])
opt = torch.optim.Adam(flow.parameters(), lr=5e-3)
for step in range(5):
    loss = -flow.log_prob(data).mean()
    opt.zero_grad()
    loss.backward()
    opt.step()
    print(step, f"{loss.item():.5f}")
with torch.no_grad():
    z, _ = flow(data[:4])
    back = flow.inverse(z)
    print(torch.allclose(back, data[:4], atol=1e-5), z)
    base_draws = torch.from_numpy(rng.standard_normal((3, 2)).astype(np.float32))
    print(flow.inverse(base_draws))

# the log-det against the Jacobian's determinant computed by autograd
x0 = data[:1].clone()
J = torch.autograd.functional.jacobian(lambda v: flow(v)[0], x0).reshape(2, 2)
print(torch.logdet(J), flow(x0)[1])

affine = TransformedDistribution(Normal(torch.tensor(0.0), torch.tensor(1.0)),
                                 [AffineTransform(loc=0.5, scale=2.0), ExpTransform()])
lognormal = LogNormal(torch.tensor(0.5), torch.tensor(2.0))
v = torch.tensor([0.3, 1.0, 4.0])
print(affine.log_prob(v), lognormal.log_prob(v))
print(AffineTransform(1.0, 3.0)(torch.tensor([0.0, 1.0])), AffineTransform(1.0, 3.0).inv(torch.tensor([4.0])),
      ExpTransform().log_abs_det_jacobian(torch.tensor(0.5), torch.tensor(math.exp(0.5))))
