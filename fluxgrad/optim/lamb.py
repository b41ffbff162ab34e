"""PaddlePaddle's `Lamb` optimizer (You et al., "Large Batch Optimization for Deep Learning").

    m = beta1 m + (1 - beta1) g;   v = beta2 v + (1 - beta2) g^2
    r = (m / (1 - beta1^t)) / (sqrt(v / (1 - beta2^t)) + epsilon) + lamb_weight_decay * p
    p -= lr * (||p|| / ||r||) * r

The trust ratio ||p|| / ||r|| is 1 where either norm is 0, and for a parameter that
`exclude_from_weight_decay_fn(param)` excludes from the decay (unless `always_adapt`).
"""
import numpy as np

from ._state import arrays, count, counter, zeros_like
from .optimizer import Optimizer, _params, _pick

__all__ = ["Lamb"]


class Lamb(Optimizer):
    _state_tensors = ("moment1", "moment2")
    _state_numbers = ("step",)

    def __init__(self, learning_rate=0.001, lamb_weight_decay=0.01, beta1=0.9, beta2=0.999,
                 epsilon=1e-6, parameters=None, grad_clip=None,
                 exclude_from_weight_decay_fn=None, multi_precision=False, always_adapt=False,
                 name=None, *, params=None, lr=None):
        if not 0 <= lamb_weight_decay:
            raise ValueError(f"Lamb: lamb_weight_decay must be non-negative, got "
                             f"{lamb_weight_decay}")
        if exclude_from_weight_decay_fn is not None and not callable(exclude_from_weight_decay_fn):
            raise TypeError("Lamb: exclude_from_weight_decay_fn must be a function of a "
                            "parameter, returning True to exclude it from the weight decay")
        self._exclude = exclude_from_weight_decay_fn
        self._excluded = set()
        super().__init__(_params(params, parameters),
                         dict(lr=_pick(lr, learning_rate), betas=(beta1, beta2), eps=epsilon,
                              lamb_weight_decay=float(lamb_weight_decay),
                              always_adapt=bool(always_adapt)), grad_clip)

    def step(self, closure=None):
        # which parameters the decay skips is a property of the tensor, not of its array
        self._excluded = {id(p._data) for g in self.param_groups for p in g["params"]
                          if self._exclude is not None and self._exclude(p)}
        return super().step(closure)

    def _update(self, p, g, state, group):
        b1, b2 = group["betas"]
        if not state:
            state["step"] = counter(0)
            state["moment1"] = zeros_like(p)
            state["moment2"] = zeros_like(p)
        t = count(state)
        m, v = arrays(state, "moment1", "moment2")
        m *= b1
        m += (1 - b1) * g
        v *= b2
        v += (1 - b2) * (g * g)
        excluded = id(p) in self._excluded
        wd = 0.0 if excluded else group["lamb_weight_decay"]
        r = (m / (1 - b1 ** t)) / (np.sqrt(v / (1 - b2 ** t)) + group["eps"]) + wd * p
        ratio = 1.0
        if not excluded or group["always_adapt"]:
            p_norm, r_norm = np.linalg.norm(p), np.linalg.norm(r)
            if p_norm > 0 and r_norm > 0:
                ratio = p_norm / r_norm
        p -= group["lr"] * ratio * r
