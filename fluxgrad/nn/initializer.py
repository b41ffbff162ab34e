"""`fluxgrad.nn.initializer`: PaddlePaddle's initializer classes, next to the functions of
`nn.init` (which this module also exports, so `nn.initializer.xavier_uniform_` works).

An initializer is an object called on a tensor, `init(param)`, that fills it in place
(outside the graph) and returns it; `ParamAttr(initializer=...)` hands it to a layer.
Fans follow PaddlePaddle, read from the shape as Paddle lays the weight out: a 2-d weight
is [in, out] (fan_in = shape[0]); a convolution's [out, in / groups, *kernel] has fan_in =
shape[1] * kernel size and fan_out = shape[0] * kernel size; 1-d: both are the size. A
layer whose weight fluxgrad stores transposed (Linear: [out, in], as PyTorch) hands the
initializer a transposed view, so `Assign` values and fans are Paddle's.
"""
import math

import numpy as np

from .._core.tensor import Tensor
from . import init
from .init import *  # noqa: F401,F403
from .init import __all__ as _init_all

__all__ = ["Initializer", "Constant", "Normal", "TruncatedNormal", "Uniform", "XavierNormal",
           "XavierUniform", "KaimingNormal", "KaimingUniform", "Assign", "Orthogonal", "Dirac",
           "calculate_gain"] + [n for n in _init_all if n != "calculate_gain"]


def calculate_gain(nonlinearity, param=None):
    """PaddlePaddle's gain table (as PyTorch's)."""
    return init.calculate_gain(nonlinearity, param)


def compute_fans(shape):
    """(fan_in, fan_out) of a weight of `shape` laid out as PaddlePaddle lays it out."""
    if len(shape) == 0:
        return 1, 1
    if len(shape) == 1:
        return shape[0], shape[0]
    if len(shape) == 2:
        return shape[0], shape[1]
    receptive = math.prod(shape[2:])
    return shape[1] * receptive, shape[0] * receptive


class Initializer:
    """Base class: `init(param, block=None)` fills `param` in place and returns it."""

    def __call__(self, param, block=None):
        if not isinstance(param, Tensor):
            raise TypeError(f"{type(self).__name__}: expected a tensor to initialise, got "
                            f"{type(param).__name__}")
        self._fill(param)
        return param

    def _fill(self, param):
        raise NotImplementedError

    def __repr__(self):
        args = ", ".join(f"{k}={v!r}" for k, v in vars(self).items() if k != "value")
        return f"{type(self).__name__}({args})"


class Constant(Initializer):
    def __init__(self, value=0.0):
        self.value = value

    def _fill(self, param):
        init.constant_(param, self.value)

    def __repr__(self):
        return f"Constant(value={self.value!r})"


class Normal(Initializer):
    def __init__(self, mean=0.0, std=1.0, name=None):
        self.mean, self.std = mean, std

    def _fill(self, param):
        init.normal_(param, self.mean, self.std)


class TruncatedNormal(Initializer):
    """N(mean, std) draws redrawn until they lie in [a, b]."""

    def __init__(self, mean=0.0, std=1.0, a=-2.0, b=2.0, name=None):
        if not a < b:
            raise ValueError(f"TruncatedNormal: the cutoffs must satisfy a < b, got a={a}, b={b}")
        self.mean, self.std, self.a, self.b = mean, std, a, b

    def _fill(self, param):
        init.trunc_normal_(param, self.mean, self.std, self.a, self.b)


class Uniform(Initializer):
    def __init__(self, low=-1.0, high=1.0, name=None):
        if not low <= high:
            raise ValueError(f"Uniform: low must not exceed high, got low={low}, high={high}")
        self.low, self.high = low, high

    def _fill(self, param):
        init.uniform_(param, self.low, self.high)


class _Xavier(Initializer):
    def __init__(self, fan_in=None, fan_out=None, gain=1.0, name=None):
        self.fan_in, self.fan_out, self.gain = fan_in, fan_out, gain

    def _fans(self, param):
        fan_in, fan_out = compute_fans(param.shape)
        return (fan_in if self.fan_in is None else self.fan_in,
                fan_out if self.fan_out is None else self.fan_out)


class XavierUniform(_Xavier):
    """U(-x, x), x = gain * sqrt(6 / (fan_in + fan_out))."""

    def _fill(self, param):
        fan_in, fan_out = self._fans(param)
        limit = self.gain * math.sqrt(6.0 / (fan_in + fan_out))
        init.uniform_(param, -limit, limit)


class XavierNormal(_Xavier):
    """N(0, gain * sqrt(2 / (fan_in + fan_out)))."""

    def _fill(self, param):
        fan_in, fan_out = self._fans(param)
        init.normal_(param, 0.0, self.gain * math.sqrt(2.0 / (fan_in + fan_out)))


class _Kaiming(Initializer):
    def __init__(self, fan_in=None, negative_slope=0.0, nonlinearity="relu", mode="fan_in"):
        if mode not in ("fan_in", "fan_out"):
            raise ValueError(f"{type(self).__name__}: mode must be 'fan_in' or 'fan_out', got "
                             f"{mode!r}")
        self.fan_in, self.negative_slope, self.nonlinearity = fan_in, negative_slope, nonlinearity
        self.mode = mode

    def _std(self, param):
        fan_in, fan_out = compute_fans(param.shape)
        fan = fan_out if self.mode == "fan_out" else \
            fan_in if self.fan_in is None else self.fan_in
        return calculate_gain(self.nonlinearity, self.negative_slope) / math.sqrt(fan)


class KaimingNormal(_Kaiming):
    """N(0, gain / sqrt(fan_in))."""

    def _fill(self, param):
        init.normal_(param, 0.0, self._std(param))


class KaimingUniform(_Kaiming):
    """U(-x, x), x = gain * sqrt(3 / fan_in)."""

    def _fill(self, param):
        bound = math.sqrt(3.0) * self._std(param)
        init.uniform_(param, -bound, bound)


class Assign(Initializer):
    """The given values (a NumPy array, list, number or tensor) of the parameter's shape."""

    def __init__(self, value, name=None):
        self.value = value._data if isinstance(value, Tensor) else np.asarray(value)

    def _fill(self, param):
        if self.value.size != 1 and self.value.shape != tuple(param.shape):
            raise ValueError(f"Assign: the value has shape {list(self.value.shape)}, the "
                             f"parameter {list(param.shape)}; give values of the parameter's "
                             "shape")
        init._fill(param, np.broadcast_to(self.value, param._data.shape))

    def __repr__(self):
        return f"Assign(value of shape {list(self.value.shape)})"


class Orthogonal(Initializer):
    """A (semi-)orthogonal matrix over [shape[0], prod(shape[1:])], times `gain`."""

    def __init__(self, gain=1.0, name=None):
        self.gain = gain

    def _fill(self, param):
        init.orthogonal_(param, self.gain)


class Dirac(Initializer):
    """A 3-, 4- or 5-d convolution weight that passes its input through (per group)."""

    def __init__(self, groups=1, name=None):
        self.groups = groups

    def _fill(self, param):
        init.dirac_(param, self.groups)
