"""`optim.swa_utils`: stochastic weight averaging and EMA of a model, as PyTorch's.

`AveragedModel(model)` holds a deep copy whose parameters `update_parameters(model)` moves
towards the model's: the running mean by default (SWA), or any `avg_fn(averaged, current,
num_averaged)` / `multi_avg_fn(averaged_list, current_list, num_averaged)` (the EMA ones from
`get_ema_avg_fn` / `get_ema_multi_avg_fn`). Buffers are copied from the model, or averaged too
with `use_buffers=True`. `update_bn(loader, model)` recomputes BatchNorm statistics with one pass
over the data; `SWALR` anneals each group's lr to its `swa_lr`.
"""
import copy
import itertools
import math

from .._core.grad_mode import no_grad
from .._core.tensor import Tensor
from ..creation import tensor
from ..nn.layers import _BatchNorm
from ..nn.module import Module
from .lr_scheduler import LRScheduler

__all__ = ["AveragedModel", "update_bn", "SWALR", "get_ema_multi_avg_fn",
           "get_swa_multi_avg_fn", "get_ema_avg_fn", "get_swa_avg_fn"]


def get_ema_avg_fn(decay=0.999):
    def ema_update(ema_param, current_param, num_averaged):
        return decay * ema_param + (1 - decay) * current_param
    return ema_update


def get_swa_avg_fn():
    def swa_update(averaged_param, current_param, num_averaged):
        return averaged_param + (current_param - averaged_param) / (num_averaged + 1)
    return swa_update


def get_ema_multi_avg_fn(decay=0.999):
    def ema_update(ema_param_list, current_param_list, _):
        with no_grad():
            for ema, current in zip(ema_param_list, current_param_list):
                if ema.is_floating_point():
                    ema.lerp_(current, 1 - decay)
                else:
                    ema.copy_(ema * decay + current * (1 - decay))
    return ema_update


def get_swa_multi_avg_fn():
    def swa_update(averaged_param_list, current_param_list, num_averaged):
        with no_grad():
            for averaged, current in zip(averaged_param_list, current_param_list):
                if averaged.is_floating_point():
                    averaged.lerp_(current, 1 / (float(num_averaged) + 1))
                else:
                    averaged.copy_(averaged + (current - averaged) / (num_averaged + 1))
    return swa_update


class AveragedModel(Module):
    """A running average of `model`'s parameters (a deep copy of it, called like it)."""

    def __init__(self, model, device=None, avg_fn=None, multi_avg_fn=None, use_buffers=False):
        super().__init__()
        if avg_fn is not None and multi_avg_fn is not None:
            raise ValueError("AveragedModel: give only one of avg_fn and multi_avg_fn")
        self.module = copy.deepcopy(model)
        if device is not None:
            self.module = self.module.to(device)
        self.register_buffer("n_averaged", tensor(0))
        self.avg_fn, self.multi_avg_fn, self.use_buffers = avg_fn, multi_avg_fn, use_buffers

    def forward(self, *args, **kwargs):
        return self.module(*args, **kwargs)

    def _averaged(self, module):
        if self.use_buffers:
            return list(itertools.chain(module.parameters(), module.buffers()))
        return list(module.parameters())

    def update_parameters(self, model):
        """Average `model`'s current parameters (and buffers, with use_buffers) in."""
        averaged = [p.detach() for p in self._averaged(self.module)]
        current = [p.detach() for p in self._averaged(model)]
        with no_grad():
            if int(self.n_averaged) == 0:
                for a, c in zip(averaged, current):
                    a.copy_(c)
            elif self.multi_avg_fn is not None:
                self.multi_avg_fn(averaged, current, self.n_averaged)
            else:
                avg_fn = self.avg_fn or get_swa_avg_fn()
                for a, c in zip(averaged, current):
                    a.copy_(avg_fn(a, c, self.n_averaged))
            if not self.use_buffers:
                for own, theirs in zip(self.module.buffers(), model.buffers()):
                    own.copy_(theirs.detach())
            self.n_averaged += 1


def update_bn(loader, model, device=None):
    """Recompute the running statistics of `model`'s BatchNorm layers with one pass over
    `loader` (the first element of each batch that is a list or tuple) in train mode; the
    layers' momentum and the model's mode are restored."""
    momenta = {}
    for module in model.modules():
        if isinstance(module, _BatchNorm):
            module.reset_running_stats()
            momenta[module] = module.momentum
    if not momenta:
        return
    was_training = model.training
    model.train()
    for module in momenta:
        module.momentum = None
    with no_grad():
        for batch in loader:
            if isinstance(batch, (list, tuple)):
                batch = batch[0]
            if device is not None and isinstance(batch, Tensor):
                batch = batch.to(device)
            model(batch)
    for module, momentum in momenta.items():
        module.momentum = momentum
    model.train(was_training)


class SWALR(LRScheduler):
    """Anneal each group's lr from its current value to `swa_lr` over `anneal_epochs` steps
    ('cos' or 'linear'), then hold it."""

    def __init__(self, optimizer, swa_lr, anneal_epochs=10, anneal_strategy="cos", last_epoch=-1):
        swa_lrs = list(swa_lr) if isinstance(swa_lr, (list, tuple)) else \
            [swa_lr] * len(optimizer.param_groups)
        if len(swa_lrs) != len(optimizer.param_groups):
            raise ValueError(f"swa_lr must have the same length as optimizer.param_groups. swa_lr "
                             f"has {len(swa_lrs)} values, param_groups has "
                             f"{len(optimizer.param_groups)}.")
        if anneal_strategy not in ("cos", "linear"):
            raise ValueError(f"anneal_strategy must be one of 'cos' or 'linear', instead got "
                             f"{anneal_strategy}")
        if isinstance(anneal_epochs, bool) or not isinstance(anneal_epochs, int) \
                or anneal_epochs < 0:
            raise ValueError(f"anneal_epochs must be equal or greater than 0, got {anneal_epochs}")
        for lr, group in zip(swa_lrs, optimizer.param_groups):
            group["swa_lr"] = lr
        self.anneal_strategy, self.anneal_epochs = anneal_strategy, anneal_epochs
        super().__init__(optimizer, last_epoch)

    def _anneal(self, t):
        return t if self.anneal_strategy == "linear" else (1 - math.cos(math.pi * t)) / 2

    def get_lr(self):
        # recursive, as PyTorch's: the lr the previous step's alpha started from, moved to this
        # step's alpha
        step = self.last_epoch if self.anneal_epochs else max(1, self.last_epoch)
        prev_alpha = self._anneal(max(0, min(1, (step - 1) / max(1, self.anneal_epochs))))
        alpha = self._anneal(max(0, min(1, step / max(1, self.anneal_epochs))))
        lrs = []
        for group in self.optimizer.param_groups:
            start = group["swa_lr"] if prev_alpha == 1 else \
                (group["lr"] - prev_alpha * group["swa_lr"]) / (1 - prev_alpha)
            lrs.append(group["swa_lr"] * alpha + start * (1 - alpha))
        return lrs
