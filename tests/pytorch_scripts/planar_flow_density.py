"""A normalizing flow of planar layers (Rezende & Mohamed) fitted to a 2-d target density by
reverse KL: f(z) = z + u * tanh(w.z + b) with the invertibility fix of u, the log |det J| of each
layer, base samples from NumPy, the flow's log density, and Adam on the ELBO-style loss; plus a
check of the log-det against torch.autograd.functional.jacobian."""
import math
import numpy as np
import fluxgrad as torch
import fluxgrad.nn as nn
import fluxgrad.nn.functional as F

rng = np.random.default_rng(17)


class Planar(nn.Module):
    def __init__(self, dim):
        super().__init__()
        self.u = nn.Parameter(torch.from_numpy(rng.normal(0, 0.5, dim).astype(np.float32)))
        self.w = nn.Parameter(torch.from_numpy(rng.normal(0, 0.5, dim).astype(np.float32)))
        self.b = nn.Parameter(torch.zeros(1))

    def u_hat(self):
        wu = self.w @ self.u
        return self.u + (-1 + F.softplus(wu) - wu) * self.w / self.w.pow(2).sum()

    def forward(self, z):
        u = self.u_hat()
        lin = z @ self.w + self.b
        f = z + u * torch.tanh(lin).unsqueeze(-1)
        psi = (1 - torch.tanh(lin) ** 2).unsqueeze(-1) * self.w
        log_det = torch.log((1 + psi @ u).abs() + 1e-8)
        return f, log_det


def target_log_density(z):
    z1, z2 = z[:, 0], z[:, 1]
    r = torch.sqrt(z1 ** 2 + z2 ** 2)
    u = 0.5 * ((r - 2) / 0.4) ** 2 - torch.log(torch.exp(-0.5 * ((z1 - 2) / 0.6) ** 2) + torch.exp(-0.5 * ((z1 + 2) / 0.6) ** 2))
    return -u


flows = nn.ModuleList([Planar(2) for _ in range(4)])
print(flows[0].u_hat(), flows[0].w @ flows[0].u_hat() >= -1)
z0 = torch.from_numpy(rng.standard_normal((64, 2)).astype(np.float32))
opt = torch.optim.Adam(flows.parameters(), lr=0.02)
for step in range(25):
    z = z0
    log_q = -0.5 * (z ** 2).sum(1) - math.log(2 * math.pi)
    for flow in flows:
        z, log_det = flow(z)
        log_q = log_q - log_det
    loss = (log_q - target_log_density(z)).mean()
    opt.zero_grad()
    loss.backward()
    opt.step()
    if step % 8 == 0:
        print(step, f"{loss.item():.5f}")
print(z[:3].detach(), log_q[:3].detach())

layer = flows[1]
point = torch.tensor([0.3, -0.7])
J = torch.autograd.functional.jacobian(lambda v: layer(v.unsqueeze(0))[0].squeeze(0), point)
_, ld = layer(point.unsqueeze(0))
print(J, f"{torch.log(torch.det(J).abs()).item():.5f}", f"{ld.item():.5f}")
