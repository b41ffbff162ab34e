"""Random training loops: an optimizer with randomly drawn options (weight_decay, momentum,
dampening, nesterov, amsgrad, maximize, centered, foreach/fused/capturable flags accepted,
decoupled weight decay, ...), parameter groups with their own options, and an lr scheduler
(or a chain of them), for fluxgrad.optim and torch.optim alike. `Loop(seed)` draws it; its
`run(m, compiled)` trains a small fixed model in float64 (the training step compiled with
fullgraph=True, the scheduler stepped outside it) and returns, for every step, the loss, the
learning rates and the parameters.
"""
import numpy as np

OPTIMIZERS = {
    "SGD": lambda r: dict(lr=_lr(r, .1), momentum=_pick(r, [0., .9, .5]),
                          dampening=_pick(r, [0., 0., .3]), weight_decay=_wd(r),
                          nesterov=False, maximize=_flag(r, .2), foreach=_pick(r, [None, True,
                                                                                    False])),
    "SGD_nesterov": lambda r: dict(lr=_lr(r, .1), momentum=.9, nesterov=True, weight_decay=_wd(r),
                                   maximize=_flag(r, .2)),
    "Adam": lambda r: dict(lr=_lr(r, .01), betas=(_pick(r, [.9, .8]), _pick(r, [.999, .99])),
                           eps=_pick(r, [1e-8, 1e-6]), weight_decay=_wd(r),
                           amsgrad=_flag(r, .4), maximize=_flag(r, .2),
                           foreach=_pick(r, [None, False]), capturable=False,
                           differentiable=False, fused=None),
    "AdamW": lambda r: dict(lr=_lr(r, .01), weight_decay=_pick(r, [.01, .1, 0.]),
                            amsgrad=_flag(r, .4), maximize=_flag(r, .2)),
    "RMSprop": lambda r: dict(lr=_lr(r, .01), alpha=_pick(r, [.99, .9]), eps=1e-8,
                              weight_decay=_wd(r), momentum=_pick(r, [0., .5]),
                              centered=_flag(r, .4), maximize=_flag(r, .2)),
    "Adagrad": lambda r: dict(lr=_lr(r, .1), lr_decay=_pick(r, [0., .01]), weight_decay=_wd(r),
                              initial_accumulator_value=_pick(r, [.1, .5]),
                              maximize=_flag(r, .2)),
    "Adadelta": lambda r: dict(lr=_pick(r, [1., .5]), rho=_pick(r, [.9, .95]),
                               weight_decay=_wd(r), maximize=_flag(r, .2)),
    "Adamax": lambda r: dict(lr=_lr(r, .01), weight_decay=_wd(r), maximize=_flag(r, .2)),
    "NAdam": lambda r: dict(lr=_lr(r, .01), weight_decay=_wd(r),
                            momentum_decay=_pick(r, [4e-3, 1e-2]),
                            decoupled_weight_decay=_flag(r, .4), maximize=_flag(r, .2)),
    "RAdam": lambda r: dict(lr=_lr(r, .01), weight_decay=_wd(r),
                            decoupled_weight_decay=_flag(r, .4), maximize=_flag(r, .2)),
    "ASGD": lambda r: dict(lr=_lr(r, .01), lambd=_pick(r, [1e-4, 1e-2]), alpha=.75,
                           t0=_pick(r, [1., 3.]), weight_decay=_wd(r), maximize=_flag(r, .2)),
    "Rprop": lambda r: dict(lr=_lr(r, .01), etas=(.5, 1.2), step_sizes=(1e-6, 50),
                            maximize=_flag(r, .2)),
}

SCHEDULERS = {
    "none": lambda r, n: None,
    "StepLR": lambda r, n: dict(step_size=int(r.integers(1, 3)), gamma=_pick(r, [.5, .9])),
    "MultiStepLR": lambda r, n: dict(milestones=[1, 3], gamma=.5),
    "ExponentialLR": lambda r, n: dict(gamma=_pick(r, [.9, .5])),
    "CosineAnnealingLR": lambda r, n: dict(T_max=int(r.integers(2, 6)),
                                           eta_min=_pick(r, [0., 1e-3])),
    "LinearLR": lambda r, n: dict(start_factor=_pick(r, [.5, 1 / 3]), total_iters=3),
    "ConstantLR": lambda r, n: dict(factor=.5, total_iters=2),
    "PolynomialLR": lambda r, n: dict(total_iters=4, power=_pick(r, [1., 2.])),
    "CosineAnnealingWarmRestarts": lambda r, n: dict(T_0=2, T_mult=int(r.integers(1, 3))),
    "OneCycleLR": lambda r, n: dict(max_lr=.05, total_steps=n + 1,
                                    anneal_strategy=_pick(r, ["cos", "linear"]),
                                    three_phase=_flag(r, .5), cycle_momentum=_flag(r, .5)),
    "CyclicLR": lambda r, n: dict(base_lr=.001, max_lr=.02, step_size_up=2,
                                  mode=_pick(r, ["triangular", "triangular2", "exp_range"]),
                                  cycle_momentum=_flag(r, .3)),
}


def _pick(r, options):
    return options[int(r.integers(len(options)))]


def _flag(r, p):
    return bool(r.random() < p)


def _lr(r, base):
    return base * _pick(r, [1., .5, 2.])


def _wd(r):
    return _pick(r, [0., 0., 1e-2, .1])


class Loop:
    """An optimizer, its options, parameter groups, scheduler and data, drawn for `seed`."""

    def __init__(self, seed, steps=6):
        self.rng = r = np.random.default_rng(seed)
        self.steps = steps
        self.optimizer = _pick(r, list(OPTIMIZERS))
        self.options = OPTIMIZERS[self.optimizer](r)
        self.name = "SGD" if self.optimizer == "SGD_nesterov" else self.optimizer
        self.groups = _flag(r, .4)  # the bias in a group of its own, with its own lr
        self.group_lr = self.options["lr"] * _pick(r, [.5, 2.])
        self.scheduler = _pick(r, list(SCHEDULERS))
        self.scheduler_options = SCHEDULERS[self.scheduler](r, steps)
        self.w = r.uniform(-1, 1, (3, 4))
        self.b = r.uniform(-1, 1, 3)
        self.x = r.uniform(-1, 1, (5, 4))
        self.y = r.uniform(-1, 1, (5, 3))

    def run(self, m, compiled=False):
        w = m.nn.Parameter(m.tensor(self.w))
        b = m.nn.Parameter(m.tensor(self.b))
        if self.groups:
            params = [{"params": [w]}, {"params": [b], "lr": self.group_lr}]
        else:
            params = [w, b]
        opt = getattr(m.optim, self.name)(params, **self.options)
        sched = None if self.scheduler_options is None else getattr(
            m.optim.lr_scheduler, self.scheduler)(opt, **self.scheduler_options)
        x, y = m.tensor(self.x), m.tensor(self.y)
        history = []

        def step(x, y):
            opt.zero_grad()
            loss = ((m.tanh(x @ w.T + b) - y) ** 2).mean()
            loss.backward()
            opt.step()
            return loss
        if compiled:
            step = m.compile(step, fullgraph=True)
        for _ in range(self.steps):
            loss = step(x, y)
            if sched is not None:
                sched.step()
            history.append((loss.item(), [g["lr"] for g in opt.param_groups],
                            w.detach().numpy().copy(), b.detach().numpy().copy()))
        return history

    def describe(self):
        return (f"{self.name}({self.options}), groups={self.groups}, "
                f"{self.scheduler}({self.scheduler_options})")
