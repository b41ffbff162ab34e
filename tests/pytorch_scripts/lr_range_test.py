"""The learning-rate range test ("LR finder") as fastai and pytorch-lr-finder run it: the
learning rate raised exponentially each step by writing param_groups[...]["lr"], an exponentially
smoothed loss with bias correction, stopping when the loss explodes past 4x the best, the
suggested lr at the steepest negative gradient (np.gradient), and the model and optimizer
restored from deep-copied state dicts afterwards."""
import copy

import numpy as np
import fluxgrad as torch
import fluxgrad.nn as nn
import fluxgrad.nn.functional as F

rng = np.random.default_rng(79)
X = torch.from_numpy(rng.normal(0, 1, (64, 5)).astype(np.float32))
w_true = torch.from_numpy(rng.normal(0, 1, (5, 1)).astype(np.float32))
y = X @ w_true + 0.1 * torch.from_numpy(rng.normal(0, 1, (64, 1)).astype(np.float32))
model = nn.Sequential(nn.Linear(5, 16), nn.Tanh(), nn.Linear(16, 1))
with torch.no_grad():
    for p in model.parameters():
        p.copy_(torch.from_numpy(rng.normal(0, 0.3, tuple(p.shape)).astype(np.float32)))
optimizer = torch.optim.SGD(model.parameters(), lr=1e-5, momentum=0.9)
model_state = copy.deepcopy(model.state_dict())
optim_state = copy.deepcopy(optimizer.state_dict())

start_lr, end_lr, num_iter, beta = 1e-4, 10.0, 30, 0.98
gamma = (end_lr / start_lr) ** (1 / (num_iter - 1))
lrs, losses, avg_loss, best = [], [], 0.0, float("inf")
for it in range(num_iter):
    lr = start_lr * gamma ** it
    for g in optimizer.param_groups:
        g["lr"] = lr
    idx = torch.from_numpy(rng.choice(64, 16, replace=False))
    loss = F.mse_loss(model(X[idx]), y[idx])
    optimizer.zero_grad()
    loss.backward()
    optimizer.step()
    avg_loss = beta * avg_loss + (1 - beta) * loss.item()
    smoothed = avg_loss / (1 - beta ** (it + 1))
    if it > 0 and smoothed > 4 * best:
        print("stopping early at", it)
        break
    best = min(best, smoothed)
    lrs.append(lr)
    losses.append(smoothed)
print([f"{l:.3g}" for l in lrs[::5]])
print([round(l, 4) for l in losses[::5]])
grads = np.gradient(np.array(losses))
min_grad_idx = int(grads.argmin())
print("suggested lr %.3e" % lrs[min_grad_idx], min_grad_idx)

model.load_state_dict(model_state)
optimizer.load_state_dict(optim_state)
print(optimizer.param_groups[0]["lr"], len(optimizer.state))
print(torch.allclose(model[0].weight, model_state["0.weight"]), model[2].bias)
