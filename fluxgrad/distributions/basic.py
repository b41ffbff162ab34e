"""Normal, Uniform, Bernoulli and Categorical, as in PyTorch.

`log_prob`, `entropy`, `mean`, `variance` and `rsample` (the reparameterised draw
of the continuous ones) are written in fluxgrad ops, so they differentiate with
respect to the parameters in every mode; `sample` draws without a graph. Draws
come from fluxgrad's default generator (`fluxgrad.manual_seed`).
"""
import math

from .. import ops
from .._core.dtypes import finfo
from .._core.grad_mode import no_grad
from .._core.size import Size
from .._core.tensor import Tensor
from ..creation import arange, full_like, tensor
from ..nn import functional as F
from ..random import bernoulli, multinomial, rand, randn
from . import constraints
from .distribution import Distribution, LocationScale, as_float, broadcast_all
from .exp_family import ExponentialFamily

__all__ = ["Normal", "Uniform", "Bernoulli", "Categorical"]


def _enumerated(values, batch_shape, expand):
    """`values` (the support, along dim 0) shaped to meet a batch: [n, 1, ..., 1, *event], or
    expanded to [n, *batch_shape, *event]."""
    n, event = values.shape[0], tuple(values.shape[1:])
    values = values.reshape((n,) + (1,) * len(batch_shape) + event)
    return values.expand(n, *batch_shape, *event) if expand else values


class Normal(LocationScale, ExponentialFamily):
    _mean_carrier_measure = 0

    @property
    def _natural_params(self):
        return self.loc / self.scale ** 2, -0.5 / self.scale ** 2

    def _log_normalizer(self, x, y):
        return -0.25 * x ** 2 / y + 0.5 * ops.log(-math.pi / y)

    @property
    def mean(self):
        return self.loc

    @property
    def stddev(self):
        return self.scale

    @property
    def variance(self):
        return self.scale ** 2

    def rsample(self, sample_shape=()):
        eps = randn(self._extended(sample_shape), dtype=self.loc.dtype)
        return self.loc + eps * self.scale

    def log_prob(self, value):
        self._validate_sample(value)
        return (-((value - self.loc) ** 2) / (2 * self.variance) - ops.log(self.scale)
                - math.log(math.sqrt(2 * math.pi)))

    def entropy(self):
        return 0.5 + 0.5 * math.log(2 * math.pi) + ops.log(self.scale)

    def cdf(self, value):
        self._validate_sample(value)
        return 0.5 * (1 + ops.erf((value - self.loc) / (self.scale * math.sqrt(2))))

    def icdf(self, value):
        return self.loc + self.scale * ops.erfinv(2 * value - 1) * math.sqrt(2)


class Uniform(Distribution):
    has_rsample = True

    def __init__(self, low, high, validate_args=None):
        self.low, self.high = broadcast_all(low, high)
        super().__init__(self.low.shape, validate_args=validate_args)

    @property
    def arg_constraints(self):
        return {"low": constraints.less_than(self.high),
                "high": constraints.greater_than(self.low)}

    @property
    def support(self):
        return constraints.interval(self.low, self.high)

    @property
    def mean(self):
        return (self.low + self.high) / 2

    @property
    def mode(self):
        return self.high * math.nan

    @property
    def variance(self):
        return (self.high - self.low) ** 2 / 12

    def rsample(self, sample_shape=()):
        u = rand(self._extended(sample_shape), dtype=self.low.dtype)
        return self.low + u * (self.high - self.low)

    def log_prob(self, value):
        self._validate_sample(value)
        inside = (value >= self.low) & (value < self.high)
        return ops.where(inside, -ops.log(self.high - self.low), -math.inf)

    def entropy(self):
        return ops.log(self.high - self.low)

    def cdf(self, value):
        self._validate_sample(value)
        return ops.clamp((value - self.low) / (self.high - self.low), 0, 1)

    def icdf(self, value):
        return self.low + value * (self.high - self.low)


class Bernoulli(ExponentialFamily):
    """1 with probability `probs` (or sigmoid(`logits`)), else 0."""
    arg_constraints = {"probs": constraints.unit_interval, "logits": constraints.real}
    support = constraints.boolean
    has_enumerate_support = True
    _mean_carrier_measure = 0

    @property
    def _natural_params(self):
        return (self.logits,)

    def _log_normalizer(self, x):
        return ops.log1p(ops.exp(x))

    def __init__(self, probs=None, logits=None, validate_args=None):
        if (probs is None) == (logits is None):
            raise ValueError("Bernoulli: give exactly one of probs and logits")
        if probs is not None:
            self.probs = as_float(probs)
            eps = finfo(self.probs.dtype).eps
            p = ops.clamp(self.probs, eps, 1 - eps)
            self.logits = ops.log(p) - ops.log1p(-p)
        else:
            self.logits = as_float(logits)
            self.probs = ops.sigmoid(self.logits)
        super().__init__(self.probs.shape, validate_args=validate_args)

    @property
    def param_shape(self):
        return self.probs.shape

    @property
    def mean(self):
        return self.probs

    @property
    def mode(self):
        # a fair coin has no mode
        one = (self.probs > 0.5).to(self.probs.dtype)
        return ops.where(self.probs == 0.5, math.nan, one)

    @property
    def variance(self):
        return self.probs * (1 - self.probs)

    def sample(self, sample_shape=()):
        with no_grad():
            return bernoulli(self.probs.detach().expand(*self._extended(sample_shape)))

    def enumerate_support(self, expand=True):
        return _enumerated(arange(2, dtype=self.probs.dtype), self.batch_shape, expand)

    def log_prob(self, value):
        self._validate_sample(value)
        logits, value = ops.broadcast_tensors(self.logits, as_float(value))
        return -F.binary_cross_entropy_with_logits(logits, value, reduction="none")

    def entropy(self):
        return F.binary_cross_entropy_with_logits(self.logits, self.probs, reduction="none")


class Categorical(Distribution):
    """Category indices drawn with weights `probs` (normalised) or `logits` on the last axis."""
    arg_constraints = {"probs": constraints.simplex, "logits": constraints.independent(
        constraints.real, 1)}
    has_enumerate_support = True

    def __init__(self, probs=None, logits=None, validate_args=None):
        if (probs is None) == (logits is None):
            raise ValueError("Categorical: give exactly one of probs and logits")
        if probs is not None:
            probs = as_float(probs)
            self.probs = probs / ops.sum(probs, -1, keepdim=True)
            self.logits = ops.log(self.probs)
        else:
            logits = as_float(logits)
            self.logits = logits - ops.logsumexp(logits, -1, keepdim=True)
            self.probs = ops.exp(self.logits)
        if self.probs.ndim < 1:
            raise ValueError("Categorical: probs/logits need at least one dimension (the "
                             "categories)")
        self.num_categories = self.probs.shape[-1]
        super().__init__(self.probs.shape[:-1], validate_args=validate_args)

    @property
    def support(self):
        return constraints.integer_interval(0, self.num_categories - 1)

    @property
    def param_shape(self):
        return self.probs.shape

    @property
    def mean(self):
        return full_like(self.probs[..., 0], math.nan)

    @property
    def mode(self):
        return ops.argmax(self.probs, -1)

    @property
    def variance(self):
        return full_like(self.probs[..., 0], math.nan)

    def sample(self, sample_shape=()):
        n = Size(sample_shape).numel()
        rows = self.probs.detach().reshape(-1, self.num_categories)
        draws = multinomial(rows, n, replacement=True)  # [batch, n]
        return draws.t().reshape(tuple(Size(sample_shape)) + tuple(self.batch_shape))

    def enumerate_support(self, expand=True):
        return _enumerated(arange(self.num_categories), self.batch_shape, expand)

    def log_prob(self, value):
        value = value if isinstance(value, Tensor) else tensor(value)
        self._validate_sample(value)
        value, logits = ops.broadcast_tensors(ops.unsqueeze(value.long(), -1), self.logits)
        return ops.gather(logits, -1, value[..., :1]).squeeze(-1)

    def entropy(self):
        smallest = finfo(self.logits.dtype).min
        return -ops.sum(ops.clamp(self.logits, min=smallest) * self.probs, -1)
