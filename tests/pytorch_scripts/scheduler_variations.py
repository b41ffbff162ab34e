"""Scheduler details: several param groups with a list of lambdas, OneCycleLR three_phase and
cycling Adam's beta1, CyclicLR modes, chaining, ReduceLROnPlateau threshold modes and min_lr per group,
warm-up then cosine via SequentialLR, scheduler state_dict round trips, get_last_lr vs param_groups."""
import fluxgrad as torch
import fluxgrad.nn as nn
from fluxgrad.optim import lr_scheduler as S


def params():
    return [nn.Parameter(torch.ones(2)), nn.Parameter(torch.ones(3))]


def steps(opt, sched, n, metric=None):
    out = []
    for i in range(n):
        opt.step()
        sched.step() if metric is None else sched.step(metric[i])
        out.append([round(g["lr"], 6) for g in opt.param_groups])
    return out


a, b = params()
opt = torch.optim.SGD([{"params": [a]}, {"params": [b], "lr": 0.5}], lr=0.1, momentum=0.9)
sched = S.LambdaLR(opt, lr_lambda=[lambda e: 0.5 ** e, lambda e: 1.0 / (e + 1)])
print(steps(opt, sched, 4), sched.get_last_lr(), sched.last_epoch)
a, b = params()
opt = torch.optim.Adam([{"params": [a]}, {"params": [b]}], lr=0.1)
sched = S.OneCycleLR(opt, max_lr=[0.5, 1.0], total_steps=9, three_phase=True)
out = []
for _ in range(9):
    opt.step()
    sched.step()
    out.append((round(opt.param_groups[1]["lr"], 5), round(opt.param_groups[0]["betas"][0], 5)))
print(out)
opt = torch.optim.SGD(params(), lr=0.1, momentum=0.9)
sched = S.OneCycleLR(opt, max_lr=0.3, total_steps=6, div_factor=10, final_div_factor=100, base_momentum=0.8, max_momentum=0.95)
print([(round(opt.param_groups[0]["lr"], 5), round(opt.param_groups[0]["momentum"], 5))] + [
    (round(g["lr"], 5), round(g["momentum"], 5)) for g in [opt.param_groups[0]] for _ in [opt.step(), sched.step()]])
for mode in ("triangular", "triangular2", "exp_range"):
    opt = torch.optim.SGD(params(), lr=0.1, momentum=0.9)
    sched = S.CyclicLR(opt, base_lr=0.01, max_lr=0.1, step_size_up=2, step_size_down=3, mode=mode, gamma=0.9)
    print(mode, [lrs[0] for lrs in steps(opt, sched, 12)])
opt = torch.optim.SGD(params(), lr=1.0)
chain = S.ChainedScheduler([S.ConstantLR(opt, factor=0.1, total_iters=2), S.ExponentialLR(opt, gamma=0.9)])
print(steps(opt, chain, 4))
opt = torch.optim.SGD(params(), lr=1.0)
warm = S.LinearLR(opt, start_factor=0.1, total_iters=3)
cos = S.CosineAnnealingLR(opt, T_max=5, eta_min=0.0)
seq = S.SequentialLR(opt, schedulers=[warm, cos], milestones=[3])
print(steps(opt, seq, 9))
opt = torch.optim.SGD([{"params": [params()[0]]}, {"params": [params()[1]], "lr": 0.5}], lr=1.0)
plateau = S.ReduceLROnPlateau(opt, mode="min", factor=0.5, patience=1, threshold=0.1, threshold_mode="abs", min_lr=[0.2, 0.3])
print(steps(opt, plateau, 8, [1.0, 0.95, 0.92, 0.8, 0.79, 0.78, 0.77, 0.76]))
opt = torch.optim.SGD(params(), lr=1.0)
plateau = S.ReduceLROnPlateau(opt, mode="max", factor=0.2, patience=0, threshold=0.5, threshold_mode="rel", eps=1e-3)
print(steps(opt, plateau, 5, [1.0, 1.2, 1.6, 1.7, 3.0]), plateau.state_dict()["best"], plateau.num_bad_epochs)
opt = torch.optim.SGD(params(), lr=0.2)
sched = S.CosineAnnealingWarmRestarts(opt, T_0=2, T_mult=2)
for epoch in range(3):
    for i in range(4):
        opt.step()
        sched.step(epoch + i / 4)
    print(epoch, [round(x, 6) for x in sched.get_last_lr()])
opt = torch.optim.SGD(params(), lr=0.1)
sched = S.MultiStepLR(opt, milestones=[1, 3], gamma=0.5)
steps(opt, sched, 2)
state = sched.state_dict()
opt2 = torch.optim.SGD(params(), lr=0.1)
sched2 = S.MultiStepLR(opt2, milestones=[1, 3], gamma=0.5)
sched2.load_state_dict(state)
opt2.param_groups[0]["lr"] = opt.param_groups[0]["lr"]
print(steps(opt, sched, 3), steps(opt2, sched2, 3), sorted(k for k in state if not k.startswith("_")))
opt = torch.optim.SGD(params(), lr=0.1)
sched = S.StepLR(opt, step_size=2, gamma=0.1, last_epoch=-1)
print(sched.get_last_lr(), opt.param_groups[0]["initial_lr"], sched.base_lrs)
