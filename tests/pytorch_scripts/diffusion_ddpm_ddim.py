"""A denoising-diffusion training and sampling loop as the DDPM/DDIM reference ports write it:
a linear beta schedule (linspace), alphas_cumprod by cumprod, the `extract` helper (gather at t,
reshape for broadcasting), q_sample, a sinusoidal timestep embedding, an MLP noise predictor
trained with MSE on NumPy-drawn t and noise, and deterministic DDIM (eta=0) sampling with the
clipped x0 prediction."""
import math

import numpy as np
import fluxgrad as torch
import fluxgrad.nn as nn
import fluxgrad.nn.functional as F

rng = np.random.default_rng(131)
T = 50
betas = torch.linspace(1e-4, 0.02, T)
alphas = 1. - betas
alphas_cumprod = torch.cumprod(alphas, dim=0)
alphas_cumprod_prev = F.pad(alphas_cumprod[:-1], (1, 0), value=1.)
sqrt_alphas_cumprod = torch.sqrt(alphas_cumprod)
sqrt_one_minus_alphas_cumprod = torch.sqrt(1. - alphas_cumprod)
posterior_variance = betas * (1. - alphas_cumprod_prev) / (1. - alphas_cumprod)
print(alphas_cumprod[[0, 24, 49]], posterior_variance[:3])


def extract(a, t, x_shape):
    b, *_ = t.shape
    out = a.gather(-1, t)
    return out.reshape(b, *((1,) * (len(x_shape) - 1)))


def q_sample(x_start, t, noise):
    return (extract(sqrt_alphas_cumprod, t, x_start.shape) * x_start +
            extract(sqrt_one_minus_alphas_cumprod, t, x_start.shape) * noise)


class SinusoidalPosEmb(nn.Module):
    def __init__(self, dim):
        super().__init__()
        self.dim = dim

    def forward(self, x):
        half_dim = self.dim // 2
        emb = math.log(10000) / (half_dim - 1)
        emb = torch.exp(torch.arange(half_dim) * -emb)
        emb = x[:, None] * emb[None, :]
        return torch.cat((emb.sin(), emb.cos()), dim=-1)


class EpsModel(nn.Module):
    def __init__(self, dim=2, hidden=32):
        super().__init__()
        self.time = nn.Sequential(SinusoidalPosEmb(8), nn.Linear(8, hidden), nn.SiLU())
        self.inp = nn.Linear(dim, hidden)
        self.out = nn.Sequential(nn.SiLU(), nn.Linear(hidden, hidden), nn.SiLU(), nn.Linear(hidden, dim))

    def forward(self, x, t):
        return self.out(self.inp(x) + self.time(t.float()))


model = EpsModel()
with torch.no_grad():
    for p in model.parameters():
        p.copy_(torch.from_numpy(rng.normal(0, 0.3, tuple(p.shape)).astype(np.float32)))
print(SinusoidalPosEmb(8)(torch.tensor([0., 1., 49.]))[2])
data = torch.from_numpy(rng.normal(0, 0.3, (64, 2)).astype(np.float32)) + torch.tensor([1.0, -1.0])
optimizer = torch.optim.Adam(model.parameters(), lr=3e-3)
for step in range(8):
    idx = torch.from_numpy(rng.choice(64, 16, replace=False))
    x0 = data[idx]
    t = torch.from_numpy(rng.integers(0, T, 16))
    noise = torch.from_numpy(rng.normal(0, 1, (16, 2)).astype(np.float32))
    x_t = q_sample(x0, t, noise)
    loss = F.mse_loss(model(x_t, t), noise)
    optimizer.zero_grad()
    loss.backward()
    optimizer.step()
    print(step, round(loss.item(), 5))


@torch.no_grad()
def ddim_sample(x, steps):
    times = torch.linspace(-1, T - 1, steps=steps + 1).int().tolist()[::-1]
    for time, time_next in zip(times[:-1], times[1:]):
        t = torch.full((x.shape[0],), time, dtype=torch.long)
        eps = model(x, t)
        alpha = alphas_cumprod[time]
        x0 = ((x - (1 - alpha).sqrt() * eps) / alpha.sqrt()).clamp(-2., 2.)
        if time_next < 0:
            x = x0
            continue
        alpha_next = alphas_cumprod[time_next]
        x = x0 * alpha_next.sqrt() + (1 - alpha_next).sqrt() * eps
    return x, times


x_T = torch.from_numpy(rng.normal(0, 1, (5, 2)).astype(np.float32))
samples, times = ddim_sample(x_T, 10)
print(times)
print(samples, samples.mean(0))
