"""Resuming training mid-schedule the way checkpointing code does: warmup (LinearLR) then
CosineAnnealingLR through SequentialLR, OneCycleLR with Adam's beta1 cycling, CyclicLR with
momentum cycling on SGD, CosineAnnealingWarmRestarts stepped with fractional epochs, and
ReduceLROnPlateau (mode='max', threshold_mode='abs', cooldown, min_lr per group): each saved with
state_dict after a few steps, restored into fresh optimizer+scheduler objects, and continued, the
lrs matching an uninterrupted run; get_last_lr, last_epoch and _step_count-free checks."""
import io

import fluxgrad as torch
import fluxgrad.nn as nn
from fluxgrad.optim import lr_scheduler as sched


def make(kind):
    model = nn.Linear(2, 1)
    if kind == "seq":
        opt = torch.optim.SGD(model.parameters(), lr=0.1)
        warm = sched.LinearLR(opt, start_factor=0.1, total_iters=3)
        cos = sched.CosineAnnealingLR(opt, T_max=6, eta_min=0.001)
        return opt, sched.SequentialLR(opt, [warm, cos], milestones=[3])
    if kind == "onecycle":
        opt = torch.optim.Adam(model.parameters(), lr=0.01)
        return opt, sched.OneCycleLR(opt, max_lr=0.05, total_steps=10, pct_start=0.3)
    if kind == "cyclic":
        opt = torch.optim.SGD(model.parameters(), lr=0.01, momentum=0.9)
        return opt, sched.CyclicLR(opt, base_lr=0.001, max_lr=0.01, step_size_up=3, mode="triangular2")
    if kind == "restarts":
        opt = torch.optim.SGD(model.parameters(), lr=0.1)
        return opt, sched.CosineAnnealingWarmRestarts(opt, T_0=3, T_mult=2, eta_min=0.0)


def lr_row(opt):
    g = opt.param_groups[0]
    extra = g.get("betas", (g.get("momentum"),))[0]
    return round(g["lr"], 7), None if extra is None else round(extra, 5)


for kind in ("seq", "onecycle", "cyclic", "restarts"):
    opt, s = make(kind)
    full = []
    for step in range(9):
        opt.step()
        s.step()
        full.append(lr_row(opt))
    opt, s = make(kind)
    resumed = []
    for step in range(4):
        opt.step()
        s.step()
        resumed.append(lr_row(opt))
    buf = io.BytesIO()
    torch.save({"optimizer": opt.state_dict(), "scheduler": s.state_dict()}, buf)
    buf.seek(0)
    ckpt = torch.load(buf, weights_only=False)
    opt2, s2 = make(kind)
    opt2.load_state_dict(ckpt["optimizer"])
    s2.load_state_dict(ckpt["scheduler"])
    print(kind, s2.last_epoch, [round(v, 7) for v in s2.get_last_lr()], lr_row(opt2))
    for step in range(5):
        opt2.step()
        s2.step()
        resumed.append(lr_row(opt2))
    print(full)
    print(full == resumed)

opt, s = make("restarts")
for i in range(7):
    s.step(i * 0.5)
    print(round(i * 0.5, 1), round(opt.param_groups[0]["lr"], 6))

model = nn.Linear(2, 1)
opt = torch.optim.SGD([{"params": [model.weight]}, {"params": [model.bias], "lr": 0.05}], lr=0.1)
plateau = sched.ReduceLROnPlateau(opt, mode="max", factor=0.5, patience=1, threshold=0.01,
                                  threshold_mode="abs", cooldown=1, min_lr=[0.02, 0.001])
accs = [0.5, 0.6, 0.605, 0.61, 0.6, 0.6, 0.6, 0.6, 0.7, 0.7, 0.69]
for epoch, acc in enumerate(accs):
    plateau.step(acc)
    print(epoch, acc, [round(g["lr"], 5) for g in opt.param_groups], plateau.num_bad_epochs, plateau.best)
state = plateau.state_dict()
print([k in state for k in ("best", "num_bad_epochs", "cooldown_counter", "last_epoch", "min_lrs")])
fresh = sched.ReduceLROnPlateau(opt, mode="max")
fresh.load_state_dict(state)
print(fresh.best, fresh.patience, fresh.cooldown, fresh.mode, fresh.get_last_lr())
