"""The optimizers and schedulers people switch between on one problem (Rosenbrock and a tiny
regression): SGD (momentum, nesterov, dampening), Adam (amsgrad), AdamW, RMSprop (centered), Adagrad,
Adadelta, Adamax, NAdam, RAdam, LBFGS with a closure, and schedulers (OneCycleLR, CosineAnnealingLR,
CosineAnnealingWarmRestarts, ReduceLROnPlateau, MultiStepLR, ExponentialLR, SequentialLR, LinearLR)."""
import fluxgrad as torch


def rosenbrock(xy):
    x, y = xy
    return (1 - x) ** 2 + 100 * (y - x ** 2) ** 2


def run(opt_class, steps=20, **kwargs):
    xy = torch.tensor([-1.5, 2.0], requires_grad=True)
    opt = opt_class([xy], **kwargs)
    for _ in range(steps):
        opt.zero_grad()
        loss = rosenbrock(xy)
        loss.backward()
        opt.step()
    return [round(v, 4) for v in xy.tolist()], round(rosenbrock(xy).item(), 4)


print("SGD", run(torch.optim.SGD, lr=1e-4))
print("SGD momentum", run(torch.optim.SGD, lr=1e-4, momentum=0.9))
print("SGD nesterov", run(torch.optim.SGD, lr=1e-4, momentum=0.9, nesterov=True, weight_decay=0.01))
print("SGD dampening", run(torch.optim.SGD, lr=1e-4, momentum=0.9, dampening=0.5))
print("Adam", run(torch.optim.Adam, lr=0.05))
print("Adam amsgrad", run(torch.optim.Adam, lr=0.05, amsgrad=True, weight_decay=0.1))
print("AdamW", run(torch.optim.AdamW, lr=0.05, weight_decay=0.1))
print("RMSprop", run(torch.optim.RMSprop, lr=0.01))
print("RMSprop centered", run(torch.optim.RMSprop, lr=0.01, centered=True, momentum=0.5))
print("Adagrad", run(torch.optim.Adagrad, lr=0.1, lr_decay=0.01))
print("Adadelta", run(torch.optim.Adadelta, lr=1.0))
print("Adamax", run(torch.optim.Adamax, lr=0.05))
print("NAdam", run(torch.optim.NAdam, lr=0.05))
print("RAdam", run(torch.optim.RAdam, lr=0.05, steps=10))
xy = torch.tensor([-1.5, 2.0], requires_grad=True)
lbfgs = torch.optim.LBFGS([xy], lr=1, max_iter=20, history_size=10, line_search_fn="strong_wolfe")


def closure():
    lbfgs.zero_grad()
    loss = rosenbrock(xy)
    loss.backward()
    return loss


for _ in range(3):
    lbfgs.step(closure)
print("LBFGS", [round(v, 3) for v in xy.tolist()], round(rosenbrock(xy).item(), 5))


def lrs(make_scheduler, steps=8, base_lr=0.1, **opt_kwargs):
    p = torch.nn.Parameter(torch.zeros(1))
    opt = torch.optim.SGD([p], lr=base_lr, **opt_kwargs)
    sched = make_scheduler(opt)
    out = []
    for _ in range(steps):
        opt.step()
        sched.step()
        out.append(round(opt.param_groups[0]["lr"], 5))
    return out


print(lrs(lambda o: torch.optim.lr_scheduler.OneCycleLR(o, max_lr=1.0, total_steps=10), momentum=0.9))
print(lrs(lambda o: torch.optim.lr_scheduler.CosineAnnealingLR(o, T_max=4, eta_min=0.01)))
print(lrs(lambda o: torch.optim.lr_scheduler.CosineAnnealingWarmRestarts(o, T_0=3, T_mult=2)))
print(lrs(lambda o: torch.optim.lr_scheduler.MultiStepLR(o, milestones=[2, 5], gamma=0.1)))
print(lrs(lambda o: torch.optim.lr_scheduler.ExponentialLR(o, gamma=0.8)))
print(lrs(lambda o: torch.optim.lr_scheduler.LinearLR(o, start_factor=0.25, total_iters=4)))
print(lrs(lambda o: torch.optim.lr_scheduler.SequentialLR(o, [torch.optim.lr_scheduler.LinearLR(o, start_factor=0.5, total_iters=2), torch.optim.lr_scheduler.ExponentialLR(o, gamma=0.5)], milestones=[3])))
print(lrs(lambda o: torch.optim.lr_scheduler.CyclicLR(o, base_lr=0.01, max_lr=0.1, step_size_up=2), momentum=0.9))
p = torch.nn.Parameter(torch.zeros(1))
opt = torch.optim.SGD([p], lr=1.0)
plateau = torch.optim.lr_scheduler.ReduceLROnPlateau(opt, mode="min", factor=0.5, patience=1)
for val_loss in [1.0, 0.9, 0.95, 0.96, 0.97, 0.5, 0.6, 0.7]:
    plateau.step(val_loss)
    print(opt.param_groups[0]["lr"], end=" ")
print()
opt = torch.optim.Adam([{"params": [torch.nn.Parameter(torch.ones(2))]}, {"params": [torch.nn.Parameter(torch.ones(1))], "lr": 0.1}], lr=0.01)
print([g["lr"] for g in opt.param_groups], opt.defaults["betas"], len(opt.state))
opt.add_param_group({"params": torch.nn.Parameter(torch.zeros(3)), "weight_decay": 0.5})
print(len(opt.param_groups), opt.param_groups[2]["lr"], opt.param_groups[2]["weight_decay"])
