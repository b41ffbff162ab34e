"""Continuous families on the real line, as torch.distributions: Exponential, Laplace, Cauchy,
HalfCauchy, Gumbel, Weibull, HalfNormal, StudentT, Gamma, Chi2 and Beta.

Formulas are torch's (same parameter names and attributes). `rsample` is the reparameterised
draw where torch has one; Gamma, Chi2, Beta and StudentT draw their gamma variates from the
`random_gamma` op, whose gradient with respect to the concentration (torch's implicit
reparameterisation) is not provided: their `rsample` raises NotImplementedError when that
parameter requires a gradient (a Gamma's rate, a StudentT's loc and scale do carry one).
"""
import math

from .. import ops
from .._core.dtypes import finfo
from .._core.grad_mode import is_grad_enabled, no_grad
from ..random import rand, randn
from .. import random_ops
from . import constraints
from .distribution import Distribution, LocationScale, broadcast_all
from .exp_family import ExponentialFamily

__all__ = ["Exponential", "Laplace", "Cauchy", "HalfCauchy", "Gumbel", "Weibull", "HalfNormal", "StudentT",
           "Gamma", "Chi2", "Beta"]

_EULER = 0.57721566490153286061
_LOG_SQRT_2PI = 0.5 * math.log(2 * math.pi)


def _uniform_open(dist, sample_shape, like):
    """Uniform draws on (0, 1): rand clamped away from 0 by the dtype's tiny."""
    u = rand(dist._extended(sample_shape), dtype=like.dtype)
    return ops.clamp(u, min=finfo(like.dtype).tiny)


def _no_gradient_through(dist, concentration, name):
    if is_grad_enabled() and concentration.requires_grad:
        raise NotImplementedError(
            f"{type(dist).__name__}.rsample: the gradient with respect to {name} (torch's "
            "implicit reparameterisation of gamma draws) is not implemented; call sample(), or "
            f"rsample() with a {name} that does not require grad")


def standard_gamma(concentration, shape):
    """Gamma(concentration, 1) draws in `shape`, outside the graph, clamped to the dtype's
    tiny as torch's are."""
    with no_grad():
        c = concentration.detach().expand(*shape).contiguous()
        return ops.clamp(random_ops.gamma(c), min=finfo(c.dtype).tiny)


class Exponential(ExponentialFamily):
    arg_constraints = {"rate": constraints.positive}
    support = constraints.nonnegative
    has_rsample = True
    _mean_carrier_measure = 0

    @property
    def _natural_params(self):
        return (-self.rate,)

    def _log_normalizer(self, x):
        return -ops.log(-x)

    def __init__(self, rate, validate_args=None):
        (self.rate,) = broadcast_all(rate)
        super().__init__(self.rate.shape, validate_args=validate_args)

    @property
    def mean(self):
        return 1 / self.rate

    @property
    def mode(self):
        return self.rate * 0

    @property
    def stddev(self):
        return 1 / self.rate

    @property
    def variance(self):
        return self.rate ** -2

    def rsample(self, sample_shape=()):
        return -ops.log(_uniform_open(self, sample_shape, self.rate)) / self.rate

    def log_prob(self, value):
        self._validate_sample(value)
        return ops.log(self.rate) - self.rate * value

    def cdf(self, value):
        self._validate_sample(value)
        return 1 - ops.exp(-self.rate * value)

    def icdf(self, value):
        return -ops.log1p(-value) / self.rate

    def entropy(self):
        return 1.0 - ops.log(self.rate)


class Laplace(LocationScale):
    @property
    def mean(self):
        return self.loc

    @property
    def variance(self):
        return 2 * self.scale ** 2

    @property
    def stddev(self):
        return math.sqrt(2) * self.scale

    def rsample(self, sample_shape=()):
        eps = finfo(self.loc.dtype).eps
        u = rand(self._extended(sample_shape), dtype=self.loc.dtype) * (2 - eps) + (eps - 1)
        return self.loc - self.scale * ops.sign(u) * ops.log1p(-ops.abs(u))

    def log_prob(self, value):
        self._validate_sample(value)
        return -ops.log(2 * self.scale) - ops.abs(value - self.loc) / self.scale

    def cdf(self, value):
        self._validate_sample(value)
        z = value - self.loc
        return 0.5 - 0.5 * ops.sign(z) * ops.expm1(-ops.abs(z) / self.scale)

    def icdf(self, value):
        term = value - 0.5
        return self.loc - self.scale * ops.sign(term) * ops.log1p(-2 * ops.abs(term))

    def entropy(self):
        return 1 + ops.log(2 * self.scale)


class Cauchy(LocationScale):
    @property
    def mean(self):
        return self.loc * math.nan

    @property
    def variance(self):
        return self.loc * 0 + math.inf

    def rsample(self, sample_shape=()):
        u = rand(self._extended(sample_shape), dtype=self.loc.dtype)
        return self.loc + self.scale * ops.tan(math.pi * (u - 0.5))

    def log_prob(self, value):
        self._validate_sample(value)
        return (-math.log(math.pi) - ops.log(self.scale)
                - ops.log1p(((value - self.loc) / self.scale) ** 2))

    def cdf(self, value):
        self._validate_sample(value)
        return ops.atan((value - self.loc) / self.scale) / math.pi + 0.5

    def icdf(self, value):
        return ops.tan(math.pi * (value - 0.5)) * self.scale + self.loc

    def entropy(self):
        return math.log(4 * math.pi) + ops.log(self.scale)


class HalfCauchy(Distribution):
    """|x| for x drawn from Cauchy(0, scale)."""
    arg_constraints = {"scale": constraints.positive}
    support = constraints.nonnegative
    has_rsample = True

    def __init__(self, scale, validate_args=None):
        (self.scale,) = broadcast_all(scale)
        self._cauchy = Cauchy(0.0, self.scale, validate_args=False)
        super().__init__(self.scale.shape, validate_args=validate_args)

    @property
    def mean(self):
        return self.scale * 0 + math.inf

    @property
    def mode(self):
        return self.scale * 0

    @property
    def variance(self):
        return self.scale * 0 + math.inf

    def rsample(self, sample_shape=()):
        return ops.abs(self._cauchy.rsample(sample_shape))

    def log_prob(self, value):
        self._validate_sample(value)
        return ops.where(value >= 0, self._cauchy.log_prob(value) + math.log(2), -math.inf)

    def cdf(self, value):
        self._validate_sample(value)
        return 2 * self._cauchy.cdf(value) - 1

    def icdf(self, prob):
        return self._cauchy.icdf((prob + 1) / 2)

    def entropy(self):
        return self._cauchy.entropy() - math.log(2)


class Gumbel(LocationScale):
    @property
    def mean(self):
        return self.loc + self.scale * _EULER

    @property
    def variance(self):
        return self.stddev ** 2

    @property
    def stddev(self):
        return (math.pi / math.sqrt(6)) * self.scale

    def rsample(self, sample_shape=()):
        eps = finfo(self.loc.dtype).eps
        u = ops.clamp(_uniform_open(self, sample_shape, self.loc), max=1 - eps)
        return self.loc - self.scale * ops.log(-ops.log(u))

    def log_prob(self, value):
        self._validate_sample(value)
        z = (value - self.loc) / self.scale
        return -(z + ops.exp(-z)) - ops.log(self.scale)

    def cdf(self, value):
        self._validate_sample(value)
        return ops.exp(-ops.exp(-(value - self.loc) / self.scale))

    def icdf(self, value):
        return self.loc - self.scale * ops.log(-ops.log(value))

    def entropy(self):
        return ops.log(self.scale) + (1 + _EULER)


class Weibull(Distribution):
    arg_constraints = {"scale": constraints.positive, "concentration": constraints.positive}
    support = constraints.positive
    has_rsample = True

    def __init__(self, scale, concentration, validate_args=None):
        self.scale, self.concentration = broadcast_all(scale, concentration)
        super().__init__(self.scale.shape, validate_args=validate_args)

    @property
    def mean(self):
        return self.scale * ops.exp(ops.lgamma(1 + 1 / self.concentration))

    @property
    def mode(self):
        k = self.concentration
        return self.scale * ((k - 1) / k) ** (1 / k)

    @property
    def variance(self):
        k = self.concentration
        return self.scale ** 2 * (ops.exp(ops.lgamma(1 + 2 / k))
                                  - ops.exp(2 * ops.lgamma(1 + 1 / k)))

    def rsample(self, sample_shape=()):
        e = -ops.log(_uniform_open(self, sample_shape, self.scale))
        return self.scale * e ** (1 / self.concentration)

    def log_prob(self, value):
        self._validate_sample(value)
        k, z = self.concentration, value / self.scale
        return ops.log(k / self.scale) + (k - 1) * ops.log(z) - z ** k

    def cdf(self, value):
        self._validate_sample(value)
        return 1 - ops.exp(-(value / self.scale) ** self.concentration)

    def icdf(self, value):
        return self.scale * (-ops.log1p(-value)) ** (1 / self.concentration)

    def entropy(self):
        k = self.concentration
        return _EULER * (1 - 1 / k) + ops.log(self.scale / k) + 1


class HalfNormal(Distribution):
    arg_constraints = {"scale": constraints.positive}
    support = constraints.nonnegative
    has_rsample = True

    def __init__(self, scale, validate_args=None):
        (self.scale,) = broadcast_all(scale)
        super().__init__(self.scale.shape, validate_args=validate_args)

    @property
    def mean(self):
        return self.scale * math.sqrt(2 / math.pi)

    @property
    def mode(self):
        return self.scale * 0

    @property
    def variance(self):
        return self.scale ** 2 * (1 - 2 / math.pi)

    def rsample(self, sample_shape=()):
        return ops.abs(randn(self._extended(sample_shape), dtype=self.scale.dtype)) * self.scale

    def log_prob(self, value):
        self._validate_sample(value)
        lp = (math.log(2) - _LOG_SQRT_2PI - ops.log(self.scale)
              - value ** 2 / (2 * self.scale ** 2))
        return ops.where(value >= 0, lp, -math.inf)

    def cdf(self, value):
        self._validate_sample(value)
        return ops.erf(value / (self.scale * math.sqrt(2)))

    def icdf(self, prob):
        return self.scale * ops.erfinv(prob) * math.sqrt(2)

    def entropy(self):
        return 0.5 * math.log(math.pi / 2) + 0.5 + ops.log(self.scale)


class Gamma(ExponentialFamily):
    arg_constraints = {"concentration": constraints.positive, "rate": constraints.positive}
    support = constraints.nonnegative
    has_rsample = True
    _mean_carrier_measure = 0

    @property
    def _natural_params(self):
        return self.concentration - 1, -self.rate

    def _log_normalizer(self, x, y):
        return ops.lgamma(x + 1) + (x + 1) * ops.log(-ops.reciprocal(y))

    def __init__(self, concentration, rate, validate_args=None):
        self.concentration, self.rate = broadcast_all(concentration, rate)
        super().__init__(self.concentration.shape, validate_args=validate_args)

    @property
    def mean(self):
        return self.concentration / self.rate

    @property
    def mode(self):
        return ops.clamp((self.concentration - 1) / self.rate, min=0)

    @property
    def variance(self):
        return self.concentration / self.rate ** 2

    def rsample(self, sample_shape=()):
        """Reparameterised in `rate` only (see the module docstring)."""
        _no_gradient_through(self, self.concentration, "concentration")
        draws = standard_gamma(self.concentration, self._extended(sample_shape))
        return ops.clamp(draws / self.rate, min=finfo(draws.dtype).tiny)

    def sample(self, sample_shape=()):
        with no_grad():
            draws = standard_gamma(self.concentration, self._extended(sample_shape))
            return ops.clamp(draws / self.rate.detach(), min=finfo(draws.dtype).tiny)

    def log_prob(self, value):
        self._validate_sample(value)
        a, r = self.concentration, self.rate
        return ops.xlogy(a, r) + ops.xlogy(a - 1, value) - r * value - ops.lgamma(a)

    def entropy(self):
        a = self.concentration
        return a - ops.log(self.rate) + ops.lgamma(a) + (1.0 - a) * ops.digamma(a)


class Chi2(Gamma):
    arg_constraints = {"df": constraints.positive}

    def __init__(self, df, validate_args=None):
        (self.df,) = broadcast_all(df)
        super().__init__(0.5 * self.df, self.df * 0 + 0.5, validate_args=validate_args)


class StudentT(Distribution):
    arg_constraints = {"df": constraints.positive, "loc": constraints.real,
                       "scale": constraints.positive}
    support = constraints.real
    has_rsample = True

    def __init__(self, df, loc=0.0, scale=1.0, validate_args=None):
        self.df, self.loc, self.scale = broadcast_all(df, loc, scale)
        super().__init__(self.df.shape, validate_args=validate_args)

    @property
    def mean(self):
        return ops.where(self.df > 1, self.loc, math.nan)

    @property
    def mode(self):
        return self.loc

    @property
    def variance(self):
        df = self.df
        finite = self.scale ** 2 * df / ops.where(df > 2, df - 2, 1.0)
        return ops.where(df > 2, finite, ops.where(df > 1, math.inf, math.nan))

    def rsample(self, sample_shape=()):
        """Reparameterised in loc and scale, not in df (see the module docstring)."""
        _no_gradient_through(self, self.df, "df")
        shape = self._extended(sample_shape)
        chi2 = 2 * standard_gamma(0.5 * self.df.detach(), shape)
        y = randn(shape, dtype=self.loc.dtype) * ops.rsqrt(chi2 / self.df.detach())
        return self.loc + self.scale * y

    def sample(self, sample_shape=()):
        with no_grad():
            return StudentT(self.df.detach(), self.loc.detach(), self.scale.detach(),
                            validate_args=False).rsample(sample_shape)

    def log_prob(self, value):
        self._validate_sample(value)
        df = self.df
        y = (value - self.loc) / self.scale
        z = (ops.log(self.scale) + 0.5 * ops.log(df) + 0.5 * math.log(math.pi)
             + ops.lgamma(0.5 * df) - ops.lgamma(0.5 * (df + 1)))
        return -0.5 * (df + 1) * ops.log1p(y ** 2 / df) - z

    def entropy(self):
        df = self.df
        lbeta = ops.lgamma(0.5 * df) + math.lgamma(0.5) - ops.lgamma(0.5 * (df + 1))
        return (ops.log(self.scale) + 0.5 * (df + 1) * (ops.digamma(0.5 * (df + 1))
                                                         - ops.digamma(0.5 * df))
                + 0.5 * ops.log(df) + lbeta)


class Beta(ExponentialFamily):
    arg_constraints = {"concentration1": constraints.positive,
                       "concentration0": constraints.positive}
    support = constraints.unit_interval
    has_rsample = True

    @property
    def _natural_params(self):
        return self.concentration1, self.concentration0

    def _log_normalizer(self, x, y):
        return ops.lgamma(x) + ops.lgamma(y) - ops.lgamma(x + y)

    def __init__(self, concentration1, concentration0, validate_args=None):
        self.concentration1, self.concentration0 = broadcast_all(concentration1, concentration0)
        super().__init__(self.concentration1.shape, validate_args=validate_args)

    @property
    def mean(self):
        return self.concentration1 / (self.concentration1 + self.concentration0)

    @property
    def mode(self):
        return (self.concentration1 - 1) / (self.concentration1 + self.concentration0 - 2)

    @property
    def variance(self):
        total = self.concentration1 + self.concentration0
        return self.concentration1 * self.concentration0 / (total ** 2 * (total + 1))

    def rsample(self, sample_shape=()):
        for name in ("concentration1", "concentration0"):
            _no_gradient_through(self, getattr(self, name), name)
        return self.sample(sample_shape)

    def sample(self, sample_shape=()):
        shape = self._extended(sample_shape)
        x = standard_gamma(self.concentration1, shape)
        y = standard_gamma(self.concentration0, shape)
        eps = finfo(x.dtype).eps
        return ops.clamp(x / (x + y), min=eps, max=1 - eps)

    def log_prob(self, value):
        self._validate_sample(value)
        a, b = self.concentration1, self.concentration0
        return (ops.xlogy(a - 1, value) + ops.xlogy(b - 1, 1 - value)
                - (ops.lgamma(a) + ops.lgamma(b) - ops.lgamma(a + b)))

    def entropy(self):
        a, b = self.concentration1, self.concentration0
        total = a + b
        return (ops.lgamma(a) + ops.lgamma(b) - ops.lgamma(total)
                - (a - 1) * ops.digamma(a) - (b - 1) * ops.digamma(b)
                + (total - 2) * ops.digamma(total))
