"""Families on the positive reals (or a half line), as torch.distributions: InverseGamma (a
Gamma draw through x -> 1/x), FisherSnedecor (a ratio of gamma draws) and GeneralizedPareto
(drawn through its icdf, so `rsample` differentiates in every parameter)."""
import math

from .. import ops
from .._core.dtypes import finfo
from .._core.size import Size
from .._core.tensor import Tensor
from ..random import rand
from . import constraints
from .continuous import Gamma
from .distribution import Distribution, broadcast_all
from .transforms import PowerTransform
from .wrappers import TransformedDistribution

__all__ = ["InverseGamma", "FisherSnedecor", "GeneralizedPareto"]


class InverseGamma(TransformedDistribution):
    """1 / x for x ~ Gamma(concentration, rate)."""
    arg_constraints = {"concentration": constraints.positive, "rate": constraints.positive}
    support = constraints.positive
    has_rsample = True

    def __init__(self, concentration, rate, validate_args=None):
        base = Gamma(concentration, rate, validate_args=validate_args)
        super().__init__(base, PowerTransform(-1.0), validate_args=validate_args)

    def expand(self, batch_shape, _instance=None):
        batch_shape = tuple(batch_shape)
        return InverseGamma(self.concentration.expand(*batch_shape),
                            self.rate.expand(*batch_shape), validate_args=False)

    @property
    def concentration(self):
        return self.base_dist.concentration

    @property
    def rate(self):
        return self.base_dist.rate

    @property
    def mean(self):
        return ops.where(self.concentration > 1, self.rate / (self.concentration - 1), math.inf)

    @property
    def mode(self):
        return self.rate / (self.concentration + 1)

    @property
    def variance(self):
        a = self.concentration
        return ops.where(a > 2, self.rate ** 2 / ((a - 1) ** 2 * (a - 2)), math.inf)

    def entropy(self):
        a = self.concentration
        return a + ops.log(self.rate) + ops.lgamma(a) - (1 + a) * ops.digamma(a)


class FisherSnedecor(Distribution):
    """The F distribution: (X1 / df1) / (X2 / df2) for chi-squared X1, X2."""
    arg_constraints = {"df1": constraints.positive, "df2": constraints.positive}
    support = constraints.positive
    has_rsample = True

    def __init__(self, df1, df2, validate_args=None):
        scalar = not isinstance(df1, Tensor) and not isinstance(df2, Tensor)
        self.df1, self.df2 = broadcast_all(df1, df2)
        self._gamma1 = Gamma(self.df1 * 0.5, self.df1)
        self._gamma2 = Gamma(self.df2 * 0.5, self.df2)
        super().__init__(Size() if scalar else self.df1.shape, validate_args=validate_args)

    def expand(self, batch_shape, _instance=None):
        batch_shape = tuple(batch_shape)
        return FisherSnedecor(self.df1.expand(*batch_shape), self.df2.expand(*batch_shape),
                              validate_args=False)

    @property
    def mean(self):
        df2 = ops.where(self.df2 <= 2, math.nan, self.df2)
        return df2 / (df2 - 2)

    @property
    def mode(self):
        mode = (self.df1 - 2) / self.df1 * self.df2 / (self.df2 + 2)
        return ops.where(self.df1 <= 2, math.nan, mode)

    @property
    def variance(self):
        df2 = ops.where(self.df2 <= 4, math.nan, self.df2)
        return 2 * df2 ** 2 * (self.df1 + df2 - 2) / (self.df1 * (df2 - 2) ** 2 * (df2 - 4))

    def rsample(self, sample_shape=()):
        shape = self._extended(sample_shape)
        x1 = self._gamma1.rsample(sample_shape).reshape(shape)
        x2 = self._gamma2.rsample(sample_shape).reshape(shape)
        tiny = finfo(x2.dtype).tiny
        return ops.clamp(x1 / ops.clamp(x2, min=tiny), min=tiny)

    def log_prob(self, value):
        self._validate_sample(value)
        ct1, ct2 = self.df1 * 0.5, self.df2 * 0.5
        ct3 = self.df1 / self.df2
        t1 = ops.lgamma(ct1 + ct2) - ops.lgamma(ct1) - ops.lgamma(ct2)
        t2 = ct1 * ops.log(ct3) + (ct1 - 1) * ops.log(value)
        t3 = (ct1 + ct2) * ops.log1p(ct3 * value)
        return t1 + t2 - t3


class GeneralizedPareto(Distribution):
    """Survival function (1 + concentration z)^(-1/concentration), z = (x - loc) / scale
    (exp(-z) at concentration 0)."""
    arg_constraints = {"loc": constraints.real, "scale": constraints.positive,
                       "concentration": constraints.real}
    has_rsample = True

    def __init__(self, loc, scale, concentration, validate_args=None):
        scalar = not any(isinstance(v, Tensor) for v in (loc, scale, concentration))
        self.loc, self.scale, self.concentration = broadcast_all(loc, scale, concentration)
        super().__init__(Size() if scalar else self.loc.shape, validate_args=validate_args)

    def expand(self, batch_shape, _instance=None):
        batch_shape = tuple(batch_shape)
        return GeneralizedPareto(self.loc.expand(*batch_shape), self.scale.expand(*batch_shape),
                                 self.concentration.expand(*batch_shape), validate_args=False)

    @property
    def support(self):
        lower = self.loc
        upper = ops.where(self.concentration < 0, lower - self.scale / self.concentration,
                          math.inf)
        return constraints.interval(lower, upper)

    def _safe_concentration(self):
        """(whether concentration is 0, concentration with 1 where it is 0)."""
        zero = ops.isclose(self.concentration, 0.0 * self.concentration)
        return zero, ops.where(zero, 1.0, self.concentration)

    def rsample(self, sample_shape=()):
        return self.icdf(rand(self._extended(sample_shape), dtype=self.loc.dtype))

    def log_prob(self, value):
        self._validate_sample(value)
        z = (value - self.loc) / self.scale
        zero, c = self._safe_concentration()
        y = 1 / c + 1
        nonzero = ops.where(y == 0, y, y * ops.log1p(c * z))
        return -ops.log(self.scale) - ops.where(zero, z, nonzero)

    def log_survival_function(self, value):
        self._validate_sample(value)
        z = (value - self.loc) / self.scale
        zero, c = self._safe_concentration()
        return ops.where(zero, -z, -ops.log1p(c * z) / c)

    def log_cdf(self, value):
        return ops.log1p(-ops.exp(self.log_survival_function(value)))

    def cdf(self, value):
        return ops.exp(self.log_cdf(value))

    def icdf(self, value):
        zero, c = self._safe_concentration()
        log_u = ops.log1p(-value)
        return ops.where(zero, self.loc - self.scale * log_u,
                         self.loc + self.scale / c * ops.expm1(-c * log_u))

    @property
    def mean(self):
        valid = self.concentration < 1
        c = ops.where(valid, self.concentration, 0.5)
        return ops.where(valid, self.loc + self.scale / (1 - c), math.nan)

    @property
    def variance(self):
        valid = self.concentration < 0.5
        c = ops.where(valid, self.concentration, 0.25)
        return ops.where(valid, self.scale ** 2 / ((1 - c) ** 2 * (1 - 2 * c)), math.nan)

    @property
    def mode(self):
        return self.loc

    def entropy(self):
        return (ops.log(self.scale) + self.concentration + 1).expand(*tuple(self.batch_shape))
