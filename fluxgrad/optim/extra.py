"""More optimizers with PyTorch's update rules: Adadelta, Adamax, NAdam, RAdam, Rprop, ASGD.

Each takes PyTorch's arguments and PaddlePaddle's spellings (`learning_rate=`,
`parameters=`, `beta1=`/`beta2=`, `epsilon=`), and updates in place like the
optimizers in `optimizer.py`.
"""
import math

import numpy as np

from ._state import arrays, count, counter, zeros_like
from .optimizer import Optimizer, _flags, _params, _pick, _weight_decay

__all__ = ["Adadelta", "Adamax", "NAdam", "RAdam", "Rprop", "ASGD"]


def _betas(owner, betas, beta1, beta2):
    betas = (_pick(betas[0], beta1), _pick(betas[1], beta2))
    for b in betas:
        if not 0 <= b < 1:
            raise ValueError(f"{owner}: betas must be in [0, 1), got {betas}")
    return betas


def _check(owner, lr, eps):
    if not isinstance(lr, (int, float)) and not hasattr(lr, "_attach"):
        raise TypeError(f"{owner}: lr must be a number or an LRScheduler, got "
                        f"{type(lr).__name__}")
    if isinstance(lr, (int, float)) and lr < 0:
        raise ValueError(f"{owner}: lr must be non-negative, got {lr}")
    if eps < 0:
        raise ValueError(f"{owner}: eps must be non-negative, got {eps}")


class Adadelta(Optimizer):
    """Adadelta: steps scaled by the ratio of running RMS of updates to that of gradients."""
    _torch_keys = ('lr', 'rho', 'eps', 'weight_decay', 'maximize', 'capturable', 'foreach',
                   'differentiable')

    _state_tensors = ("square_avg", "acc_delta")
    _state_numbers = ("step",)

    def __init__(self, params=None, lr=1.0, rho=0.9, eps=1e-6, weight_decay=0.0, foreach=None,
                 *, capturable=False, maximize=False, differentiable=False, learning_rate=None,
                 parameters=None, epsilon=None, grad_clip=None, name=None):
        lr, eps = _pick(lr, learning_rate), _pick(eps, epsilon)
        _check("Adadelta", lr, eps)
        if not 0 <= rho <= 1:
            raise ValueError(f"Adadelta: rho must be in [0, 1], got {rho}")
        super().__init__(_params(params, parameters),
                         dict(lr=lr, rho=rho, eps=eps, weight_decay=_weight_decay(weight_decay),
                              maximize=maximize, **_flags("Adadelta", foreach=foreach,
                                                          capturable=capturable,
                                                          differentiable=differentiable)),
                         grad_clip)

    def _update(self, p, g, state, group):
        rho, eps = group["rho"], group["eps"]
        if not state:
            state["step"] = counter(0)
            state["square_avg"] = zeros_like(p)
            state["acc_delta"] = zeros_like(p)
        count(state)
        if group["weight_decay"]:
            g = g + group["weight_decay"] * p
        sq, acc = arrays(state, "square_avg", "acc_delta")
        sq *= rho
        sq += (1 - rho) * (g * g)
        delta = np.sqrt(acc + eps) / np.sqrt(sq + eps) * g
        acc *= rho
        acc += (1 - rho) * (delta * delta)
        p -= group["lr"] * delta


class Adamax(Optimizer):
    """Adamax: Adam with the infinity norm of past gradients in place of their RMS."""
    _torch_keys = ('lr', 'betas', 'eps', 'weight_decay', 'foreach', 'maximize', 'differentiable',
                   'capturable')

    _state_tensors = ("exp_avg", "exp_inf")
    _state_numbers = ("step",)

    def __init__(self, params=None, lr=2e-3, betas=(0.9, 0.999), eps=1e-8, weight_decay=0.0,
                 foreach=None, *, maximize=False, differentiable=False, capturable=False,
                 learning_rate=None, parameters=None, beta1=None, beta2=None, epsilon=None,
                 grad_clip=None, name=None):
        lr, eps = _pick(lr, learning_rate), _pick(eps, epsilon)
        _check("Adamax", lr, eps)
        super().__init__(_params(params, parameters),
                         dict(lr=lr, betas=_betas("Adamax", betas, beta1, beta2), eps=eps,
                              weight_decay=_weight_decay(weight_decay), maximize=maximize,
                              **_flags("Adamax", foreach=foreach, capturable=capturable,
                                       differentiable=differentiable)),
                         grad_clip)

    def _update(self, p, g, state, group):
        b1, b2 = group["betas"]
        if not state:
            state["step"] = counter(0)
            state["exp_avg"] = zeros_like(p)
            state["exp_inf"] = zeros_like(p)
        t = count(state)
        if group["weight_decay"]:
            g = g + group["weight_decay"] * p
        m, u = arrays(state, "exp_avg", "exp_inf")
        m *= b1
        m += (1 - b1) * g
        np.maximum(u * b2, np.abs(g) + group["eps"], out=u)
        p -= (group["lr"] / (1 - b1 ** t)) * (m / u)


class _AdamFamily(Optimizer):
    """Shared arguments of NAdam and RAdam (Adam's, plus decoupled weight decay)."""

    _state_tensors = ("exp_avg", "exp_avg_sq")
    _state_numbers = ("step",)

    def _adam_init(self, owner, params, lr, betas, eps, weight_decay, decoupled, maximize,
                   learning_rate, parameters, beta1, beta2, epsilon, grad_clip, **extra):
        lr, eps = _pick(lr, learning_rate), _pick(eps, epsilon)
        _check(owner, lr, eps)
        super().__init__(_params(params, parameters),
                         dict(lr=lr, betas=_betas(owner, betas, beta1, beta2), eps=eps,
                              weight_decay=_weight_decay(weight_decay),
                              decoupled_weight_decay=decoupled, maximize=maximize, **extra),
                         grad_clip)

    @staticmethod
    def _moments(p, g, state, group):
        """Weight decay, then the step count and both moment estimates, updated."""
        b1, b2 = group["betas"]
        if not state:
            state["step"] = counter(0)
            state["exp_avg"] = zeros_like(p)
            state["exp_avg_sq"] = zeros_like(p)
        wd = group["weight_decay"]
        if wd:
            if group["decoupled_weight_decay"]:
                p *= 1 - group["lr"] * wd
            else:
                g = g + wd * p
        t = count(state)
        m, v = arrays(state, "exp_avg", "exp_avg_sq")
        m *= b1
        m += (1 - b1) * g
        v *= b2
        v += (1 - b2) * (g * g)
        return g, m, v, t


class NAdam(_AdamFamily):
    """Adam with Nesterov momentum, its momentum warmed up by `momentum_decay`."""
    _torch_keys = ('lr', 'betas', 'eps', 'weight_decay', 'momentum_decay', 'decoupled_weight_decay',
                   'maximize', 'foreach', 'capturable', 'differentiable')

    _state_numbers = ("step", "mu_product")

    def __init__(self, params=None, lr=2e-3, betas=(0.9, 0.999), eps=1e-8, weight_decay=0.0,
                 momentum_decay=4e-3, decoupled_weight_decay=False, *, foreach=None,
                 maximize=False, capturable=False, differentiable=False, learning_rate=None,
                 parameters=None, beta1=None, beta2=None, epsilon=None, grad_clip=None,
                 name=None):
        if momentum_decay < 0:
            raise ValueError(f"NAdam: momentum_decay must be non-negative, got {momentum_decay}")
        self._adam_init("NAdam", params, lr, betas, eps, weight_decay, decoupled_weight_decay,
                        maximize, learning_rate, parameters, beta1, beta2, epsilon, grad_clip,
                        momentum_decay=momentum_decay,
                        **_flags("NAdam", foreach=foreach, capturable=capturable,
                                 differentiable=differentiable))

    def _update(self, p, g, state, group):
        g, m, v, t = self._moments(p, g, state, group)
        b1, b2 = group["betas"]
        lr, decay = group["lr"], group["momentum_decay"]
        mu = b1 * (1 - 0.5 * 0.96 ** (t * decay))
        mu_next = b1 * (1 - 0.5 * 0.96 ** ((t + 1) * decay))
        if "mu_product" not in state:
            state["mu_product"] = counter(1.0)
        product = state["mu_product"]._data
        product *= mu
        product = product.item()
        denom = np.sqrt(v / (1 - b2 ** t)) + group["eps"]
        p -= (lr * (1 - mu) / (1 - product)) * (g / denom)
        p -= (lr * mu_next / (1 - product * mu_next)) * (m / denom)


class RAdam(_AdamFamily):
    """Rectified Adam: plain momentum SGD until the variance estimate is trustworthy."""
    _torch_keys = ('lr', 'betas', 'eps', 'weight_decay', 'maximize', 'foreach', 'capturable',
                   'decoupled_weight_decay', 'differentiable')

    def __init__(self, params=None, lr=1e-3, betas=(0.9, 0.999), eps=1e-8, weight_decay=0.0,
                 decoupled_weight_decay=False, *, foreach=None, maximize=False,
                 capturable=False, differentiable=False, learning_rate=None, parameters=None,
                 beta1=None, beta2=None, epsilon=None, grad_clip=None, name=None):
        self._adam_init("RAdam", params, lr, betas, eps, weight_decay, decoupled_weight_decay,
                        maximize, learning_rate, parameters, beta1, beta2, epsilon, grad_clip,
                        **_flags("RAdam", foreach=foreach, capturable=capturable,
                                 differentiable=differentiable))

    def _update(self, p, g, state, group):
        g, m, v, t = self._moments(p, g, state, group)
        b1, b2 = group["betas"]
        m_hat = m / (1 - b1 ** t)
        rho_inf = 2 / (1 - b2) - 1
        rho_t = rho_inf - 2 * t * b2 ** t / (1 - b2 ** t)
        if rho_t > 5:
            rect = math.sqrt((rho_t - 4) * (rho_t - 2) * rho_inf
                             / ((rho_inf - 4) * (rho_inf - 2) * rho_t))
            adaptive = math.sqrt(1 - b2 ** t) / (np.sqrt(v) + group["eps"])
            p -= group["lr"] * rect * (m_hat * adaptive)
        else:
            p -= group["lr"] * m_hat


class Rprop(Optimizer):
    """Resilient backpropagation: a step size per element, grown by etas[1] while the
    gradient keeps its sign and shrunk by etas[0] when it flips (that step is skipped)."""
    _torch_keys = ('lr', 'etas', 'step_sizes', 'foreach', 'maximize', 'differentiable',
                   'capturable')

    _state_tensors = ("prev", "step_size")
    _state_numbers = ("step",)

    def __init__(self, params=None, lr=1e-2, etas=(0.5, 1.2), step_sizes=(1e-6, 50), *,
                 capturable=False, foreach=None, maximize=False, differentiable=False,
                 learning_rate=None, parameters=None, grad_clip=None, name=None):
        lr = _pick(lr, learning_rate)
        _check("Rprop", lr, 0.0)
        if not 0.0 < etas[0] < 1.0 < etas[1]:
            raise ValueError(f"Rprop: Invalid eta values: {etas[0]}, {etas[1]}")
        super().__init__(_params(params, parameters),
                         dict(lr=lr, etas=tuple(etas), step_sizes=tuple(step_sizes),
                              maximize=maximize, **_flags("Rprop", foreach=foreach,
                                                          capturable=capturable,
                                                          differentiable=differentiable)),
                         grad_clip)

    def _update(self, p, g, state, group):
        shrink, grow = group["etas"]
        low, high = group["step_sizes"]
        if not state:
            state["step"] = counter(0)
            state["prev"] = zeros_like(p)
            state["step_size"] = zeros_like(p, group["lr"])
        count(state)
        prev, step_size = arrays(state, "prev", "step_size")
        agreement = np.sign(g * prev)
        factor = np.where(agreement > 0, grow, np.where(agreement < 0, shrink, 1.0))
        np.clip(step_size * factor.astype(p.dtype), low, high, out=step_size)
        g = np.where(agreement < 0, 0, g).astype(p.dtype)
        p -= np.sign(g) * step_size
        prev[...] = g


class ASGD(Optimizer):
    """Averaged SGD: SGD with a decaying step, keeping a running average `ax` of the iterates
    from step t0 on."""
    _torch_keys = ('lr', 'lambd', 'alpha', 't0', 'weight_decay', 'foreach', 'maximize',
                   'differentiable', 'capturable')

    _state_tensors = ("ax",)
    _state_numbers = ("step", "eta", "mu")

    def __init__(self, params=None, lr=1e-2, lambd=1e-4, alpha=0.75, t0=1e6, weight_decay=0.0,
                 foreach=None, maximize=False, differentiable=False, capturable=False, *,
                 learning_rate=None, parameters=None, grad_clip=None, name=None):
        lr = _pick(lr, learning_rate)
        _check("ASGD", lr, 0.0)
        super().__init__(_params(params, parameters),
                         dict(lr=lr, lambd=lambd, alpha=alpha, t0=t0,
                              weight_decay=_weight_decay(weight_decay), maximize=maximize,
                              **_flags("ASGD", foreach=foreach, capturable=capturable,
                                       differentiable=differentiable)),
                         grad_clip)

    def _update(self, p, g, state, group):
        if not state:
            state["step"], state["eta"], state["mu"] = counter(0), counter(group["lr"]), counter(1)
            state["ax"] = zeros_like(p)
        step = count(state)
        eta, mu = state["eta"].item(), state["mu"].item()
        if group["weight_decay"]:
            g = g + group["weight_decay"] * p
        p *= 1 - group["lambd"] * eta
        p -= eta * g
        ax = state["ax"]._data
        if mu != 1:
            ax += (p - ax) * mu
        else:
            ax[...] = p
        lr = group["lr"]
        state["eta"]._data[...] = lr / (1 + group["lambd"] * lr * step) ** group["alpha"]
        state["mu"]._data[...] = 1 / max(1, step - group["t0"])
