"""A SAC-style actor and twin critics: a tanh-squashed Gaussian policy (reparameterised
sample with noise from NumPy, the log-prob correction log(1 - tanh^2), checked against
TransformedDistribution with TanhTransform), Independent Normal, soft Bellman targets,
and Polyak averaging of the target critics under no_grad."""
import copy
import numpy as np
import fluxgrad as torch
import fluxgrad.nn as nn
import fluxgrad.nn.functional as F
from fluxgrad.distributions import Normal, Independent, TransformedDistribution
from fluxgrad.distributions.transforms import TanhTransform

rng = np.random.default_rng(3)
LOG_STD_MIN, LOG_STD_MAX = -5.0, 2.0


def fill(m):
    with torch.no_grad():
        for p in m.parameters():
            p.copy_(torch.as_tensor(rng.uniform(-0.5, 0.5, p.shape), dtype=torch.float32))
    return m


class Actor(nn.Module):
    def __init__(self, obs_dim, act_dim):
        super().__init__()
        self.body = nn.Sequential(nn.Linear(obs_dim, 16), nn.ReLU())
        self.mu = nn.Linear(16, act_dim)
        self.log_std = nn.Linear(16, act_dim)

    def forward(self, obs, eps):
        h = self.body(obs)
        mu = self.mu(h)
        log_std = torch.clamp(self.log_std(h), LOG_STD_MIN, LOG_STD_MAX)
        std = log_std.exp()
        u = mu + std * eps
        logp = Normal(mu, std).log_prob(u).sum(-1)
        logp = logp - (2 * (np.log(2) - u - F.softplus(-2 * u))).sum(-1)
        return torch.tanh(u), logp, mu, std


class Critic(nn.Module):
    def __init__(self, obs_dim, act_dim):
        super().__init__()
        self.q = nn.Sequential(nn.Linear(obs_dim + act_dim, 16), nn.ReLU(), nn.Linear(16, 1))

    def forward(self, obs, act):
        return self.q(torch.cat([obs, act], dim=-1)).squeeze(-1)


actor = fill(Actor(3, 2))
q1, q2 = fill(Critic(3, 2)), fill(Critic(3, 2))
q1_targ, q2_targ = copy.deepcopy(q1), copy.deepcopy(q2)
for p in list(q1_targ.parameters()) + list(q2_targ.parameters()):
    p.requires_grad = False
pi_opt = torch.optim.Adam(actor.parameters(), lr=3e-3)
q_opt = torch.optim.Adam(list(q1.parameters()) + list(q2.parameters()), lr=3e-3)
alpha, gamma, polyak = 0.2, 0.99, 0.9

obs = torch.as_tensor(rng.standard_normal((5, 3)), dtype=torch.float32)
eps = torch.as_tensor(rng.standard_normal((5, 2)), dtype=torch.float32)
a, logp, mu, std = actor(obs, eps)
squashed = TransformedDistribution(Independent(Normal(mu, std), 1), [TanhTransform(cache_size=1)])
print(torch.allclose(squashed.log_prob(a), logp, atol=1e-3), logp)
print(Independent(Normal(mu, std), 1).entropy(), Independent(Normal(mu, std), 1).batch_shape)

for step in range(3):
    o = torch.as_tensor(rng.standard_normal((6, 3)), dtype=torch.float32)
    act = torch.as_tensor(rng.uniform(-1, 1, (6, 2)), dtype=torch.float32)
    r = torch.as_tensor(rng.standard_normal(6), dtype=torch.float32)
    o2 = torch.as_tensor(rng.standard_normal((6, 3)), dtype=torch.float32)
    done = torch.as_tensor(rng.integers(0, 2, 6), dtype=torch.float32)
    e = torch.as_tensor(rng.standard_normal((6, 2)), dtype=torch.float32)
    with torch.no_grad():
        a2, logp2, _, _ = actor(o2, e)
        q_pi_targ = torch.min(q1_targ(o2, a2), q2_targ(o2, a2))
        backup = r + gamma * (1 - done) * (q_pi_targ - alpha * logp2)
    loss_q = ((q1(o, act) - backup) ** 2).mean() + ((q2(o, act) - backup) ** 2).mean()
    q_opt.zero_grad()
    loss_q.backward()
    q_opt.step()
    for p in list(q1.parameters()) + list(q2.parameters()):
        p.requires_grad = False
    pi, logp_pi, _, _ = actor(o, e)
    loss_pi = (alpha * logp_pi - torch.min(q1(o, pi), q2(o, pi))).mean()
    pi_opt.zero_grad()
    loss_pi.backward()
    pi_opt.step()
    for p in list(q1.parameters()) + list(q2.parameters()):
        p.requires_grad = True
    with torch.no_grad():
        for p, p_targ in zip(q1.parameters(), q1_targ.parameters()):
            p_targ.data.mul_(polyak)
            p_targ.data.add_((1 - polyak) * p.data)
        for p, p_targ in zip(q2.parameters(), q2_targ.parameters()):
            p_targ.mul_(polyak).add_(p, alpha=1 - polyak)
    print(f"step {step}: loss_q {loss_q.item():.5f} loss_pi {loss_pi.item():.5f} "
          f"targ {q1_targ.q[0].weight.sum().item():.5f} {q2_targ.q[2].bias.item():.5f}")
print(q1.q[0].weight.grad is not None, q1_targ.q[0].weight.grad)
