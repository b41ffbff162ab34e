"""Learning-rate schedules written by users: a warmup + inverse-square-root (Noam) schedule as a
LambdaLR, a subclass of lr_scheduler._LRScheduler and of LRScheduler overriding get_lr() with
self.last_epoch and self.base_lrs, a chainable subclass reading group['lr'], manual lr setting in
the loop (for g in opt.param_groups: g['lr'] = ...), get_last_lr, and a scheduler's state_dict
round trip; each printed per step."""
import math

import fluxgrad as torch
import fluxgrad.nn as nn
from fluxgrad.optim.lr_scheduler import LambdaLR, LRScheduler, _LRScheduler


class WarmupCosine(_LRScheduler):
    def __init__(self, optimizer, warmup, total, last_epoch=-1):
        self.warmup, self.total = warmup, total
        super().__init__(optimizer, last_epoch)

    def get_lr(self):
        if self.last_epoch < self.warmup:
            return [base * (self.last_epoch + 1) / self.warmup for base in self.base_lrs]
        progress = (self.last_epoch - self.warmup) / max(1, self.total - self.warmup)
        return [base * 0.5 * (1 + math.cos(math.pi * progress)) for base in self.base_lrs]


class HalveEvery(LRScheduler):
    def __init__(self, optimizer, every=2, last_epoch=-1):
        self.every = every
        super().__init__(optimizer, last_epoch)

    def get_lr(self):
        if self.last_epoch == 0 or self.last_epoch % self.every:
            return [group["lr"] for group in self.optimizer.param_groups]
        return [group["lr"] * 0.5 for group in self.optimizer.param_groups]


def noam(d_model=16, warmup=4):
    return lambda step: d_model ** -0.5 * min((step + 1) ** -0.5, (step + 1) * warmup ** -1.5)


model = nn.Linear(3, 2)
for make in (lambda o: WarmupCosine(o, warmup=3, total=8), lambda o: HalveEvery(o, every=3),
             lambda o: LambdaLR(o, lr_lambda=noam())):
    opt = torch.optim.SGD([{"params": [model.weight]}, {"params": [model.bias], "lr": 0.5}], lr=1.0)
    sched = make(opt)
    row = [tuple(round(lr, 6) for lr in sched.get_last_lr())]
    for epoch in range(8):
        opt.step()
        sched.step()
        row.append(tuple(round(g["lr"], 6) for g in opt.param_groups))
    print(type(sched).__name__, sched.last_epoch, row)
    state = sched.state_dict()
    print(sorted(k for k in ("base_lrs", "last_epoch") if k in state), state["base_lrs"], state["last_epoch"])

opt = torch.optim.Adam(model.parameters(), lr=0.1)
for epoch in range(6):
    if epoch in (2, 4):
        for g in opt.param_groups:
            g["lr"] *= 0.1
    opt.step()
    print(epoch, round(opt.param_groups[0]["lr"], 6))

opt = torch.optim.SGD(model.parameters(), lr=0.1)
sched = WarmupCosine(opt, warmup=2, total=6)
for _ in range(3):
    opt.step()
    sched.step()
saved = sched.state_dict()
opt2 = torch.optim.SGD(model.parameters(), lr=0.1)
sched2 = WarmupCosine(opt2, warmup=2, total=6)
sched2.load_state_dict(saved)
opt2.step()
sched2.step()
sched.step()
print(sched.get_last_lr(), sched2.get_last_lr(), opt2.param_groups[0]["initial_lr"])
