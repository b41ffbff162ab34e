"""A SIREN (sine-activated MLP, Sitzmann et al.) with its special uniform initialisation
(first layer U(-1/n, 1/n), then U(-sqrt(6/n)/w0, sqrt(6/n)/w0)) fitted to a 1-d signal, and
its derivatives with respect to the input coordinates: the gradient and the Laplacian by
autograd.grad with create_graph=True, a loss on the gradient (Poisson-style fitting)."""
import math
import numpy as np
import fluxgrad as torch
import fluxgrad.nn as nn

rng = np.random.default_rng(17)


class SineLayer(nn.Module):
    def __init__(self, cin, cout, is_first=False, omega_0=30.0):
        super().__init__()
        self.omega_0, self.is_first = omega_0, is_first
        self.linear = nn.Linear(cin, cout)
        bound = 1 / cin if is_first else math.sqrt(6 / cin) / omega_0
        with torch.no_grad():
            self.linear.weight.copy_(torch.tensor(rng.uniform(-bound, bound, (cout, cin)), dtype=torch.float32))
            self.linear.bias.copy_(torch.tensor(rng.uniform(-bound, bound, cout), dtype=torch.float32))

    def forward(self, x):
        return torch.sin(self.omega_0 * self.linear(x))


class Siren(nn.Module):
    def __init__(self):
        super().__init__()
        self.net = nn.Sequential(SineLayer(2, 16, is_first=True), SineLayer(16, 16), nn.Linear(16, 1))
        with torch.no_grad():
            self.net[2].weight.copy_(torch.tensor(rng.uniform(-0.1, 0.1, (1, 16)), dtype=torch.float32))
            self.net[2].bias.zero_()

    def forward(self, coords):
        coords = coords.clone().detach().requires_grad_(True)
        return self.net(coords), coords


def gradient(y, x):
    return torch.autograd.grad(y, [x], grad_outputs=torch.ones_like(y), create_graph=True)[0]


def laplace(y, x):
    g = gradient(y, x)
    return sum(gradient(g[..., i], x)[..., i] for i in range(x.shape[-1]))


side = np.linspace(-1, 1, 5, dtype=np.float32)
coords = torch.tensor(np.stack(np.meshgrid(side, side, indexing="ij"), -1).reshape(-1, 2))
target = torch.sin(3 * coords[:, :1]) * torch.cos(2 * coords[:, 1:])
target_grad = torch.cat([3 * torch.cos(3 * coords[:, :1]) * torch.cos(2 * coords[:, 1:]),
                         -2 * torch.sin(3 * coords[:, :1]) * torch.sin(2 * coords[:, 1:])], dim=1)
model = Siren()
out, c = model(coords)
g = gradient(out, c)
lap = laplace(out, c)
print(out.shape, g.shape, lap.shape)
print(out[:4].squeeze(), g[:2], lap[:3])
opt = torch.optim.Adam(model.parameters(), lr=1e-3)
for step in range(4):
    out, c = model(coords)
    loss = ((out - target) ** 2).mean() + 0.1 * ((gradient(out, c) - target_grad) ** 2).mean()
    opt.zero_grad()
    loss.backward()
    opt.step()
    print(f"step {step} loss {loss.item():.6f} |dW1| {model.net[0].linear.weight.grad.norm().item():.5f}")
