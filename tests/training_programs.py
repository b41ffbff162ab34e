"""Random whole small training runs, for any library with PyTorch's API (fluxgrad eager or
compiled, and torch itself), in float32.

A run is a random nn.Sequential (Linear, RNNCell/GRUCell, Conv1d, Conv2d, batch/layer/group
norms, activations, Dropout(p=0), max/average/adaptive pooling, Embedding, Flatten) on a random
batch, a random loss, a random optimizer (SGD with momentum, nesterov and weight decay,
Adam/AdamW with amsgrad, RMSprop centered, Adagrad, Adamax, NAdam, RAdam, Adadelta) and a
random lr scheduler. `Run(seed)` draws it (the model built by torch, so that it runs);
`train(m, compiled)` builds it with library `m` from torch's initial weights and trains it for
`steps` steps (the step compiled with fullgraph=True if asked, the scheduler stepped outside
it), returning for every step the loss, the learning rate, the parameters and the optimizer's
state.
"""
import numpy as np
import torch

ACTIVATIONS = ["ReLU", "Tanh", "GELU", "SiLU", "ELU", "Sigmoid", "LeakyReLU", "Softplus"]

OPTIMIZERS = {
    "SGD": lambda r: dict(lr=.05, momentum=_pick(r, [0., .9]), weight_decay=_pick(r, [0., 1e-2])),
    "SGD_nesterov": lambda r: dict(lr=.05, momentum=.9, nesterov=True,
                                   weight_decay=_pick(r, [0., 1e-2])),
    "Adam": lambda r: dict(lr=1e-2, amsgrad=_flag(r), weight_decay=_pick(r, [0., 1e-2])),
    "AdamW": lambda r: dict(lr=1e-2, amsgrad=_flag(r), weight_decay=_pick(r, [1e-2, .1])),
    "RMSprop": lambda r: dict(lr=1e-2, centered=_flag(r), momentum=_pick(r, [0., .5])),
    "Adagrad": lambda r: dict(lr=.05, initial_accumulator_value=.1),
    "Adamax": lambda r: dict(lr=1e-2, weight_decay=_pick(r, [0., 1e-2])),
    "NAdam": lambda r: dict(lr=1e-2, decoupled_weight_decay=_flag(r),
                            weight_decay=_pick(r, [0., 1e-2])),
    "RAdam": lambda r: dict(lr=1e-2, decoupled_weight_decay=_flag(r),
                            weight_decay=_pick(r, [0., 1e-2])),
    "Adadelta": lambda r: dict(lr=1., rho=_pick(r, [.9, .95])),
}

SCHEDULERS = {
    "none": lambda r, n: None,
    "StepLR": lambda r, n: dict(step_size=2, gamma=.5),
    "ExponentialLR": lambda r, n: dict(gamma=.8),
    "CosineAnnealingLR": lambda r, n: dict(T_max=n),
    "LinearLR": lambda r, n: dict(start_factor=.5, total_iters=3),
    "MultiStepLR": lambda r, n: dict(milestones=[1, 3], gamma=.5),
    "OneCycleLR": lambda r, n: dict(max_lr=.02, total_steps=n + 1),
}

LOSSES = ["mse_loss", "l1_loss", "smooth_l1_loss", "huber_loss", "cross_entropy",
          "binary_cross_entropy_with_logits"]


def _pick(r, options):
    return options[int(r.integers(len(options)))]


def _flag(r):
    return bool(r.random() < .5)


class Run:
    """A model (layer specs), data, loss, optimizer and scheduler drawn for `seed`."""

    def __init__(self, seed, steps=5):
        self.rng = r = np.random.default_rng(seed)
        self.steps = steps
        self.kind = _pick(r, ["flat", "conv1d", "conv2d", "tokens"])
        n = int(r.integers(2, 5))
        shape = {"flat": (n, int(r.integers(2, 6))),
                 "conv1d": (n, int(r.integers(1, 4)), int(r.integers(4, 9))),
                 "conv2d": (n, int(r.integers(1, 3)), int(r.integers(3, 6)),
                            int(r.integers(3, 6))),
                 "tokens": (n, int(r.integers(1, 4)))}[self.kind]
        self.x = r.integers(0, 6, shape) if self.kind == "tokens" else \
            r.standard_normal(shape).astype(np.float32)
        self.specs = self._draw_layers(shape)
        self.n_out = int(r.integers(2, 4))
        self.specs.append(("Linear", (self._width, self.n_out), {}))
        self.loss = _pick(r, LOSSES)
        if self.loss == "cross_entropy":
            self.target = r.integers(0, self.n_out, n)
        elif self.loss == "binary_cross_entropy_with_logits":
            self.target = r.integers(0, 2, (n, self.n_out)).astype(np.float32)
        else:
            self.target = r.standard_normal((n, self.n_out)).astype(np.float32)
        self.optimizer = _pick(r, list(OPTIMIZERS))
        self.options = OPTIMIZERS[self.optimizer](r)
        self.name = "SGD" if self.optimizer == "SGD_nesterov" else self.optimizer
        self.scheduler = _pick(r, list(SCHEDULERS))
        self.scheduler_options = SCHEDULERS[self.scheduler](r, steps)
        torch.manual_seed(seed)
        self.state = {k: v.detach().numpy().copy() for k, v in
                      self.build(torch, state=False).state_dict().items()}

    def _draw_layers(self, shape):
        r, specs = self.rng, []
        if self.kind == "tokens":
            dim = int(r.integers(2, 5))
            specs += [("Embedding", (6, dim), {}), ("Flatten", (1,), {})]
            width = shape[1] * dim
        elif self.kind == "flat":
            width = shape[1]
        else:
            dims = 1 if self.kind == "conv1d" else 2
            c, size = shape[1], list(shape[2:])
            for _ in range(int(r.integers(1, 3))):
                out, k = int(r.integers(1, 4)), int(r.integers(1, 3))
                specs.append((f"Conv{dims}d", (c, out, k), dict(padding=int(r.integers(0, 2)))))
                size = [s + 2 * specs[-1][2]["padding"] - k + 1 for s in size]
                c = out
                norm = r.random()
                if norm < .3:
                    # (no bias before batch norm, as people write it: its gradient would be
                    # rounding noise, which the optimizers that divide by a gradient's size
                    # turn into steps of the lr's size)
                    specs[-1][2]["bias"] = False
                    specs.append((f"BatchNorm{dims}d", (c,), {}))
                elif norm < .45:
                    specs.append(("GroupNorm", (1, c), {}))
                specs.append((_pick(r, ACTIVATIONS), (), {}))
                pool = r.random()
                if pool < .3 and min(size) >= 2:
                    specs.append((f"{_pick(r, ['Max', 'Avg'])}Pool{dims}d", (2,), {}))
                    size = [s // 2 for s in size]
                elif pool < .45:
                    specs.append((f"AdaptiveAvgPool{dims}d", (1,), {}))
                    size = [1] * dims
            specs.append(("Flatten", (1,), {}))
            width = c * int(np.prod(size))
        for _ in range(int(r.integers(0, 3))):
            choice = r.random()
            if choice < .15:
                cell = _pick(r, ["RNNCell", "GRUCell"])
                new = int(r.integers(2, 6))
                specs.append((cell, (width, new), {}))
                width = new
                continue
            new = int(r.integers(2, 6))
            specs.append(("Linear", (width, new), {}))
            width = new
            norm = r.random()
            if norm < .25:
                specs.append(("LayerNorm", (width,), {}))
            elif norm < .45:
                specs[-1][2]["bias"] = False
                specs.append(("BatchNorm1d", (width,), {}))
            specs.append((_pick(r, ACTIVATIONS), (), {}))
            if r.random() < .2:
                specs.append(("Dropout", (0.0,), {}))
        self._width = width
        return specs

    def build(self, m, state=True):
        model = m.nn.Sequential(*[getattr(m.nn, name)(*args, **kwargs)
                                  for name, args, kwargs in self.specs])
        if state:
            model.load_state_dict({k: m.tensor(v) for k, v in self.state.items()})
        return model

    def train(self, m, compiled=False):
        model = self.build(m)
        model.train()
        opt = getattr(m.optim, self.name)(model.parameters(), **self.options)
        sched = None if self.scheduler_options is None else getattr(
            m.optim.lr_scheduler, self.scheduler)(opt, **self.scheduler_options)
        x, target = m.tensor(self.x), m.tensor(self.target)
        loss_fn = getattr(m.nn.functional, self.loss)

        def step(x, target):
            opt.zero_grad()
            loss = loss_fn(model(x), target)
            loss.backward()
            opt.step()
            return loss.detach()
        if compiled:
            step = m.compile(step, fullgraph=True)
        history = []
        for _ in range(self.steps):
            loss = step(x, target)
            lr = opt.param_groups[0]["lr"]
            if sched is not None:
                sched.step()
            params = [p.detach().numpy().copy() for p in model.parameters()]
            history.append((loss.item(), lr, params, _state(opt, model)))
        return history

    def describe(self):
        layers = ", ".join(f"{n}{a}" for n, a, _ in self.specs)
        return (f"x {self.x.shape}: Sequential({layers}), {self.loss}, "
                f"{self.name}({self.options}), {self.scheduler}({self.scheduler_options})")


def _state(opt, model):
    """The optimizer's state of each parameter: {key: array}."""
    out = []
    for p in model.parameters():
        state = opt.state.get(p, {})
        out.append({k: np.asarray(v.detach().numpy() if hasattr(v, "detach") else v,
                                  dtype=np.float64) for k, v in state.items()})
    return out
