"""A DQN update as in the PyTorch reinforcement-learning tutorial: a replay batch gathered with
gather(1, actions), a target network copied with load_state_dict and updated softly (Polyak), the
next-state maxima with max(1).values under no_grad and a done mask, SmoothL1Loss, in-place gradient
value clipping, and epsilon-greedy action selection (the random draws come from NumPy)."""
import math
from collections import namedtuple

import numpy as np
import fluxgrad as torch
import fluxgrad.nn as nn

rng = np.random.default_rng(31)
Transition = namedtuple("Transition", ("state", "action", "next_state", "reward"))


class DQN(nn.Module):
    def __init__(self, n_observations, n_actions):
        super().__init__()
        self.layer1 = nn.Linear(n_observations, 16)
        self.layer2 = nn.Linear(16, 16)
        self.layer3 = nn.Linear(16, n_actions)

    def forward(self, x):
        x = torch.relu(self.layer1(x))
        x = torch.relu(self.layer2(x))
        return self.layer3(x)


policy_net = DQN(4, 2)
with torch.no_grad():
    for p in policy_net.parameters():
        p.copy_(torch.from_numpy(rng.normal(0, 0.4, tuple(p.shape)).astype(np.float32)))
target_net = DQN(4, 2)
target_net.load_state_dict(policy_net.state_dict())
optimizer = torch.optim.AdamW(policy_net.parameters(), lr=1e-3, amsgrad=True)
GAMMA, TAU, EPS_START, EPS_END, EPS_DECAY = 0.99, 0.005, 0.9, 0.05, 1000

memory = []
for i in range(24):
    s = torch.tensor(rng.normal(0, 1, 4), dtype=torch.float32).unsqueeze(0)
    a = torch.tensor([[int(rng.integers(0, 2))]], dtype=torch.long)
    ns = None if i % 7 == 6 else torch.tensor(rng.normal(0, 1, 4), dtype=torch.float32).unsqueeze(0)
    r = torch.tensor([float(rng.uniform(-1, 1))])
    memory.append(Transition(s, a, ns, r))


def select_action(state, steps_done):
    sample = rng.uniform()
    eps_threshold = EPS_END + (EPS_START - EPS_END) * math.exp(-1. * steps_done / EPS_DECAY)
    if sample > eps_threshold:
        with torch.no_grad():
            return policy_net(state).max(1).indices.view(1, 1)
    return torch.tensor([[int(rng.integers(0, 2))]], dtype=torch.long)


def optimize_model(batch_idx):
    transitions = [memory[i] for i in batch_idx]
    batch = Transition(*zip(*transitions))
    non_final_mask = torch.tensor(tuple(map(lambda s: s is not None, batch.next_state)), dtype=torch.bool)
    non_final_next_states = torch.cat([s for s in batch.next_state if s is not None])
    state_batch = torch.cat(batch.state)
    action_batch = torch.cat(batch.action)
    reward_batch = torch.cat(batch.reward)
    state_action_values = policy_net(state_batch).gather(1, action_batch)
    next_state_values = torch.zeros(len(batch_idx))
    with torch.no_grad():
        next_state_values[non_final_mask] = target_net(non_final_next_states).max(1).values
    expected = (next_state_values * GAMMA) + reward_batch
    criterion = nn.SmoothL1Loss()
    loss = criterion(state_action_values, expected.unsqueeze(1))
    optimizer.zero_grad()
    loss.backward()
    torch.nn.utils.clip_grad_value_(policy_net.parameters(), 100)
    optimizer.step()
    return loss.item(), non_final_mask


for step in range(6):
    idx = rng.choice(len(memory), 8, replace=False)
    loss, mask = optimize_model(idx)
    target_sd, policy_sd = target_net.state_dict(), policy_net.state_dict()
    for key in policy_sd:
        target_sd[key] = policy_sd[key] * TAU + target_sd[key] * (1 - TAU)
    target_net.load_state_dict(target_sd)
    print(step, round(loss, 6), mask.sum().item(), select_action(memory[step].state, step * 300).item())
print(target_net.layer3.bias, policy_net.layer3.bias)
print((target_net.layer1.weight - policy_net.layer1.weight).abs().max())
print(optimizer.state_dict()["state"][5]["max_exp_avg_sq"])
