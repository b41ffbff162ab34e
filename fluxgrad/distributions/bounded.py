"""Families on the unit interval, as torch.distributions: Kumaraswamy (a uniform draw pushed
through powers, so `rsample` differentiates) and ContinuousBernoulli (with torch's Taylor
expansions near probs = 0.5, inside `lims`, where the closed forms lose precision)."""
import math

from .. import ops
from .._core.dtypes import finfo
from .._core.grad_mode import no_grad
from ..creation import full_like
from ..nn import functional as F
from ..random import rand
from . import constraints
from .basic import Uniform
from .distribution import broadcast_all
from .exp_family import ExponentialFamily
from .transforms import AffineTransform, PowerTransform
from .wrappers import TransformedDistribution

__all__ = ["Kumaraswamy", "ContinuousBernoulli"]

_EULER = 0.57721566490153286061


def _kumaraswamy_moment(a, b, n):
    """E[x^n] = b B(1 + n/a, b)."""
    arg = 1 + n / a
    return b * ops.exp(ops.lgamma(arg) + ops.lgamma(b) - ops.lgamma(arg + b))


class Kumaraswamy(TransformedDistribution):
    """Density a b x^(a-1) (1 - x^a)^(b-1) on [0, 1] (a: concentration1, b: concentration0)."""
    arg_constraints = {"concentration1": constraints.positive,
                       "concentration0": constraints.positive}
    support = constraints.unit_interval
    has_rsample = True

    def __init__(self, concentration1, concentration0, validate_args=None):
        self.concentration1, self.concentration0 = broadcast_all(concentration1, concentration0)
        base = Uniform(full_like(self.concentration0, 0), full_like(self.concentration0, 1),
                       validate_args=validate_args)
        transforms = [PowerTransform(ops.reciprocal(self.concentration0)),
                      AffineTransform(loc=1.0, scale=-1.0),
                      PowerTransform(ops.reciprocal(self.concentration1))]
        super().__init__(base, transforms, validate_args=validate_args)

    def expand(self, batch_shape, _instance=None):
        batch_shape = tuple(batch_shape)
        return Kumaraswamy(self.concentration1.expand(*batch_shape),
                           self.concentration0.expand(*batch_shape), validate_args=False)

    @property
    def mean(self):
        return _kumaraswamy_moment(self.concentration1, self.concentration0, 1)

    @property
    def mode(self):
        a, b = self.concentration1, self.concentration0
        log_mode = ops.reciprocal(b) * ops.log1p(-b) - ops.log1p(-b * a)
        return ops.where((b < 1) | (a < 1), math.nan, ops.exp(log_mode))

    @property
    def variance(self):
        a, b = self.concentration1, self.concentration0
        return _kumaraswamy_moment(a, b, 2) - self.mean ** 2

    def entropy(self):
        a, b = self.concentration1, self.concentration0
        t1, t0 = 1 - ops.reciprocal(a), 1 - ops.reciprocal(b)
        h0 = ops.digamma(b + 1) + _EULER
        return t0 + t1 * h0 - ops.log(a) - ops.log(b)


class ContinuousBernoulli(ExponentialFamily):
    """Density C(p) p^x (1 - p)^(1 - x) on [0, 1], C the normalising constant."""
    arg_constraints = {"probs": constraints.unit_interval, "logits": constraints.real}
    support = constraints.unit_interval
    _mean_carrier_measure = 0
    has_rsample = True

    def __init__(self, probs=None, logits=None, lims=(0.499, 0.501), validate_args=None):
        if (probs is None) == (logits is None):
            raise ValueError("Either `probs` or `logits` must be specified, but not both.")
        if probs is not None:
            (probs,) = broadcast_all(probs)
            if validate_args is not None and not constraints.unit_interval.check(probs).all():
                raise ValueError("ContinuousBernoulli: the parameter probs has values outside "
                                 f"[0, 1]:\n{probs}")
            eps = finfo(probs.dtype).eps
            self.probs = ops.clamp(probs, eps, 1 - eps)
            self.logits = ops.log(self.probs) - ops.log1p(-self.probs)
            self._param = self.probs
        else:
            (self.logits,) = broadcast_all(logits)
            eps = finfo(self.logits.dtype).eps
            self.probs = ops.clamp(ops.sigmoid(self.logits), eps, 1 - eps)
            self._param = self.logits
        self._lims = lims
        super().__init__(self._param.shape, validate_args=validate_args)

    def expand(self, batch_shape, _instance=None):
        batch_shape = tuple(batch_shape)
        if self._param is self.probs:
            return ContinuousBernoulli(probs=self.probs.expand(*batch_shape), lims=self._lims,
                                       validate_args=False)
        return ContinuousBernoulli(logits=self.logits.expand(*batch_shape), lims=self._lims,
                                   validate_args=False)

    @property
    def param_shape(self):
        return self._param.shape

    def _outside_unstable_region(self):
        return (self.probs <= self._lims[0]) | (self.probs > self._lims[1])

    def _cut_probs(self):
        return ops.where(self._outside_unstable_region(), self.probs,
                         full_like(self.probs, self._lims[0]))

    def _cont_bern_log_norm(self):
        cut = self._cut_probs()
        below_half = ops.where(cut <= 0.5, cut, full_like(cut, 0.0))
        above_half = ops.where(cut >= 0.5, cut, full_like(cut, 1.0))
        log_norm = ops.log(ops.abs(ops.log1p(-cut) - ops.log(cut))) - ops.where(
            cut <= 0.5, ops.log1p(-2.0 * below_half), ops.log(2.0 * above_half - 1.0))
        x = (self.probs - 0.5) ** 2
        taylor = math.log(2.0) + (4.0 / 3.0 + 104.0 / 45.0 * x) * x
        return ops.where(self._outside_unstable_region(), log_norm, taylor)

    @property
    def mean(self):
        cut = self._cut_probs()
        mus = cut / (2.0 * cut - 1.0) + 1.0 / (ops.log1p(-cut) - ops.log(cut))
        x = self.probs - 0.5
        taylor = 0.5 + (1.0 / 3.0 + 16.0 / 45.0 * x ** 2) * x
        return ops.where(self._outside_unstable_region(), mus, taylor)

    @property
    def variance(self):
        cut = self._cut_probs()
        variances = cut * (cut - 1.0) / (1.0 - 2.0 * cut) ** 2 + 1.0 / (
            ops.log1p(-cut) - ops.log(cut)) ** 2
        x = (self.probs - 0.5) ** 2
        taylor = 1.0 / 12.0 - (1.0 / 15.0 - 128.0 / 945.0 * x) * x
        return ops.where(self._outside_unstable_region(), variances, taylor)

    def sample(self, sample_shape=()):
        with no_grad():
            return self.rsample(sample_shape)

    def rsample(self, sample_shape=()):
        return self.icdf(rand(self._extended(sample_shape), dtype=self.probs.dtype))

    def log_prob(self, value):
        self._validate_sample(value)
        logits, value = broadcast_all(self.logits, value)
        return (-F.binary_cross_entropy_with_logits(logits, value, reduction="none")
                + self._cont_bern_log_norm())

    def cdf(self, value):
        self._validate_sample(value)
        cut = self._cut_probs()
        cdfs = (cut ** value * (1.0 - cut) ** (1.0 - value) + cut - 1.0) / (2.0 * cut - 1.0)
        unbounded = ops.where(self._outside_unstable_region(), cdfs, value)
        return ops.where(value <= 0.0, 0.0 * value,
                         ops.where(value >= 1.0, 0.0 * value + 1.0, unbounded))

    def icdf(self, value):
        cut = self._cut_probs()
        return ops.where(
            self._outside_unstable_region(),
            (ops.log1p(-cut + value * (2.0 * cut - 1.0)) - ops.log1p(-cut))
            / (ops.log(cut) - ops.log1p(-cut)),
            value)

    def entropy(self):
        log_probs0, log_probs1 = ops.log1p(-self.probs), ops.log(self.probs)
        return self.mean * (log_probs0 - log_probs1) - self._cont_bern_log_norm() - log_probs0

    @property
    def _natural_params(self):
        return (self.logits,)

    def _log_normalizer(self, x):
        outside = (x <= self._lims[0] - 0.5) | (x > self._lims[1] - 0.5)
        cut = ops.where(outside, x, full_like(x, self._lims[0] - 0.5))
        log_norm = ops.log(ops.abs(ops.expm1(cut))) - ops.log(ops.abs(cut))
        taylor = 0.5 * x + x ** 2 / 24.0 - x ** 4 / 2880.0
        return ops.where(outside, log_norm, taylor)
