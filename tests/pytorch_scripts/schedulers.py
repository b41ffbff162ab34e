"""Learning-rate schedulers: StepLR, MultiStepLR, ExponentialLR, CosineAnnealingLR, OneCycleLR,
LambdaLR, ReduceLROnPlateau, LinearLR, SequentialLR, CosineAnnealingWarmRestarts, CyclicLR."""
import fluxgrad as torch
import fluxgrad.nn as nn
from fluxgrad.optim import lr_scheduler


def run(make_sched, steps=10, opt_cls=torch.optim.SGD, **opt_kw):
    w = nn.Parameter(torch.ones(2))
    opt = opt_cls([w], lr=0.1, **opt_kw)
    sched = make_sched(opt)
    lrs = []
    for _ in range(steps):
        opt.zero_grad()
        (w ** 2).sum().backward()
        opt.step()
        sched.step()
        lrs.append(round(opt.param_groups[0]["lr"], 6))
    return lrs, [round(v, 6) for v in sched.get_last_lr()]


print(run(lambda o: lr_scheduler.StepLR(o, step_size=3, gamma=0.5)))
print(run(lambda o: torch.optim.lr_scheduler.MultiStepLR(o, milestones=[2, 5], gamma=0.1)))
print(run(lambda o: lr_scheduler.ExponentialLR(o, gamma=0.9)))
print(run(lambda o: lr_scheduler.CosineAnnealingLR(o, T_max=5, eta_min=0.01)))
print(run(lambda o: lr_scheduler.CosineAnnealingLR(o, T_max=10), 12))
print(run(lambda o: lr_scheduler.OneCycleLR(o, max_lr=1.0, total_steps=10), 10, momentum=0.9))
print(run(lambda o: lr_scheduler.OneCycleLR(o, max_lr=0.5, epochs=2, steps_per_epoch=5, anneal_strategy="linear", pct_start=0.4), 10, opt_cls=torch.optim.Adam))
print(run(lambda o: lr_scheduler.LambdaLR(o, lr_lambda=lambda epoch: 0.95 ** epoch)))
print(run(lambda o: lr_scheduler.LambdaLR(o, lambda step: min(1.0, (step + 1) / 4))))
print(run(lambda o: lr_scheduler.LinearLR(o, start_factor=0.25, total_iters=4)))
print(run(lambda o: lr_scheduler.SequentialLR(o, [lr_scheduler.LinearLR(o, start_factor=0.5, total_iters=3), lr_scheduler.ExponentialLR(o, gamma=0.8)], milestones=[3])))
print(run(lambda o: lr_scheduler.CosineAnnealingWarmRestarts(o, T_0=3, T_mult=2, eta_min=0.001), 12))
print(run(lambda o: lr_scheduler.CyclicLR(o, base_lr=0.01, max_lr=0.1, step_size_up=3), 10, momentum=0.9))
print(run(lambda o: lr_scheduler.PolynomialLR(o, total_iters=5, power=2.0)))
print(run(lambda o: lr_scheduler.ConstantLR(o, factor=0.5, total_iters=3)))
print(run(lambda o: lr_scheduler.MultiplicativeLR(o, lambda e: 0.9)))
w = nn.Parameter(torch.ones(2))
opt = torch.optim.SGD([w], lr=1.0)
plateau = lr_scheduler.ReduceLROnPlateau(opt, mode="min", factor=0.5, patience=2, threshold=0.01)
for val_loss in [1.0, 0.9, 0.91, 0.92, 0.95, 0.89, 0.9, 0.9, 0.9, 0.9, 0.5]:
    plateau.step(val_loss)
    print(opt.param_groups[0]["lr"], end=" ")
print()
opt = torch.optim.SGD([w], lr=1.0)
plateau = lr_scheduler.ReduceLROnPlateau(opt, "max", factor=0.1, patience=0, cooldown=1, min_lr=0.001)
for acc in [0.5, 0.4, 0.4, 0.3, 0.3, 0.2, 0.1]:
    plateau.step(acc)
    print(opt.param_groups[0]["lr"], end=" ")
print()
opt = torch.optim.SGD([w], lr=0.1)
sched = lr_scheduler.StepLR(opt, 2)
for _ in range(3):
    opt.step()
    sched.step()
state = sched.state_dict()
print(state["last_epoch"], state["step_size"], sched.last_epoch)
opt2 = torch.optim.SGD([w], lr=0.1)
sched2 = lr_scheduler.StepLR(opt2, 2)
sched2.load_state_dict(state)
print(sched2.last_epoch, sched2.get_last_lr())
