"""Copies and checkpoints in a training run: copy.deepcopy of a model (an EMA / target network)
and of its optimizer, add_param_group for a layer unfrozen mid-training with its own lr,
per-group learning rates, optimizer.state_dict() saved with torch.save into a BytesIO and
loaded into a fresh optimizer mid-training (the continued run equals the uninterrupted one)."""
import copy
import io
import numpy as np
import fluxgrad as torch
import fluxgrad.nn as nn
import fluxgrad.nn.functional as F

rng = np.random.default_rng(8)
X = torch.from_numpy(rng.standard_normal((16, 5)).astype(np.float32))
Y = torch.from_numpy(rng.standard_normal((16, 1)).astype(np.float32))


def make_model():
    m = nn.Sequential(nn.Linear(5, 6), nn.Tanh(), nn.Linear(6, 1))
    g = np.random.default_rng(1)
    with torch.no_grad():
        for p in m.parameters():
            p.copy_(torch.from_numpy(g.uniform(-0.5, 0.5, tuple(p.shape)).astype(np.float32)))
    return m


def step(model, opt):
    opt.zero_grad()
    loss = F.mse_loss(model(X), Y)
    loss.backward()
    opt.step()
    return loss.item()


model = make_model()
target = copy.deepcopy(model)
print(target is model, target[0].weight is model[0].weight, torch.equal(target[0].weight, model[0].weight))
for p in target.parameters():
    p.requires_grad_(False)
opt = torch.optim.Adam(model.parameters(), lr=0.01, betas=(0.8, 0.99))
for _ in range(3):
    step(model, opt)
with torch.no_grad():
    for pt, p in zip(target.parameters(), model.parameters()):
        pt.mul_(0.9).add_(p, alpha=0.1)
print(target[2].bias, model[2].bias, target[0].weight.requires_grad)

opt_copy = copy.deepcopy(opt)
print(len(opt_copy.state), opt_copy.param_groups[0]["betas"], opt_copy.param_groups[0]["params"][0] is model[0].weight)

buffer = io.BytesIO()
torch.save({"model": model.state_dict(), "optim": opt.state_dict(), "epoch": 3}, buffer)
print(opt.state_dict()["state"][0]["step"], sorted(opt.state_dict()["state"][0].keys()), opt.state_dict()["param_groups"][0]["params"])
reference = [step(model, opt) for _ in range(3)]

buffer.seek(0)
ckpt = torch.load(buffer)
resumed = make_model()
resumed.load_state_dict(ckpt["model"])
opt2 = torch.optim.Adam(resumed.parameters(), lr=0.5)
opt2.load_state_dict(ckpt["optim"])
print(ckpt["epoch"], opt2.param_groups[0]["lr"], opt2.param_groups[0]["betas"])
continued = [step(resumed, opt2) for _ in range(3)]
print(np.allclose(reference, continued), [f"{v:.6f}" for v in continued])
print(torch.allclose(resumed[0].weight, model[0].weight))

base = make_model()
head = nn.Linear(1, 1)
with torch.no_grad():
    head.weight.fill_(0.5)
    head.bias.fill_(0.1)
sgd = torch.optim.SGD([{"params": base[0].parameters(), "lr": 0.001}, {"params": base[2].parameters()}], lr=0.1, momentum=0.9)
print([g["lr"] for g in sgd.param_groups], [g["momentum"] for g in sgd.param_groups])
for _ in range(2):
    sgd.zero_grad()
    F.mse_loss(head(base(X)), Y).backward()
    sgd.step()
sgd.add_param_group({"params": head.parameters(), "lr": 0.05, "nesterov": False})
print(len(sgd.param_groups), [g["lr"] for g in sgd.param_groups], sgd.param_groups[2]["momentum"])
for group in sgd.param_groups:
    group["lr"] *= 0.5
for _ in range(2):
    sgd.zero_grad()
    loss = F.mse_loss(head(base(X)), Y)
    loss.backward()
    sgd.step()
print(f"{loss.item():.6f}", head.weight, head.bias)
sd = sgd.state_dict()
print([g["params"] for g in sd["param_groups"]], len(sd["state"]), [g["lr"] for g in sd["param_groups"]])
sgd_copy = copy.deepcopy(sgd)
copied_weight = sgd_copy.param_groups[2]["params"][0]
print(copied_weight is head.weight, torch.equal(sgd_copy.state[copied_weight]["momentum_buffer"], sgd.state[head.weight]["momentum_buffer"]))
try:
    sgd.add_param_group({"params": head.parameters()})
except ValueError as e:
    print("ValueError", "more than one parameter group" in str(e))
