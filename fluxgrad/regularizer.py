"""`fluxgrad.regularizer`: PaddlePaddle's weight-decay regularizers.

Each adds a term to a parameter's gradient before the optimizer's update:
`L2Decay(coeff)`: coeff * p; `L1Decay(coeff)`: coeff * sign(p). Given as an optimizer's
`weight_decay=` they apply to all its parameters; given as `ParamAttr(regularizer=...)` to
one parameter, in place of the optimizer's. `term(p)` works on a NumPy array (the eager
optimizer step) and on a fluxgrad tensor or static Variable (the static `minimize`).
"""
import numbers

import numpy as np

from ._core.tensor import Tensor

__all__ = ["L1Decay", "L2Decay", "WeightDecayRegularizer"]


class WeightDecayRegularizer:
    def __init__(self, coeff=0.0):
        if isinstance(coeff, bool) or not isinstance(coeff, numbers.Real) or not coeff >= 0:
            raise ValueError(f"{type(self).__name__}: coeff must be a non-negative number, got "
                             f"{coeff!r}")
        self.coeff = float(coeff)

    def term(self, param):
        raise NotImplementedError

    def __repr__(self):
        return f"{type(self).__name__}(coeff={self.coeff})"


class L2Decay(WeightDecayRegularizer):
    """Adds coeff * p to the gradient (the loss gains coeff / 2 * ||p||^2)."""

    def term(self, param):
        return param * self.coeff


class L1Decay(WeightDecayRegularizer):
    """Adds coeff * sign(p) to the gradient (the loss gains coeff * ||p||_1)."""

    def term(self, param):
        if isinstance(param, Tensor):
            from .ops import sign
            return sign(param) * self.coeff
        return np.sign(param) * self.coeff
