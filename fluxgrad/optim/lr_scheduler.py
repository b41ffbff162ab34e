"""Learning-rate schedulers, in closed form of the epoch (step) counter.

PyTorch style: `StepLR(optimizer, step_size=10)` then `scheduler.step()` each
epoch. PaddlePaddle style: `StepLR(learning_rate=0.1, step_size=10)` passed as
an optimizer's `learning_rate`; the optimizer then attaches it.

`state_dict()` is PyTorch's: the scheduler's attributes in the order PyTorch sets them (its
options, then base_lrs, last_epoch, _step_count, _is_initial, _get_lr_called_within_step,
_last_lr), without the optimizer; lr_lambda functions appear as None (a callable object as
its __dict__). The attributes a scheduler keeps besides (derived values) are named in its
`_derived` and left out. `load_state_dict` takes such a dict, PyTorch's own included.
"""
import bisect
import collections
import math
import numbers
import types

__all__ = ["LRScheduler", "StepLR", "MultiStepLR", "ExponentialLR", "CosineAnnealingLR",
           "LambdaLR", "LinearLR", "LinearWarmup", "OneCycleLR", "ReduceLROnPlateau",
           "ConstantLR", "PolynomialLR", "MultiplicativeLR", "CosineAnnealingWarmRestarts",
           "CyclicLR", "SequentialLR", "ChainedScheduler", "_LRScheduler",
           "StepDecay", "MultiStepDecay", "ExponentialDecay", "CosineAnnealingDecay",
           "LambdaDecay"]


class LRScheduler:
    """Base: subclasses give `lr_at(base_lr, epoch)` (or, where each parameter group has its
    own schedule, `lrs_at(epoch)`); `step()` advances the epoch."""

    _derived = ()  # attributes left out of state_dict (not PyTorch's)

    def __init__(self, optimizer=None, last_epoch=-1, *, learning_rate=None):
        from .optimizer import Optimizer
        if isinstance(optimizer, (int, float)) and learning_rate is None:
            optimizer, learning_rate = None, optimizer
        if isinstance(optimizer, Optimizer):
            self.optimizer = optimizer
            self.base_lrs = [g.setdefault("initial_lr", g["lr"]) for g in optimizer.param_groups]
        elif optimizer is not None:
            raise TypeError(f"{type(self).__name__}: expected an Optimizer or a learning rate, "
                            f"got {type(optimizer).__name__}")
        else:
            if learning_rate is None:
                raise TypeError(f"{type(self).__name__}: pass an optimizer (PyTorch style) or "
                                "learning_rate=... (PaddlePaddle style)")
            self.optimizer = None
            self.base_lrs = [float(learning_rate)]
        # (set in PyTorch's order: state_dict lists the attributes in it)
        self.last_epoch = last_epoch
        self._step_count = 0
        self._is_initial = False
        self._get_lr_called_within_step = False
        self.step()

    def _attach(self, optimizer):
        """Drive `optimizer` (a PaddlePaddle-style scheduler given as its learning rate)."""
        self.optimizer = optimizer
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
        self._step_count += 1
        self.last_epoch = self.last_epoch + 1 if epoch is None else int(epoch)
        self._apply()

    def _apply(self, lrs=None):
        self._last_lr = self.get_lr() if lrs is None else lrs
        if self.optimizer is not None:
            for group, lr in zip(self.optimizer.param_groups, self._last_lr):
                group["lr"] = lr

    def state_dict(self):
        """PyTorch's state_dict (see the module docstring)."""
        return {k: v for k, v in self.__dict__.items()
                if k != "optimizer" and k not in self._derived}

    def load_state_dict(self, state):
        """Take a state_dict (this scheduler's or PyTorch's); the optimizer's groups get the
        learning rates it gives."""
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
        self.milestones, self.gamma = collections.Counter(milestones), gamma
        super().__init__(optimizer, last_epoch, learning_rate=learning_rate)

    def lr_at(self, base_lr, epoch):
        # (a milestone given twice counts twice, as PyTorch's Counter)
        return base_lr * self.gamma ** sum(n for m, n in self.milestones.items() if m <= epoch)


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
        self.lr_lambdas = _per_group(lr_lambda, optimizer if hasattr(optimizer, "param_groups")
                                     else None, "lr_lambdas", "LambdaLR")
        super().__init__(optimizer, last_epoch, learning_rate=learning_rate)

    def lr_at(self, base_lr, epoch):
        return base_lr * self.lr_lambdas[0](epoch)

    def lrs_at(self, epoch):
        return [b * f(epoch) for b, f in zip(self.base_lrs, self.lr_lambdas)]

    def state_dict(self):
        return _with_lambdas(self, super().state_dict())

    def load_state_dict(self, state):
        _load_with_lambdas(self, state)


def _with_lambdas(scheduler, state):
    """`state` with lr_lambdas last, as PyTorch's: None for a function, a callable object's
    __dict__."""
    del state["lr_lambdas"]
    state["lr_lambdas"] = [None if isinstance(f, types.FunctionType) else dict(f.__dict__)
                           for f in scheduler.lr_lambdas]
    return state


def _load_with_lambdas(scheduler, state):
    state = dict(state)
    saved = state.pop("lr_lambdas")
    for f, attributes in zip(scheduler.lr_lambdas, saved):
        if attributes is not None:
            f.__dict__.update(attributes)
    LRScheduler.load_state_dict(scheduler, state)


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


def _phase(end_step, start_lr, end_lr, start_momentum, end_momentum):
    return {"end_step": end_step, "start_lr": start_lr, "end_lr": end_lr,
            "start_momentum": start_momentum, "end_momentum": end_momentum}


class OneCycleLR(LRScheduler):
    """The one-cycle policy: warm up to max_lr over pct_start of the steps, then anneal to
    max_lr / div_factor / final_div_factor; momentum (or beta1) cycles inversely. As in
    PyTorch, each parameter group holds its initial_lr, max_lr and min_lr (and max_momentum,
    base_momentum), and the phases name those keys."""

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
        up = float(pct_start * total_steps) - 1
        if three_phase:
            self._schedule_phases = [
                _phase(up, "initial_lr", "max_lr", "max_momentum", "base_momentum"),
                _phase(float(2 * pct_start * total_steps) - 2, "max_lr", "initial_lr",
                       "base_momentum", "max_momentum"),
                _phase(total_steps - 1, "initial_lr", "min_lr", "max_momentum", "max_momentum")]
        else:
            self._schedule_phases = [
                _phase(up, "initial_lr", "max_lr", "max_momentum", "base_momentum"),
                _phase(total_steps - 1, "max_lr", "min_lr", "base_momentum", "max_momentum")]
        self._anneal_func_type = anneal_strategy
        groups = optimizer.param_groups
        for group, top in zip(groups, _per_group(max_lr, optimizer, "max_lr", "OneCycleLR")):
            group["initial_lr"] = top / div_factor
            group["max_lr"] = top
            group["min_lr"] = group["initial_lr"] / final_div_factor
        self.cycle_momentum = cycle_momentum
        if cycle_momentum:
            self.use_beta1 = "betas" in optimizer.defaults
            for group, high, low in zip(
                    groups, _per_group(max_momentum, optimizer, "max_momentum", "OneCycleLR"),
                    _per_group(base_momentum, optimizer, "base_momentum", "OneCycleLR")):
                group["max_momentum"], group["base_momentum"] = high, low
        super().__init__(optimizer, last_epoch)

    def _anneal(self, start, end, pct):
        if self._anneal_func_type == "cos":
            return end + (start - end) / 2.0 * (math.cos(math.pi * pct) + 1)
        return (end - start) * pct + start

    def _value(self, epoch, group, start_key, end_key):
        if epoch > self.total_steps:
            raise ValueError(f"OneCycleLR: Tried to step {epoch} times. The specified number of "
                             f"total steps is {self.total_steps}")
        start_step = 0.0
        for i, phase in enumerate(self._schedule_phases):
            end_step = phase["end_step"]
            if epoch <= end_step or i == len(self._schedule_phases) - 1:
                pct = (epoch - start_step) / (end_step - start_step)
                return self._anneal(group[phase[start_key]], group[phase[end_key]], pct)
            start_step = end_step
        raise AssertionError("unreachable")

    def lrs_at(self, epoch):
        return [self._value(epoch, group, "start_lr", "end_lr")
                for group in self.optimizer.param_groups]

    def _apply(self):
        super()._apply()
        if not self.cycle_momentum:
            return
        for group in self.optimizer.param_groups:
            m = self._value(self.last_epoch, group, "start_momentum", "end_momentum")
            if self.use_beta1:
                group["betas"] = (m, *group["betas"][1:])
            else:
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
        self.lr_lambdas = _per_group(lr_lambda, optimizer if hasattr(optimizer, "param_groups")
                                     else None, "lr_lambdas", "MultiplicativeLR")
        if not all(callable(f) for f in self.lr_lambdas):
            raise TypeError(f"MultiplicativeLR: lr_lambda must be a function of the epoch (or a "
                            f"list of them), got {type(lr_lambda).__name__}")
        self._factors = [[1.0] for _ in self.lr_lambdas]
        super().__init__(optimizer, last_epoch, learning_rate=learning_rate)

    _derived = ("_factors",)

    def _factor(self, group, epoch):
        factors = self._factors[group]
        while len(factors) <= epoch:
            factors.append(factors[-1] * self.lr_lambdas[group](len(factors)))
        return factors[max(epoch, 0)]

    def lr_at(self, base_lr, epoch):
        return base_lr * self._factor(0, epoch)

    def lrs_at(self, epoch):
        return [b * self._factor(i, epoch) for i, b in enumerate(self.base_lrs)]

    def state_dict(self):
        return _with_lambdas(self, super().state_dict())

    def load_state_dict(self, state):
        _load_with_lambdas(self, state)


class CosineAnnealingWarmRestarts(LRScheduler):
    """Cosine annealing from lr to eta_min over T_0 epochs, restarting; each period T_mult
    times the one before. T_cur counts the epochs into the current period of T_i epochs."""

    def __init__(self, optimizer=None, T_0=1, T_mult=1, eta_min=0.0, last_epoch=-1, *,
                 learning_rate=None):
        self.T_0 = _positive_int(T_0, "T_0", "CosineAnnealingWarmRestarts")
        self.T_i = T_0
        self.T_mult = _positive_int(T_mult, "T_mult", "CosineAnnealingWarmRestarts")
        self.eta_min = eta_min
        self.T_cur = last_epoch
        super().__init__(optimizer, last_epoch, learning_rate=learning_rate)

    def lr_at(self, base_lr, epoch):
        return self.eta_min + (base_lr - self.eta_min) * (
            1 + math.cos(math.pi * self.T_cur / self.T_i)) / 2

    def step(self, epoch=None):
        """As other schedulers; `epoch` may also be fractional (epoch + i / iters_per_epoch).
        (As PyTorch's, it leaves _step_count alone.)"""
        if epoch is None and self.last_epoch < 0:
            epoch = 0
        if epoch is None:
            epoch = self.last_epoch + 1
            self.T_cur += 1
            if self.T_cur >= self.T_i:
                self.T_cur -= self.T_i
                self.T_i *= self.T_mult
        elif epoch < 0:
            raise ValueError(f"CosineAnnealingWarmRestarts: expected a non-negative epoch, but "
                             f"got {epoch}")
        elif epoch >= self.T_0:
            if self.T_mult == 1:
                self.T_cur = epoch % self.T_0
            else:
                n = int(math.log(epoch / self.T_0 * (self.T_mult - 1) + 1, self.T_mult))
                self.T_cur = epoch - self.T_0 * (self.T_mult ** n - 1) / (self.T_mult - 1)
                self.T_i = self.T_0 * self.T_mult ** n
        else:
            self.T_i, self.T_cur = self.T_0, epoch
        self.last_epoch = math.floor(epoch)
        self._apply()


class CyclicLR(LRScheduler):
    """The learning rate cycles between base_lr and max_lr ('triangular', 'triangular2',
    'exp_range' or a `scale_fn`); momentum (or beta1) cycles inversely."""

    def __init__(self, optimizer, base_lr, max_lr, step_size_up=2000, step_size_down=None,
                 mode="triangular", gamma=1.0, scale_fn=None, scale_mode="cycle",
                 cycle_momentum=True, base_momentum=0.8, max_momentum=0.9, last_epoch=-1):
        if scale_fn is None and mode not in ("triangular", "triangular2", "exp_range"):
            raise ValueError(f"CyclicLR: mode is invalid and scale_fn is None (got {mode!r})")
        base_lrs = _per_group(base_lr, optimizer, "base_lr", "CyclicLR")
        self.max_lrs = _per_group(max_lr, optimizer, "max_lr", "CyclicLR")
        down = step_size_up if step_size_down is None else step_size_down
        self.total_size = float(step_size_up + down)
        self.step_ratio = step_size_up / self.total_size
        self.mode, self.gamma = mode, gamma
        self._scale_fn_custom = scale_fn
        self.scale_mode = scale_mode if scale_fn else (
            "cycle" if mode in ("triangular", "triangular2") else "iterations")
        self.cycle_momentum = cycle_momentum
        if cycle_momentum:
            if not all("momentum" in g or "betas" in g for g in optimizer.param_groups):
                raise ValueError("CyclicLR: optimizer must support momentum or beta1 with "
                                 "`cycle_momentum` option enabled")
            self.use_beta1 = "betas" in optimizer.defaults
            self.base_momentums = _per_group(base_momentum, optimizer, "base_momentum",
                                             "CyclicLR")
            self.max_momentums = _per_group(max_momentum, optimizer, "max_momentum",
                                            "CyclicLR")
            for group, high, low in zip(optimizer.param_groups, self.max_momentums,
                                        self.base_momentums):
                group["max_momentum"], group["base_momentum"] = high, low
        for group, lr in zip(optimizer.param_groups, base_lrs):
            group["initial_lr"] = lr
        super().__init__(optimizer, last_epoch)

    def _scale(self, x):
        if self._scale_fn_custom is not None:
            return self._scale_fn_custom(x)
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
        return [base + (top - base) * factor for base, top in zip(self.base_lrs, self.max_lrs)]

    def _apply(self):
        super()._apply()
        if not self.cycle_momentum:
            return
        factor = self._position(self.last_epoch)
        for group, low, high in zip(self.optimizer.param_groups, self.base_momentums,
                                    self.max_momentums):
            m = high - (high - low) * factor
            if "betas" in group:
                group["betas"] = (m, group["betas"][1])
            else:
                group["momentum"] = m

    def state_dict(self):
        state = super().state_dict()
        fn = state.pop("_scale_fn_custom")
        state["_scale_fn_custom"] = (None if fn is None or isinstance(fn, types.FunctionType)
                                     else dict(fn.__dict__))
        return state

    def load_state_dict(self, state):
        state = dict(state)
        attributes = state.pop("_scale_fn_custom", None)
        if attributes is not None and self._scale_fn_custom is not None:
            self._scale_fn_custom.__dict__.update(attributes)
        super().load_state_dict(state)


def _undo_step(scheduler):
    """PyTorch's SequentialLR takes back the initial step of the schedulers it is given."""
    inner = getattr(scheduler, "_schedulers", None)
    if inner is None:
        scheduler.last_epoch -= 1
    else:
        for each in inner:
            _undo_step(each)


def _with_schedulers(scheduler):
    """PyTorch's state_dict of a scheduler of schedulers: its own attributes, then theirs."""
    state = {k: v for k, v in scheduler.__dict__.items()
             if k not in ("optimizer", "_schedulers") and k not in scheduler._derived}
    state["_schedulers"] = [inner.state_dict() for inner in scheduler._schedulers]
    return state


def _load_with_schedulers(scheduler, state):
    state = dict(state)
    for inner, inner_state in zip(scheduler._schedulers, state.pop("_schedulers")):
        inner.load_state_dict(inner_state)
    scheduler.__dict__.update(state)
    for group, lr in zip(scheduler.optimizer.param_groups, scheduler._last_lr):
        group["lr"] = lr


class SequentialLR(LRScheduler):
    """schedulers[i] from milestones[i - 1] on, each counting its epochs from its milestone
    (stepped as PyTorch's: the one in charge steps, restarting at 0 at its milestone)."""

    def __init__(self, optimizer, schedulers, milestones, last_epoch=-1):
        if len(milestones) != len(schedulers) - 1:
            raise ValueError(f"SequentialLR: expects number of schedulers provided to be one more "
                             f"than the number of milestone points, but got {len(schedulers)} "
                             f"schedulers and {len(milestones)} milestones")
        for i, scheduler in enumerate(schedulers):
            if scheduler.optimizer is not optimizer:
                raise ValueError(f"SequentialLR: scheduler {i} belongs to another optimizer than "
                                 "the one given")
        self._schedulers, self._milestones = list(schedulers), list(milestones)
        self.last_epoch = last_epoch + 1
        self.optimizer = optimizer
        for group in optimizer.param_groups:
            group["lr"] = group["initial_lr"]
        for scheduler in self._schedulers:
            _undo_step(scheduler)
        first = self._schedulers[0]
        first._step_count = 0
        first.step()
        self._last_lr = first.get_last_lr()

    def lrs_at(self, epoch):
        i = bisect.bisect_right(self._milestones, epoch)
        return self._schedulers[i].lrs_at(epoch - (self._milestones[i - 1] if i else 0))

    def get_lr(self):
        return self.lrs_at(self.last_epoch)

    def step(self):
        self.last_epoch += 1
        i = bisect.bisect_right(self._milestones, self.last_epoch)
        scheduler = self._schedulers[i]
        if i > 0 and self._milestones[i - 1] == self.last_epoch:
            scheduler._step_count = 0  # (its initial step, as PyTorch's)
            scheduler.step(0)
        else:
            scheduler.step()
        self._last_lr = scheduler.get_last_lr()

    def state_dict(self):
        return _with_schedulers(self)

    def load_state_dict(self, state):
        _load_with_schedulers(self, state)


class ChainedScheduler(LRScheduler):
    """Several schedulers at once: their factors of the initial lr multiply (each one's
    _last_lr is the product so far, as PyTorch's chained schedulers leave it)."""

    _derived = ("base_lrs",)

    def __init__(self, schedulers, optimizer=None):
        if not schedulers:
            raise ValueError("ChainedScheduler needs at least one scheduler")
        optimizer = optimizer or schedulers[0].optimizer
        self._schedulers = list(schedulers)
        self.optimizer = optimizer
        self.base_lrs = list(self._schedulers[0].base_lrs)
        self._chain([[1.0] * len(self.base_lrs)] * len(self._schedulers))

    def _factors(self, lrs, scheduler):
        return [own / b if b else 1.0 for own, b in zip(lrs, scheduler.base_lrs)]

    def _chain(self, before):
        """Set the lrs from each scheduler's factor now. As PyTorch's chained steps leave
        them, scheduler i's _last_lr has the factors of schedulers 0..i now and of the later
        ones `before` the step (ones at construction, before they existed)."""
        now = [self._factors(s.get_last_lr(), s) for s in self._schedulers]
        for i, scheduler in enumerate(self._schedulers):
            scheduler._last_lr = [base * math.prod(f[g] for f in now[:i + 1] + before[i + 1:])
                                  for g, base in enumerate(self.base_lrs)]
        self._apply(list(self._schedulers[-1]._last_lr))

    def lrs_at(self, epoch):
        lrs = list(self.base_lrs)
        for scheduler in self._schedulers:
            lrs = [lr * f for lr, f in zip(lrs, self._factors(scheduler.lrs_at(epoch),
                                                                scheduler))]
        return lrs

    def step(self):
        before = [self._factors(s.lrs_at(s.last_epoch), s) for s in self._schedulers]
        for scheduler in self._schedulers:
            scheduler.step()
        self._chain(before)

    def state_dict(self):
        return _with_schedulers(self)

    def load_state_dict(self, state):
        _load_with_schedulers(self, state)


class ReduceLROnPlateau:
    """Multiply the lr by `factor` when `metric` (passed to step) stops improving for `patience`
    epochs. Its attributes (and so its state_dict) are PyTorch's, in PyTorch's order."""

    def __init__(self, optimizer=None, mode="min", factor=0.1, patience=10, threshold=1e-4,
                 threshold_mode="rel", cooldown=0, min_lr=0, eps=1e-8, *, learning_rate=None):
        if factor >= 1.0:
            raise ValueError(f"ReduceLROnPlateau: factor must be < 1, got {factor}")
        if mode not in ("min", "max") or threshold_mode not in ("rel", "abs"):
            raise ValueError("ReduceLROnPlateau: mode is 'min' or 'max', threshold_mode 'rel' "
                             "or 'abs'")
        self.factor, self.optimizer = factor, optimizer
        n = len(optimizer.param_groups) if optimizer is not None else 1
        if isinstance(min_lr, (list, tuple)):
            if len(min_lr) != n:
                raise ValueError(f"ReduceLROnPlateau: expected {n} min_lrs (one per parameter "
                                 f"group), got {len(min_lr)}")
            self.default_min_lr, self.min_lrs = None, list(min_lr)
        else:
            self.default_min_lr, self.min_lrs = min_lr, [min_lr] * n
        self.patience, self.cooldown, self.eps = patience, cooldown, eps
        self.last_epoch = 0
        self._last_lr = ([g["lr"] for g in optimizer.param_groups] if optimizer is not None
                         else [float(learning_rate)])
        self.mode_worse = math.inf if mode == "min" else -math.inf
        self.mode, self.threshold, self.threshold_mode = mode, threshold, threshold_mode
        self.best = self.mode_worse
        self.cooldown_counter = self.num_bad_epochs = 0

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
        if self.optimizer is not None:  # the lrs as they are now, maybe set by hand
            self._last_lr = [g["lr"] for g in self.optimizer.param_groups]
        if self.num_bad_epochs > self.patience:
            for i, lr in enumerate(self._last_lr):
                new = max(lr * self.factor, self.min_lrs[i])
                if lr - new > self.eps:
                    self._last_lr[i] = new
            if self.optimizer is not None:
                for group, lr in zip(self.optimizer.param_groups, self._last_lr):
                    group["lr"] = lr
            self.cooldown_counter, self.num_bad_epochs = self.cooldown, 0

    def get_last_lr(self):
        return list(self._last_lr)

    @property
    def last_lr(self):
        return self._last_lr[0]

    def _attach(self, optimizer):
        self.optimizer = optimizer
        for group in optimizer.param_groups:
            group["lr"] = self._last_lr[0]
        self._last_lr = [self._last_lr[0]] * len(optimizer.param_groups)
        self.min_lrs = [self.min_lrs[0]] * len(optimizer.param_groups)

    def __call__(self):
        return self._last_lr[0]

    def state_dict(self):
        """PyTorch's: the scheduler's attributes (best metric, counters, options), without
        the optimizer."""
        return {k: v for k, v in self.__dict__.items() if k != "optimizer"}

    def load_state_dict(self, state):
        self.__dict__.update(state)


StepDecay, MultiStepDecay, ExponentialDecay = StepLR, MultiStepLR, ExponentialLR
CosineAnnealingDecay, LambdaDecay = CosineAnnealingLR, LambdaLR
