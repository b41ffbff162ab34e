"""Learning-rate schedulers, in closed form of the epoch (step) counter.

PyTorch style: `StepLR(optimizer, step_size=10)` then `scheduler.step()` each
epoch. PaddlePaddle style: `StepLR(learning_rate=0.1, step_size=10)` passed as
an optimizer's `learning_rate`; the optimizer then attaches it.
"""
import bisect
import math
import numbers

__all__ = ["LRScheduler", "StepLR", "MultiStepLR", "ExponentialLR", "CosineAnnealingLR",
           "LambdaLR", "LinearLR", "LinearWarmup", "OneCycleLR", "ReduceLROnPlateau",
           "ConstantLR", "PolynomialLR", "MultiplicativeLR", "CosineAnnealingWarmRestarts",
           "CyclicLR", "SequentialLR", "ChainedScheduler", "_LRScheduler",
           "StepDecay", "MultiStepDecay", "ExponentialDecay", "CosineAnnealingDecay",
           "LambdaDecay"]


class LRScheduler:
    """Base: subclasses give `lr_at(base_lr, epoch)` (or, where each parameter group has its
    own schedule, `lrs_at(epoch)`); `step()` advances the epoch."""

    def __init__(self, optimizer=None, last_epoch=-1, *, learning_rate=None):
        from .optimizer import Optimizer
        if isinstance(optimizer, (int, float)) and learning_rate is None:
            optimizer, learning_rate = None, optimizer
        self.optimizer = None
        self.last_epoch = last_epoch
        if isinstance(optimizer, Optimizer):
            self._attach(optimizer)
        elif optimizer is not None:
            raise TypeError(f"{type(self).__name__}: expected an Optimizer or a learning rate, "
                            f"got {type(optimizer).__name__}")
        else:
            if learning_rate is None:
                raise TypeError(f"{type(self).__name__}: pass an optimizer (PyTorch style) or "
                                "learning_rate=... (PaddlePaddle style)")
            self.base_lrs = [float(learning_rate)]
            self.step()

    def _attach(self, optimizer):
        first = self.optimizer is None and not hasattr(self, "base_lrs")
        self.optimizer = optimizer
        if first:
            self.base_lrs = [g.setdefault("initial_lr", g["lr"]) for g in optimizer.param_groups]
            self.step()
        else:
            self.base_lrs = [self.base_lrs[0]] * len(optimizer.param_groups)
            self._apply()

    def lr_at(self, base_lr, epoch):
        raise NotImplementedError

    def lrs_at(self, epoch):
        """Each parameter group's learning rate at `epoch`."""
        return [self.lr_at(b, epoch) for b in self.base_lrs]

    def get_lr(self):
        return self.lrs_at(self.last_epoch)

    @property
    def last_lr(self):
        return self._last_lr[0]

    def get_last_lr(self):
        return list(self._last_lr)

    def __call__(self):
        return self.last_lr

    def step(self, epoch=None):
        self.last_epoch = self.last_epoch + 1 if epoch is None else int(epoch)
        self._apply()

    def _apply(self, lrs=None):
        self._last_lr = self.get_lr() if lrs is None else lrs
        if self.optimizer is not None:
            for group, lr in zip(self.optimizer.param_groups, self._last_lr):
                group["lr"] = lr

    def state_dict(self):
        """The scheduler's numbers (not its optimizer, nor functions such as lr_lambda)."""
        return {k: v for k, v in self.__dict__.items()
                if k not in ("optimizer", "_lambdas") and not callable(v)}

    def load_state_dict(self, state):
        self.__dict__.update(state)
        self._apply()

    set_state_dict = load_state_dict


# the base class's older name, which user-written schedulers subclass
_LRScheduler = LRScheduler


def _positive_int(value, name, owner):
    """`value`, refused unless a positive integer (a zero period would divide by zero)."""
    if isinstance(value, bool) or not isinstance(value, numbers.Integral) or value < 1:
        raise ValueError(f"{owner}: {name} must be a positive integer, got {value!r}")
    return value


class StepLR(LRScheduler):
    """lr * gamma ** (epoch // step_size)."""

    def __init__(self, optimizer=None, step_size=1, gamma=0.1, last_epoch=-1, *,
                 learning_rate=None):
        self.step_size, self.gamma = _positive_int(step_size, "step_size", "StepLR"), gamma
        super().__init__(optimizer, last_epoch, learning_rate=learning_rate)

    def lr_at(self, base_lr, epoch):
        return base_lr * self.gamma ** (epoch // self.step_size)


class MultiStepLR(LRScheduler):
    """lr * gamma ** (number of milestones reached)."""

    def __init__(self, optimizer=None, milestones=(), gamma=0.1, last_epoch=-1, *,
                 learning_rate=None):
        self.milestones, self.gamma = sorted(milestones), gamma
        super().__init__(optimizer, last_epoch, learning_rate=learning_rate)

    def lr_at(self, base_lr, epoch):
        return base_lr * self.gamma ** bisect.bisect_right(self.milestones, epoch)


class ExponentialLR(LRScheduler):
    def __init__(self, optimizer=None, gamma=0.9, last_epoch=-1, *, learning_rate=None):
        self.gamma = gamma
        super().__init__(optimizer, last_epoch, learning_rate=learning_rate)

    def lr_at(self, base_lr, epoch):
        return base_lr * self.gamma ** epoch


class CosineAnnealingLR(LRScheduler):
    """eta_min + (lr - eta_min) (1 + cos(pi epoch / T_max)) / 2."""

    def __init__(self, optimizer=None, T_max=1, eta_min=0.0, last_epoch=-1, *,
                 learning_rate=None):
        self.T_max, self.eta_min = _positive_int(T_max, "T_max", "CosineAnnealingLR"), eta_min
        super().__init__(optimizer, last_epoch, learning_rate=learning_rate)

    def lr_at(self, base_lr, epoch):
        return self.eta_min + (base_lr - self.eta_min) * (
            1 + math.cos(math.pi * epoch / self.T_max)) / 2


def _per_group(value, optimizer, name, owner):
    """`value` for each parameter group: a list of one per group, or one for all."""
    groups = len(optimizer.param_groups) if optimizer is not None else 1
    if isinstance(value, (list, tuple)):
        if len(value) != groups:
            raise ValueError(f"{owner}: expected {groups} {name} (one per parameter group), but "
                             f"got {len(value)}")
        return list(value)
    return [value] * groups


class LambdaLR(LRScheduler):
    """lr * lr_lambda(epoch); `lr_lambda` may be a list, one function per parameter group."""

    def __init__(self, optimizer=None, lr_lambda=None, last_epoch=-1, *, learning_rate=None):
        self.lr_lambda = lr_lambda
        self._lambdas = _per_group(lr_lambda, optimizer if hasattr(optimizer, "param_groups")
                                   else None, "lr_lambdas", "LambdaLR")
        super().__init__(optimizer, last_epoch, learning_rate=learning_rate)

    def lr_at(self, base_lr, epoch):
        return base_lr * self._lambdas[0](epoch)

    def lrs_at(self, epoch):
        return [b * f(epoch) for b, f in zip(self.base_lrs, self._lambdas)]


class LinearLR(LRScheduler):
    """Factor going linearly from start_factor to end_factor over total_iters epochs."""

    def __init__(self, optimizer=None, start_factor=1.0 / 3, end_factor=1.0, total_iters=5,
                 last_epoch=-1, *, learning_rate=None):
        if not 0 < start_factor <= 1:
            raise ValueError("LinearLR: Starting multiplicative factor expected to be greater "
                             f"than 0 and less or equal to 1, got {start_factor}")
        if not 0 <= end_factor <= 1:
            raise ValueError("LinearLR: Ending multiplicative factor expected to be between 0 "
                             f"and 1, got {end_factor}")
        self.start_factor, self.end_factor = start_factor, end_factor
        self.total_iters = _positive_int(total_iters, "total_iters", "LinearLR")
        super().__init__(optimizer, last_epoch, learning_rate=learning_rate)

    def lr_at(self, base_lr, epoch):
        frac = min(epoch, self.total_iters) / self.total_iters
        return base_lr * (self.start_factor + (self.end_factor - self.start_factor) * frac)


class LinearWarmup(LRScheduler):
    """PaddlePaddle's warmup: start_lr -> end_lr linearly over warmup_steps, then `learning_rate`
    (a number, or a scheduler that takes over)."""

    def __init__(self, learning_rate, warmup_steps, start_lr, end_lr, last_epoch=-1):
        self.inner = learning_rate if isinstance(learning_rate, LRScheduler) else None
        self.warmup_steps, self.start_lr, self.end_lr = warmup_steps, start_lr, end_lr
        base = self.inner.base_lrs[0] if self.inner else float(learning_rate)
        super().__init__(None, last_epoch, learning_rate=base)

    def lr_at(self, base_lr, epoch):
        if epoch < self.warmup_steps:
            return self.start_lr + (self.end_lr - self.start_lr) * epoch / self.warmup_steps
        if self.inner is not None:
            return self.inner.lr_at(self.inner.base_lrs[0], epoch - self.warmup_steps)
        return base_lr


class OneCycleLR(LRScheduler):
    """The one-cycle policy: warm up to max_lr over pct_start of the steps, then anneal to
    max_lr / div_factor / final_div_factor; momentum (or beta1) cycles inversely."""

    def __init__(self, optimizer, max_lr, total_steps=None, epochs=None, steps_per_epoch=None,
                 pct_start=0.3, anneal_strategy="cos", cycle_momentum=True, base_momentum=0.85,
                 max_momentum=0.95, div_factor=25.0, final_div_factor=1e4, three_phase=False,
                 last_epoch=-1):
        if total_steps is None:
            if epochs is None or steps_per_epoch is None:
                raise ValueError("OneCycleLR: give total_steps, or epochs and steps_per_epoch")
            total_steps = epochs * steps_per_epoch
        self.total_steps = _positive_int(total_steps, "total_steps", "OneCycleLR")
        if not 0 <= pct_start <= 1:
            raise ValueError(f"OneCycleLR: Expected float between 0 and 1 pct_start, but got "
                             f"{pct_start}")
        if anneal_strategy not in ("cos", "linear"):
            raise ValueError(f"OneCycleLR: anneal_strategy must be one of 'cos' or 'linear', "
                             f"instead got {anneal_strategy!r}")
        if cycle_momentum and not all("momentum" in g or "betas" in g
                                      for g in optimizer.param_groups):
            raise ValueError(f"OneCycleLR: optimizer must support momentum or beta1 with "
                             f"`cycle_momentum` option enabled ({type(optimizer).__name__} has "
                             "neither); pass cycle_momentum=False")
        self.anneal = self._cos if anneal_strategy == "cos" else self._linear
        self.max_lrs = _per_group(max_lr, optimizer, "max_lr", "OneCycleLR")
        self.initial_lrs = [m / div_factor for m in self.max_lrs]
        self.min_lrs = [i / final_div_factor for i in self.initial_lrs]
        if three_phase:
            self.phases = [(pct_start * total_steps - 1, "initial", "max"),
                           (2 * pct_start * total_steps - 2, "max", "initial"),
                           (total_steps - 1, "initial", "min")]
        else:
            self.phases = [(pct_start * total_steps - 1, "initial", "max"),
                           (total_steps - 1, "max", "min")]
        self.cycle_momentum = cycle_momentum
        self.base_momentum, self.max_momentum = base_momentum, max_momentum
        for group, initial in zip(optimizer.param_groups, self.initial_lrs):
            group["initial_lr"] = initial
        super().__init__(optimizer, last_epoch)

    @staticmethod
    def _cos(start, end, pct):
        return end + (start - end) / 2 * (math.cos(math.pi * pct) + 1)

    @staticmethod
    def _linear(start, end, pct):
        return (end - start) * pct + start

    def _value(self, epoch, values):
        if epoch > self.total_steps:
            raise ValueError(f"OneCycleLR: stepped {epoch} times, more than total_steps "
                             f"({self.total_steps})")
        start_step = 0
        for end_step, start, end in self.phases:
            if epoch <= end_step or end_step == self.phases[-1][0]:
                pct = (epoch - start_step) / (end_step - start_step)
                return self.anneal(values[start], values[end], pct)
            start_step = end_step
        raise AssertionError("unreachable")

    def lrs_at(self, epoch):
        return [self._value(epoch, {"initial": initial, "max": top, "min": low})
                for initial, top, low in zip(self.initial_lrs, self.max_lrs, self.min_lrs)]

    def _apply(self):
        super()._apply()
        if not self.cycle_momentum or self.optimizer is None:
            return
        m = self._value(self.last_epoch, {"initial": self.max_momentum,
                                          "max": self.base_momentum,
                                          "min": self.max_momentum})
        for group in self.optimizer.param_groups:
            if "betas" in group:
                group["betas"] = (m, group["betas"][1])
            elif "momentum" in group:
                group["momentum"] = m


class ConstantLR(LRScheduler):
    """lr * factor until total_iters epochs have passed, then lr."""

    def __init__(self, optimizer=None, factor=1.0 / 3, total_iters=5, last_epoch=-1, *,
                 learning_rate=None):
        if not 0 <= factor <= 1:
            raise ValueError("ConstantLR: Constant multiplicative factor expected to be between 0 "
                             f"and 1, got {factor}")
        self.factor, self.total_iters = factor, total_iters
        super().__init__(optimizer, last_epoch, learning_rate=learning_rate)

    def lr_at(self, base_lr, epoch):
        return base_lr * (self.factor if epoch < self.total_iters else 1.0)


class PolynomialLR(LRScheduler):
    """lr * (1 - min(epoch, total_iters) / total_iters) ** power."""

    def __init__(self, optimizer=None, total_iters=5, power=1.0, last_epoch=-1, *,
                 learning_rate=None):
        self.total_iters = _positive_int(total_iters, "total_iters", "PolynomialLR")
        self.power = power
        super().__init__(optimizer, last_epoch, learning_rate=learning_rate)

    def lr_at(self, base_lr, epoch):
        return base_lr * (1 - min(epoch, self.total_iters) / self.total_iters) ** self.power


class MultiplicativeLR(LRScheduler):
    """lr * lr_lambda(1) * ... * lr_lambda(epoch)."""

    def __init__(self, optimizer=None, lr_lambda=None, last_epoch=-1, *, learning_rate=None):
        self._lambdas = _per_group(lr_lambda, optimizer if hasattr(optimizer, "param_groups")
                                   else None, "lr_lambdas", "MultiplicativeLR")
        if not all(callable(f) for f in self._lambdas):
            raise TypeError(f"MultiplicativeLR: lr_lambda must be a function of the epoch (or a "
                            f"list of them), got {type(lr_lambda).__name__}")
        self.lr_lambda, self._factors = lr_lambda, [[1.0] for _ in self._lambdas]
        super().__init__(optimizer, last_epoch, learning_rate=learning_rate)

    def _factor(self, group, epoch):
        factors = self._factors[group]
        while len(factors) <= epoch:
            factors.append(factors[-1] * self._lambdas[group](len(factors)))
        return factors[max(epoch, 0)]

    def lr_at(self, base_lr, epoch):
        return base_lr * self._factor(0, epoch)

    def lrs_at(self, epoch):
        return [b * self._factor(i, epoch) for i, b in enumerate(self.base_lrs)]


class CosineAnnealingWarmRestarts(LRScheduler):
    """Cosine annealing from lr to eta_min over T_0 epochs, restarting; each period T_mult
    times the one before."""

    def __init__(self, optimizer=None, T_0=1, T_mult=1, eta_min=0.0, last_epoch=-1, *,
                 learning_rate=None):
        self.T_0 = _positive_int(T_0, "T_0", "CosineAnnealingWarmRestarts")
        self.T_mult = _positive_int(T_mult, "T_mult", "CosineAnnealingWarmRestarts")
        self.eta_min = eta_min
        super().__init__(optimizer, last_epoch, learning_rate=learning_rate)

    def lr_at(self, base_lr, epoch):
        t, period = epoch, self.T_0
        if self.T_mult == 1:
            t = t % period
        else:
            n = int(math.log(t / self.T_0 * (self.T_mult - 1) + 1, self.T_mult)) if t >= period \
                else 0
            t -= self.T_0 * (self.T_mult ** n - 1) / (self.T_mult - 1)
            period = self.T_0 * self.T_mult ** n
        return self.eta_min + (base_lr - self.eta_min) * (1 + math.cos(math.pi * t / period)) / 2

    def step(self, epoch=None):
        """As other schedulers; `epoch` may also be fractional (epoch + i / iters_per_epoch)."""
        if epoch is None or float(epoch).is_integer():
            return super().step(epoch)
        if epoch < 0:
            raise ValueError(f"CosineAnnealingWarmRestarts: expected a non-negative epoch, but "
                             f"got {epoch}")
        self.last_epoch = math.floor(epoch)
        self._apply(self.lrs_at(epoch))


class CyclicLR(LRScheduler):
    """The learning rate cycles between base_lr and max_lr ('triangular', 'triangular2',
    'exp_range' or a `scale_fn`); momentum (or beta1) cycles inversely."""

    def __init__(self, optimizer, base_lr, max_lr, step_size_up=2000, step_size_down=None,
                 mode="triangular", gamma=1.0, scale_fn=None, scale_mode="cycle",
                 cycle_momentum=True, base_momentum=0.8, max_momentum=0.9, last_epoch=-1):
        if scale_fn is None and mode not in ("triangular", "triangular2", "exp_range"):
            raise ValueError(f"CyclicLR: mode is invalid and scale_fn is None (got {mode!r})")
        n = len(optimizer.param_groups)
        self.base_lrs_cycle = list(base_lr) if isinstance(base_lr, (list, tuple)) else [base_lr] * n
        self.max_lrs = list(max_lr) if isinstance(max_lr, (list, tuple)) else [max_lr] * n
        down = step_size_up if step_size_down is None else step_size_down
        self.total_size = float(step_size_up + down)
        self.step_ratio = step_size_up / self.total_size
        self.mode, self.gamma = mode, gamma
        self.scale_fn, self.scale_mode = scale_fn, scale_mode if scale_fn else (
            "cycle" if mode in ("triangular", "triangular2") else "iterations")
        self.cycle_momentum = cycle_momentum
        if cycle_momentum:
            if not all("momentum" in g or "betas" in g for g in optimizer.param_groups):
                raise ValueError("CyclicLR: optimizer must support momentum or beta1 with "
                                 "`cycle_momentum` option enabled")
            self.base_momentum, self.max_momentum = base_momentum, max_momentum
        for group, lr in zip(optimizer.param_groups, self.base_lrs_cycle):
            group["initial_lr"] = lr
        super().__init__(optimizer, last_epoch)

    def _scale(self, x):
        if self.scale_fn is not None:
            return self.scale_fn(x)
        if self.mode == "triangular":
            return 1.0
        if self.mode == "triangular2":
            return 1 / 2.0 ** (x - 1)
        return self.gamma ** x

    def _position(self, epoch):
        cycle = math.floor(1 + epoch / self.total_size)
        x = 1.0 + epoch / self.total_size - cycle
        height = x / self.step_ratio if x <= self.step_ratio else (x - 1) / (self.step_ratio - 1)
        return height * self._scale(cycle if self.scale_mode == "cycle" else epoch)

    def get_lr(self):
        factor = self._position(self.last_epoch)
        return [base + (top - base) * factor
                for base, top in zip(self.base_lrs_cycle, self.max_lrs)]

    def _apply(self):
        super()._apply()
        if not self.cycle_momentum:
            return
        factor = self._position(self.last_epoch)
        m = self.max_momentum - (self.max_momentum - self.base_momentum) * factor
        for group in self.optimizer.param_groups:
            if "betas" in group:
                group["betas"] = (m, group["betas"][1])
            else:
                group["momentum"] = m


class SequentialLR(LRScheduler):
    """schedulers[i] from milestones[i - 1] on, each counting its epochs from its milestone."""

    def __init__(self, optimizer, schedulers, milestones, last_epoch=-1):
        if len(milestones) != len(schedulers) - 1:
            raise ValueError(f"SequentialLR: expects number of schedulers provided to be one more "
                             f"than the number of milestone points, but got {len(schedulers)} "
                             f"schedulers and {len(milestones)} milestones")
        for i, scheduler in enumerate(schedulers):
            if scheduler.optimizer is not optimizer:
                raise ValueError(f"SequentialLR: scheduler {i} belongs to another optimizer than "
                                 "the one given")
        self.schedulers, self.milestones = list(schedulers), list(milestones)
        for group in optimizer.param_groups:
            group["lr"] = group["initial_lr"]
        super().__init__(optimizer, last_epoch)

    def get_lr(self):
        i = bisect.bisect_right(self.milestones, self.last_epoch)
        epoch = self.last_epoch - (self.milestones[i - 1] if i else 0)
        return self.schedulers[i].lrs_at(epoch)


class ChainedScheduler(LRScheduler):
    """Several schedulers at once: their factors of the initial lr multiply."""

    def __init__(self, schedulers, optimizer=None):
        self.schedulers = list(schedulers)
        if not self.schedulers:
            raise ValueError("ChainedScheduler needs at least one scheduler")
        optimizer = optimizer or self.schedulers[0].optimizer
        self.last_epoch = self.schedulers[0].last_epoch - 1
        self.optimizer, self.base_lrs = optimizer, list(self.schedulers[0].base_lrs)
        self.step()

    def get_lr(self):
        lrs = list(self.base_lrs)
        for scheduler in self.schedulers:
            lrs = [lr * own / b if b else lr
                   for lr, own, b in zip(lrs, scheduler.lrs_at(self.last_epoch),
                                         scheduler.base_lrs)]
        return lrs

    def step(self, epoch=None):
        for scheduler in self.schedulers:
            scheduler.last_epoch = self.last_epoch + 1 if epoch is None else int(epoch)
        super().step(epoch)


class ReduceLROnPlateau:
    """Multiply the lr by `factor` when `metric` (passed to step) stops improving for `patience` epochs."""

    def __init__(self, optimizer=None, mode="min", factor=0.1, patience=10, threshold=1e-4,
                 threshold_mode="rel", cooldown=0, min_lr=0.0, eps=1e-8, *, learning_rate=None):
        if factor >= 1.0:
            raise ValueError(f"ReduceLROnPlateau: factor must be < 1, got {factor}")
        if mode not in ("min", "max") or threshold_mode not in ("rel", "abs"):
            raise ValueError("ReduceLROnPlateau: mode is 'min' or 'max', threshold_mode 'rel' "
                             "or 'abs'")
        self.optimizer, self.mode, self.factor, self.patience = optimizer, mode, factor, patience
        self.threshold, self.threshold_mode, self.cooldown = threshold, threshold_mode, cooldown
        self.eps = eps
        n = len(optimizer.param_groups) if optimizer is not None else 1
        self.min_lrs = list(min_lr) if isinstance(min_lr, (list, tuple)) else [min_lr] * n
        self._lrs = ([g["lr"] for g in optimizer.param_groups] if optimizer is not None
                     else [float(learning_rate)])
        self.best = math.inf if mode == "min" else -math.inf
        self.num_bad_epochs = self.cooldown_counter = 0
        self.last_epoch = 0

    def _better(self, a):
        if self.mode == "min":
            limit = self.best * (1 - self.threshold) if self.threshold_mode == "rel" \
                else self.best - self.threshold
            return a < limit
        limit = self.best * (1 + self.threshold) if self.threshold_mode == "rel" \
            else self.best + self.threshold
        return a > limit

    def step(self, metrics, epoch=None):
        current = float(metrics)
        self.last_epoch = self.last_epoch + 1 if epoch is None else epoch
        if self._better(current):
            self.best, self.num_bad_epochs = current, 0
        else:
            self.num_bad_epochs += 1
        if self.cooldown_counter > 0:
            self.cooldown_counter -= 1
            self.num_bad_epochs = 0
        if self.num_bad_epochs > self.patience:
            if self.optimizer is not None:  # the lrs as they are now, maybe set by hand
                self._lrs = [g["lr"] for g in self.optimizer.param_groups]
            for i, lr in enumerate(self._lrs):
                new = max(lr * self.factor, self.min_lrs[i])
                if lr - new > self.eps:
                    self._lrs[i] = new
            if self.optimizer is not None:
                for group, lr in zip(self.optimizer.param_groups, self._lrs):
                    group["lr"] = lr
            self.cooldown_counter, self.num_bad_epochs = self.cooldown, 0

    def get_last_lr(self):
        return list(self._lrs)

    @property
    def last_lr(self):
        return self._lrs[0]

    def _attach(self, optimizer):
        self.optimizer = optimizer
        for group in optimizer.param_groups:
            group["lr"] = self._lrs[0]
        self._lrs = [self._lrs[0]] * len(optimizer.param_groups)
        self.min_lrs = [self.min_lrs[0]] * len(optimizer.param_groups)

    def __call__(self):
        return self._lrs[0]

    def state_dict(self):
        """The scheduler's state (best metric, counters, options), without the optimizer."""
        return {k: v for k, v in self.__dict__.items() if k != "optimizer"}

    def load_state_dict(self, state):
        self.__dict__.update(state)


StepDecay, MultiStepDecay, ExponentialDecay = StepLR, MultiStepLR, ExponentialLR
CosineAnnealingDecay, LambdaDecay = CosineAnnealingLR, LambdaLR
