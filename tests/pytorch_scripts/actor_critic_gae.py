"""Advantage actor-critic on a toy chain environment: a shared network with policy logits
and a value head, Categorical log_prob/entropy, generalised advantage estimation computed
backwards over a rollout, advantage normalisation, value loss with smooth L1, gradient
clipping; actions chosen greedily or from NumPy draws against the policy's probabilities."""
import numpy as np
import fluxgrad as torch
import fluxgrad.nn as nn
import fluxgrad.nn.functional as F
from fluxgrad.distributions import Categorical

rng = np.random.default_rng(103)
N_STATES, N_ACTIONS = 5, 2


def env_step(state, action):
    nxt = min(state + 1, N_STATES - 1) if action == 1 else max(state - 1, 0)
    done = nxt == N_STATES - 1
    return nxt, (1.0 if done else -0.1), done


class ActorCritic(nn.Module):
    def __init__(self):
        super().__init__()
        self.body = nn.Sequential(nn.Linear(N_STATES, 16), nn.ReLU())
        self.pi = nn.Linear(16, N_ACTIONS)
        self.v = nn.Linear(16, 1)

    def forward(self, s):
        h = self.body(F.one_hot(s, N_STATES).float())
        return self.pi(h), self.v(h).squeeze(-1)


net = ActorCritic()
with torch.no_grad():
    for p in net.parameters():
        p.copy_(torch.tensor(rng.uniform(-0.5, 0.5, tuple(p.shape)), dtype=torch.float32))
opt = torch.optim.RMSprop(net.parameters(), lr=0.01, alpha=0.99, eps=1e-5)
gamma, lam = 0.95, 0.9
for episode in range(4):
    state, states, actions, rewards, dones = 0, [], [], [], []
    for t in range(8):
        with torch.no_grad():
            logits, _ = net(torch.tensor([state]))
            probs = torch.softmax(logits, -1)[0].numpy()
        action = int(rng.uniform() < probs[1])
        nxt, r, done = env_step(state, action)
        states.append(state); actions.append(action); rewards.append(r); dones.append(done)
        state = 0 if done else nxt
    s = torch.tensor(states)
    logits, values = net(s)
    with torch.no_grad():
        _, last_value = net(torch.tensor([state]))
    adv = torch.zeros(len(rewards))
    gae = 0.0
    vals = values.detach()
    for t in reversed(range(len(rewards))):
        next_v = last_value[0] if t == len(rewards) - 1 else vals[t + 1]
        mask = 0.0 if dones[t] else 1.0
        delta = rewards[t] + gamma * next_v * mask - vals[t]
        gae = delta + gamma * lam * mask * gae
        adv[t] = gae
    returns = adv + vals
    norm_adv = (adv - adv.mean()) / (adv.std() + 1e-8)
    dist = Categorical(logits=logits)
    a = torch.tensor(actions)
    policy_loss = -(dist.log_prob(a) * norm_adv).mean()
    value_loss = F.smooth_l1_loss(values, returns)
    entropy = dist.entropy().mean()
    loss = policy_loss + 0.5 * value_loss - 0.01 * entropy
    opt.zero_grad()
    loss.backward()
    norm = nn.utils.clip_grad_norm_(net.parameters(), 0.5)
    opt.step()
    print(f"ep {episode}: actions {actions} return {sum(rewards):.2f} loss {loss.item():.5f} "
          f"entropy {entropy.item():.5f} grad norm {norm.item():.5f}")
    print(adv, returns)
with torch.no_grad():
    logits, values = net(torch.arange(N_STATES))
print(torch.softmax(logits, -1), values, logits.argmax(-1))
