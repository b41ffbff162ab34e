"""A mixture density network (Bishop) on the inverse sine problem: mixing coefficients via
log_softmax, Gaussian components, the negative log-likelihood with logsumexp, compared with
MixtureSameFamily's log_prob; Adam steps; the mixture's mean and mode per input."""
import math
import numpy as np
import fluxgrad as torch
import fluxgrad.nn as nn
from fluxgrad.distributions import Categorical, MixtureSameFamily, Normal

rng = np.random.default_rng(11)
y_np = rng.uniform(-1, 1, (64, 1))
x_np = y_np + 0.3 * np.sin(2 * np.pi * y_np) + rng.normal(0, 0.05, y_np.shape)
x = torch.from_numpy(x_np.astype(np.float32))
y = torch.from_numpy(y_np.astype(np.float32))


class MDN(nn.Module):
    def __init__(self, hidden=12, k=3):
        super().__init__()
        self.k = k
        self.hidden = nn.Sequential(nn.Linear(1, hidden), nn.Tanh())
        self.pi = nn.Linear(hidden, k)
        self.mu = nn.Linear(hidden, k)
        self.log_sigma = nn.Linear(hidden, k)

    def forward(self, x):
        h = self.hidden(x)
        return torch.log_softmax(self.pi(h), dim=-1), self.mu(h), self.log_sigma(h).clamp(-4, 2)


def mdn_nll(log_pi, mu, log_sigma, y):
    z = (y - mu) / torch.exp(log_sigma)
    log_normal = -0.5 * z ** 2 - log_sigma - 0.5 * math.log(2 * math.pi)
    return -torch.logsumexp(log_pi + log_normal, dim=-1).mean()


model = MDN()
with torch.no_grad():
    for p in model.parameters():
        p.copy_(torch.from_numpy(rng.uniform(-1, 1, tuple(p.shape)).astype(np.float32)))
opt = torch.optim.Adam(model.parameters(), lr=0.02)
for epoch in range(6):
    opt.zero_grad()
    log_pi, mu, log_sigma = model(x)
    loss = mdn_nll(log_pi, mu, log_sigma, y)
    loss.backward()
    opt.step()
    print(f"epoch {epoch} nll {loss.item():.5f}")

with torch.no_grad():
    log_pi, mu, log_sigma = model(x[:4])
    mix = MixtureSameFamily(Categorical(logits=log_pi), Normal(mu, log_sigma.exp()))
    print(mix.log_prob(y[:4].squeeze(-1)))
    print(-mdn_nll(log_pi, mu, log_sigma, y[:4]) * 4, mix.log_prob(y[:4].squeeze(-1)).sum())
    print(mix.mean, mix.variance)
    best = log_pi.argmax(dim=-1, keepdim=True)
    print(best.squeeze(-1), torch.gather(mu, 1, best).squeeze(-1))
    print(log_pi.exp().sum(-1))
