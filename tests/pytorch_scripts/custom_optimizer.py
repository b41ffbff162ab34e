"""Writing an optimizer by subclassing torch.optim.Optimizer the way blog posts implement Lion,
SGD with momentum and Adam from scratch: defaults and param_groups, per-parameter state dicts
created lazily, @torch.no_grad() step(closure=None) with the closure re-evaluating the loss,
add_param_group with its own lr, zero_grad(set_to_none), state_dict / load_state_dict round trip,
matching the built-in SGD and Adam step for step, and a learning-rate scheduler driving the custom
optimizer."""
import math

import numpy as np
import fluxgrad as torch
import fluxgrad.nn as nn
import fluxgrad.nn.functional as F


class MySGD(torch.optim.Optimizer):
    def __init__(self, params, lr=0.01, momentum=0.0, weight_decay=0.0):
        if lr < 0.0:
            raise ValueError(f"Invalid learning rate: {lr}")
        super().__init__(params, dict(lr=lr, momentum=momentum, weight_decay=weight_decay))

    @torch.no_grad()
    def step(self, closure=None):
        loss = None
        if closure is not None:
            with torch.enable_grad():
                loss = closure()
        for group in self.param_groups:
            for p in group["params"]:
                if p.grad is None:
                    continue
                d_p = p.grad
                if group["weight_decay"] != 0:
                    d_p = d_p.add(p, alpha=group["weight_decay"])
                if group["momentum"] != 0:
                    state = self.state[p]
                    if "momentum_buffer" not in state:
                        buf = state["momentum_buffer"] = torch.clone(d_p).detach()
                    else:
                        buf = state["momentum_buffer"]
                        buf.mul_(group["momentum"]).add_(d_p)
                    d_p = buf
                p.add_(d_p, alpha=-group["lr"])
        return loss


class MyAdam(torch.optim.Optimizer):
    def __init__(self, params, lr=1e-3, betas=(0.9, 0.999), eps=1e-8):
        super().__init__(params, {"lr": lr, "betas": betas, "eps": eps})

    @torch.no_grad()
    def step(self, closure=None):
        for group in self.param_groups:
            beta1, beta2 = group["betas"]
            for p in group["params"]:
                if p.grad is None:
                    continue
                state = self.state[p]
                if len(state) == 0:
                    state["step"] = 0
                    state["exp_avg"] = torch.zeros_like(p, memory_format=torch.preserve_format)
                    state["exp_avg_sq"] = torch.zeros_like(p)
                state["step"] += 1
                state["exp_avg"].mul_(beta1).add_(p.grad, alpha=1 - beta1)
                state["exp_avg_sq"].mul_(beta2).addcmul_(p.grad, p.grad, value=1 - beta2)
                bias1 = 1 - beta1 ** state["step"]
                bias2 = 1 - beta2 ** state["step"]
                denom = (state["exp_avg_sq"].sqrt() / math.sqrt(bias2)).add_(group["eps"])
                p.addcdiv_(state["exp_avg"], denom, value=-group["lr"] / bias1)


class Lion(torch.optim.Optimizer):
    def __init__(self, params, lr=1e-4, betas=(0.9, 0.99), weight_decay=0.0):
        super().__init__(params, dict(lr=lr, betas=betas, weight_decay=weight_decay))

    @torch.no_grad()
    def step(self, closure=None):
        for group in self.param_groups:
            for p in filter(lambda q: q.grad is not None, group["params"]):
                p.data.mul_(1 - group["lr"] * group["weight_decay"])
                state = self.state[p]
                if "exp_avg" not in state:
                    state["exp_avg"] = torch.zeros_like(p)
                exp_avg = state["exp_avg"]
                beta1, beta2 = group["betas"]
                update = exp_avg * beta1 + p.grad * (1 - beta1)
                p.add_(torch.sign(update), alpha=-group["lr"])
                exp_avg.mul_(beta2).add_(p.grad, alpha=1 - beta2)


rng = np.random.default_rng(73)
X = torch.from_numpy(rng.standard_normal((16, 3)).astype(np.float32))
y = torch.from_numpy(rng.standard_normal((16, 1)).astype(np.float32))


def make():
    m = nn.Sequential(nn.Linear(3, 5), nn.Tanh(), nn.Linear(5, 1))
    local = np.random.default_rng(2)
    with torch.no_grad():
        for p in m.parameters():
            p.copy_(torch.from_numpy(local.uniform(-0.5, 0.5, tuple(p.shape)).astype(np.float32)))
    return m


for mine, builtin in ((lambda p: MySGD(p, lr=0.05, momentum=0.9, weight_decay=1e-3),
                       lambda p: torch.optim.SGD(p, lr=0.05, momentum=0.9, weight_decay=1e-3)),
                      (lambda p: MyAdam(p, lr=0.01), lambda p: torch.optim.Adam(p, lr=0.01))):
    a, b = make(), make()
    oa, ob = mine(a.parameters()), builtin(b.parameters())
    for step in range(5):
        for m, o in ((a, oa), (b, ob)):
            o.zero_grad()
            F.mse_loss(m(X), y).backward()
            o.step()
    diff = max((p - q).abs().max().item() for p, q in zip(a.parameters(), b.parameters()))
    print(type(oa).__name__, diff < 1e-6, F.mse_loss(a(X), y).item())

model = make()
opt = Lion(model.parameters(), lr=0.01, weight_decay=0.1)
print(opt.defaults, len(opt.param_groups), len(opt.state))
sched = torch.optim.lr_scheduler.StepLR(opt, step_size=2, gamma=0.5)
for step in range(4):
    opt.zero_grad(set_to_none=True)
    loss = F.mse_loss(model(X), y)
    loss.backward()
    opt.step()
    sched.step()
    print(step, f"{loss.item():.5f}", opt.param_groups[0]["lr"], len(opt.state))
print(sorted(opt.state[model[0].weight].keys()), opt.state[model[0].weight]["exp_avg"][0])

sgd = MySGD(make().parameters(), lr=0.1)
extra = nn.Parameter(torch.ones(2))
sgd.add_param_group({"params": [extra], "lr": 0.5, "momentum": 0.5})
print([(g["lr"], g["momentum"], g["weight_decay"], len(g["params"])) for g in sgd.param_groups])
closure_model = make()
copt = MySGD(closure_model.parameters(), lr=0.1, momentum=0.9)


def closure():
    copt.zero_grad()
    loss = F.mse_loss(closure_model(X), y)
    loss.backward()
    return loss


for step in range(3):
    print(step, f"{copt.step(closure).item():.5f}")
sd = copt.state_dict()
print(sorted(sd), sd["param_groups"][0]["params"], sorted(sd["state"]), sd["state"][0]["momentum_buffer"].shape)
copt2 = MySGD(make().parameters(), lr=0.3)
copt2.load_state_dict(sd)
print(copt2.param_groups[0]["lr"], torch.equal(copt2.state[copt2.param_groups[0]["params"][0]]["momentum_buffer"], sd["state"][0]["momentum_buffer"]))
try:
    MySGD(make().parameters(), lr=-1)
except ValueError as e:
    print("ValueError", e)
try:
    MySGD([], lr=0.1)
except ValueError as e:
    print("ValueError", "empty parameter list" in str(e))
