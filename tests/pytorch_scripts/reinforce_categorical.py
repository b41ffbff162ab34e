"""REINFORCE on a tiny corridor environment the way RL tutorials write it: a policy network giving
logits, Categorical(logits=...) with log_prob / entropy / probs, actions drawn from NumPy with the
policy's probabilities (so both libraries take the same ones), discounted returns computed
backwards, normalized with mean/std, a baseline from a value head with smooth_l1_loss, an entropy
bonus, and Adam updates; plus Normal policies for continuous actions (log_prob summed over
dimensions, Independent) and a clipped PPO-style ratio."""
import numpy as np
import fluxgrad as torch
import fluxgrad.nn as nn
import fluxgrad.nn.functional as F
from fluxgrad.distributions import Categorical, Normal, Independent

rng = np.random.default_rng(23)


class Policy(nn.Module):
    def __init__(self):
        super().__init__()
        self.body = nn.Sequential(nn.Linear(4, 16), nn.Tanh())
        self.pi = nn.Linear(16, 2)
        self.v = nn.Linear(16, 1)

    def forward(self, obs):
        h = self.body(obs)
        return self.pi(h), self.v(h).squeeze(-1)


policy = Policy()
local = np.random.default_rng(0)
with torch.no_grad():
    for p in policy.parameters():
        p.copy_(torch.from_numpy(local.uniform(-0.4, 0.4, tuple(p.shape)).astype(np.float32)))
opt = torch.optim.Adam(policy.parameters(), lr=0.02)
gamma = 0.9


def observe(pos):
    return torch.tensor([pos / 4.0, 1.0 - pos / 4.0, float(pos == 0), float(pos == 4)])


for episode in range(4):
    pos, log_probs, values, rewards, entropies = 2, [], [], [], []
    for t in range(6):
        logits, value = policy(observe(pos))
        dist = Categorical(logits=logits)
        action = int(rng.random() < dist.probs[1].item())
        log_probs.append(dist.log_prob(torch.tensor(action)))
        entropies.append(dist.entropy())
        values.append(value)
        pos = max(0, min(4, pos + (1 if action == 1 else -1)))
        rewards.append(1.0 if pos == 4 else -0.1)
        if pos == 4:
            break
    returns, R = [], 0.0
    for r in reversed(rewards):
        R = r + gamma * R
        returns.insert(0, R)
    returns = torch.tensor(returns)
    if len(returns) > 1:
        returns = (returns - returns.mean()) / (returns.std() + 1e-8)
    values = torch.stack(values)
    advantage = returns - values.detach()
    policy_loss = -(torch.stack(log_probs) * advantage).sum()
    value_loss = F.smooth_l1_loss(values, returns)
    entropy = torch.stack(entropies).mean()
    loss = policy_loss + 0.5 * value_loss - 0.01 * entropy
    opt.zero_grad()
    loss.backward()
    opt.step()
    print(episode, len(rewards), round(sum(rewards), 3), f"{loss.item():.5f}", f"{entropy.item():.5f}")

batch_logits = torch.tensor([[0.1, 0.5, -0.3], [1.0, 1.0, 1.0]])
dist = Categorical(logits=batch_logits)
print(dist.probs, dist.logits, dist.batch_shape, dist.event_shape)
print(dist.log_prob(torch.tensor([2, 0])), dist.entropy(), dist.mode)
print(Categorical(probs=torch.tensor([0.2, 0.3, 0.5])).log_prob(torch.tensor([[0, 1], [2, 2]])))

mu = torch.tensor([[0.0, 0.5], [1.0, -1.0]], requires_grad=True)
log_std = torch.tensor([-0.5, 0.2], requires_grad=True)
normal = Normal(mu, log_std.exp())
actions = torch.from_numpy(rng.standard_normal((2, 2)).astype(np.float32))
lp = normal.log_prob(actions).sum(-1)
ind = Independent(Normal(mu, log_std.exp()), 1)
print(lp, ind.log_prob(actions), ind.entropy(), ind.batch_shape, ind.event_shape)
old_lp = lp.detach() + torch.tensor([0.1, -0.3])
adv = torch.tensor([1.0, -0.5])
ratio = torch.exp(lp - old_lp)
clipped = torch.clamp(ratio, 0.8, 1.2)
ppo = -torch.min(ratio * adv, clipped * adv).mean()
ppo.backward()
print(ratio, ppo, mu.grad, log_std.grad)
