"""Quantile regression with the pinball loss for several quantiles at once (one output per
quantile), crossing quantiles fixed by sorting the outputs, empirical coverage of the
predicted intervals, torch.quantile of residuals (linear/lower/higher/nearest/midpoint),
and the pinball loss's subgradient at zero residual."""
import numpy as np
import fluxgrad as torch
import fluxgrad.nn as nn

rng = np.random.default_rng(97)
x_np = rng.uniform(-2, 2, (80, 1))
y_np = np.sin(x_np) + (0.2 + 0.2 * np.abs(x_np)) * rng.standard_normal(x_np.shape)
x = torch.tensor(x_np, dtype=torch.float32)
y = torch.tensor(y_np, dtype=torch.float32)
quantiles = torch.tensor([0.1, 0.5, 0.9])


def pinball(pred, target, q):
    err = target - pred
    return torch.max(q * err, (q - 1) * err).mean()


model = nn.Sequential(nn.Linear(1, 16), nn.Tanh(), nn.Linear(16, 3))
with torch.no_grad():
    for p in model.parameters():
        p.copy_(torch.tensor(rng.uniform(-1, 1, tuple(p.shape)), dtype=torch.float32))
opt = torch.optim.Adam(model.parameters(), lr=0.05)
for epoch in range(8):
    pred = model(x)
    loss = pinball(pred, y, quantiles)
    opt.zero_grad()
    loss.backward()
    opt.step()
    print(f"epoch {epoch}: pinball {loss.item():.5f}")
with torch.no_grad():
    pred = model(x)
    ordered, _ = torch.sort(pred, dim=1)
    crossing = (pred[:, 1:] < pred[:, :-1]).any(dim=1).sum().item()
    coverage = ((y[:, 0] >= ordered[:, 0]) & (y[:, 0] <= ordered[:, 2])).float().mean().item()
    below = (y < ordered).float().mean(dim=0)
print(crossing, round(coverage, 4), below)
residuals = (y - pred[:, 1:2]).squeeze(1)
for method in ("linear", "lower", "higher", "nearest", "midpoint"):
    print(method, torch.quantile(residuals, quantiles, interpolation=method))
print(torch.quantile(pred, 0.5, dim=0), torch.nanquantile(torch.tensor([1.0, float("nan"), 3.0]), 0.5))
p = torch.zeros(3, requires_grad=True)
pinball(p, torch.zeros(3), quantiles).backward()
print(p.grad)
