"""A PPO update as in CleanRL: a shared-trunk actor-critic, Categorical log_prob and entropy,
the probability ratio exp(new - old), the clipped surrogate (torch.max of two negated terms),
clipped value loss, advantage normalisation (std with Bessel's correction), minibatches from a
NumPy permutation, the approx-KL diagnostics and clip fraction, and clip_grad_norm_."""
import numpy as np
import fluxgrad as torch
import fluxgrad.nn as nn
from fluxgrad.distributions.categorical import Categorical

rng = np.random.default_rng(37)


def layer_init(layer, std=np.sqrt(2), bias_const=0.0):
    with torch.no_grad():
        layer.weight.copy_(torch.from_numpy(rng.normal(0, std / 3, tuple(layer.weight.shape)).astype(np.float32)))
    torch.nn.init.constant_(layer.bias, bias_const)
    return layer


class Agent(nn.Module):
    def __init__(self):
        super().__init__()
        self.critic = nn.Sequential(layer_init(nn.Linear(4, 16)), nn.Tanh(), layer_init(nn.Linear(16, 1), std=1.0))
        self.actor = nn.Sequential(layer_init(nn.Linear(4, 16)), nn.Tanh(), layer_init(nn.Linear(16, 3), std=0.01))

    def get_value(self, x):
        return self.critic(x)

    def get_action_and_value(self, x, action=None):
        logits = self.actor(x)
        probs = Categorical(logits=logits)
        if action is None:
            action = probs.probs.argmax(-1)
        return action, probs.log_prob(action), probs.entropy(), self.critic(x)


agent = Agent()
optimizer = torch.optim.Adam(agent.parameters(), lr=2.5e-3, eps=1e-5)
B = 16
obs = torch.from_numpy(rng.normal(0, 1, (B, 4)).astype(np.float32))
actions = torch.from_numpy(rng.integers(0, 3, B))
with torch.no_grad():
    _, logprobs, _, values = agent.get_action_and_value(obs, actions)
values = values.flatten()
returns = values + torch.from_numpy(rng.normal(0, 1, B).astype(np.float32))
advantages = returns - values
print(logprobs[:4], values[:4])

clip_coef, vf_coef, ent_coef = 0.2, 0.5, 0.01
for epoch in range(3):
    perm = rng.permutation(B)
    for start in range(0, B, 8):
        mb = torch.from_numpy(perm[start:start + 8])
        _, newlogprob, entropy, newvalue = agent.get_action_and_value(obs[mb], actions[mb])
        logratio = newlogprob - logprobs[mb]
        ratio = logratio.exp()
        with torch.no_grad():
            old_approx_kl = (-logratio).mean()
            approx_kl = ((ratio - 1) - logratio).mean()
            clipfrac = ((ratio - 1.0).abs() > clip_coef).float().mean().item()
        mb_adv = advantages[mb]
        mb_adv = (mb_adv - mb_adv.mean()) / (mb_adv.std() + 1e-8)
        pg_loss1 = -mb_adv * ratio
        pg_loss2 = -mb_adv * torch.clamp(ratio, 1 - clip_coef, 1 + clip_coef)
        pg_loss = torch.max(pg_loss1, pg_loss2).mean()
        newvalue = newvalue.view(-1)
        v_loss_unclipped = (newvalue - returns[mb]) ** 2
        v_clipped = values[mb] + torch.clamp(newvalue - values[mb], -clip_coef, clip_coef)
        v_loss_clipped = (v_clipped - returns[mb]) ** 2
        v_loss = 0.5 * torch.max(v_loss_unclipped, v_loss_clipped).mean()
        entropy_loss = entropy.mean()
        loss = pg_loss - ent_coef * entropy_loss + v_loss * vf_coef
        optimizer.zero_grad()
        loss.backward()
        norm = nn.utils.clip_grad_norm_(agent.parameters(), 0.5)
        optimizer.step()
        print(epoch, start, round(loss.item(), 5), round(approx_kl.item(), 7), round(old_approx_kl.item(), 7),
              clipfrac, round(norm.item(), 5))
y_pred, y_true = values.numpy(), returns.numpy()
var_y = np.var(y_true)
print(round(float(1 - np.var(y_true - y_pred) / var_y), 5))
