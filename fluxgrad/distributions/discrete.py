"""Discrete families, as torch.distributions: Poisson, Binomial, NegativeBinomial, Geometric,
OneHotCategorical and Multinomial (log_prob, entropy and moments in fluxgrad ops; samples from
fluxgrad's random ops, outside the graph)."""
import math

from .. import ops
from .._core.dtypes import finfo
from .._core.grad_mode import no_grad
from ..creation import arange, eye
from ..nn import functional as F
from ..random import bernoulli, poisson, rand
from . import constraints
from .basic import Categorical, _enumerated
from .distribution import Distribution, _staged, as_float, broadcast_all
from .exp_family import ExponentialFamily

__all__ = ["Poisson", "Binomial", "NegativeBinomial", "Geometric", "OneHotCategorical",
           "OneHotCategoricalStraightThrough", "Multinomial"]


def _probs_and_logits(probs, logits, name, *others):
    """(probs, logits, others...) broadcast, from exactly one of probs and logits (binary)."""
    if (probs is None) == (logits is None):
        raise ValueError(f"{name}: give exactly one of probs and logits")
    given = broadcast_all(probs if probs is not None else logits, *others)
    if probs is not None:
        p = given[0]
        eps = finfo(p.dtype).eps
        clamped = ops.clamp(p, eps, 1 - eps)
        return (p, ops.log(clamped) - ops.log1p(-clamped)) + tuple(given[1:])
    return (ops.sigmoid(given[0]), given[0]) + tuple(given[1:])


class Poisson(ExponentialFamily):
    arg_constraints = {"rate": constraints.nonnegative}
    support = constraints.nonnegative_integer

    @property
    def _natural_params(self):
        return (ops.log(self.rate),)

    def _log_normalizer(self, x):
        return ops.exp(x)

    def __init__(self, rate, validate_args=None):
        (self.rate,) = broadcast_all(rate)
        super().__init__(self.rate.shape, validate_args=validate_args)

    @property
    def mean(self):
        return self.rate

    @property
    def mode(self):
        return ops.floor(self.rate)

    @property
    def variance(self):
        return self.rate

    def sample(self, sample_shape=()):
        with no_grad():
            return poisson(self.rate.detach().expand(*self._extended(sample_shape)).contiguous())

    def log_prob(self, value):
        self._validate_sample(value)
        value = as_float(value)
        return ops.xlogy(value, self.rate) - self.rate - ops.lgamma(value + 1)


class Binomial(Distribution):
    """Successes in `total_count` trials of probability `probs` (or sigmoid(`logits`))."""
    arg_constraints = {"total_count": constraints.nonnegative_integer,
                       "probs": constraints.unit_interval, "logits": constraints.real}
    has_enumerate_support = True

    def __init__(self, total_count=1, probs=None, logits=None, validate_args=None):
        self.probs, self.logits, self.total_count = _probs_and_logits(
            probs, logits, "Binomial", total_count)
        self.total_count = self.total_count.to(self.probs.dtype)
        super().__init__(self.probs.shape, validate_args=validate_args)

    @property
    def support(self):
        return constraints.integer_interval(0, self.total_count)

    @property
    def mean(self):
        return self.total_count * self.probs

    @property
    def mode(self):
        return ops.clamp(ops.floor((self.total_count + 1) * self.probs), max=self.total_count)

    @property
    def variance(self):
        return self.total_count * self.probs * (1 - self.probs)

    def sample(self, sample_shape=()):
        """The sum of total_count Bernoulli draws (trials past an element's count masked)."""
        with no_grad():
            n = int(self.total_count.max().item()) if self.total_count.numel() else 0
            shape = self._extended(sample_shape)
            probs = ops.unsqueeze(self.probs.detach(), -1).expand(*shape, max(n, 1))
            trials = bernoulli(probs.contiguous())
            live = arange(max(n, 1), dtype=self.probs.dtype) < ops.unsqueeze(
                self.total_count, -1)
            return ops.sum(trials * live, -1)

    def log_prob(self, value):
        self._validate_sample(value)
        n, logits = self.total_count, self.logits
        log_factorial_n = ops.lgamma(n + 1)
        log_factorial_k = ops.lgamma(value + 1)
        log_factorial_nmk = ops.lgamma(n - value + 1)
        # n * log(1 + e^logits), written stably as n * (max(logits, 0) + log1p(e^-|logits|))
        normalize = (n * ops.clamp(logits, min=0) + n * ops.log1p(ops.exp(-ops.abs(logits)))
                     - log_factorial_n)
        return value * logits - normalize - log_factorial_k - log_factorial_nmk

    def enumerate_support(self, expand=True):
        counts = self.total_count.detach().numpy()
        if (counts != counts.flat[0]).any():
            raise NotImplementedError("Binomial.enumerate_support: inhomogeneous total_count "
                                      "is not supported")
        n = int(counts.flat[0]) if counts.size else 0
        values = arange(n + 1, dtype=self.probs.dtype).reshape((-1,) + (1,) * len(
            self.batch_shape))
        return values.expand(n + 1, *self.batch_shape) if expand else values

    def entropy(self):
        values = self.enumerate_support(expand=False)
        log_prob = self.log_prob(values)
        return -ops.sum(ops.exp(log_prob) * log_prob, 0)


class NegativeBinomial(Distribution):
    """Successes before `total_count` failures, each trial succeeding with `probs` (or
    sigmoid(`logits`))."""
    arg_constraints = {"total_count": constraints.nonnegative,
                       "probs": constraints.half_open_interval(0.0, 1.0),
                       "logits": constraints.real}
    support = constraints.nonnegative_integer

    def __init__(self, total_count, probs=None, logits=None, validate_args=None):
        self.probs, self.logits, self.total_count = _probs_and_logits(
            probs, logits, "NegativeBinomial", total_count)
        self.total_count = self.total_count.to(self.probs.dtype)
        super().__init__(self.probs.shape, validate_args=validate_args)

    @property
    def mean(self):
        return self.total_count * ops.exp(self.logits)

    @property
    def mode(self):
        return ops.clamp(ops.floor((self.total_count - 1) * ops.exp(self.logits)), min=0.0)

    @property
    def variance(self):
        return self.mean / ops.sigmoid(-self.logits)

    def sample(self, sample_shape=()):
        """A Poisson draw whose rate is a Gamma(total_count, exp(-logits)) draw."""
        from .continuous import Gamma
        with no_grad():
            count = self.total_count.detach()
            # a count of 0 draws 0 (NumPy's gamma refuses a zero concentration)
            rate = Gamma(ops.clamp(count, min=finfo(count.dtype).tiny),
                         ops.exp(-self.logits.detach()), validate_args=False).sample(sample_shape)
            return poisson(ops.where(count == 0, 0.0, rate))

    def log_prob(self, value):
        self._validate_sample(value)
        value = as_float(value)
        unnormalized = (self.total_count * F.logsigmoid(-self.logits)
                        + value * F.logsigmoid(self.logits))
        normalization = (-ops.lgamma(self.total_count + value) + ops.lgamma(1.0 + value)
                         + ops.lgamma(self.total_count))
        # no trials and no successes: probability 1
        normalization = ops.where(self.total_count + value == 0, 0.0, normalization)
        return unnormalized - normalization


class Geometric(Distribution):
    """Failures before the first success, each trial succeeding with `probs`."""
    arg_constraints = {"probs": constraints.unit_interval, "logits": constraints.real}
    support = constraints.nonnegative_integer

    def __init__(self, probs=None, logits=None, validate_args=None):
        self.probs, self.logits = _probs_and_logits(probs, logits, "Geometric")
        if (validate_args is not False and probs is not None and not _staged(self.probs)
                and (self.probs.detach().numpy() <= 0).any()):
            raise ValueError(f"Expected parameter probs of distribution Geometric to satisfy "
                             f"0 < probs <= 1, but found invalid values:\n{self.probs}")
        super().__init__(self.probs.shape, validate_args=validate_args)

    @property
    def mean(self):
        return 1.0 / self.probs - 1.0

    @property
    def mode(self):
        return self.probs * 0

    @property
    def variance(self):
        return (1.0 / self.probs - 1.0) / self.probs

    def sample(self, sample_shape=()):
        with no_grad():
            tiny = finfo(self.probs.dtype).tiny
            u = ops.clamp(rand(self._extended(sample_shape), dtype=self.probs.dtype), min=tiny)
            return ops.floor(ops.log(u) / ops.log1p(-self.probs.detach()))

    def log_prob(self, value):
        self._validate_sample(value)
        value, probs = ops.broadcast_tensors(as_float(value), self.probs)
        # probs == 1 scores 0 failures as log 1 (0 * log 0 would be nan)
        safe = ops.where((probs == 1) & (value == 0), 0.0, probs)
        return value * ops.log1p(-safe) + ops.log(probs)

    def entropy(self):
        return F.binary_cross_entropy_with_logits(self.logits, self.probs,
                                                  reduction="none") / self.probs


class OneHotCategorical(Distribution):
    """A Categorical whose draws are one-hot vectors (event_shape: the categories)."""
    arg_constraints = {"probs": constraints.simplex,
                       "logits": constraints.independent(constraints.real, 1)}
    support = constraints.Constraint(
        lambda v: ((v == 0) | (v == 1)).all(-1) & (v.sum(-1) == 1), "OneHot()", event_dim=1,
        is_discrete=True)
    has_enumerate_support = True

    def __init__(self, probs=None, logits=None, validate_args=None):
        self._categorical = Categorical(probs, logits, validate_args=validate_args)
        self.probs, self.logits = self._categorical.probs, self._categorical.logits
        super().__init__(self._categorical.batch_shape, self.probs.shape[-1:],
                         validate_args=validate_args)

    @property
    def mean(self):
        return self.probs

    @property
    def mode(self):
        return F.one_hot(self._categorical.mode, self.probs.shape[-1]).to(self.probs.dtype)

    @property
    def variance(self):
        return self.probs * (1 - self.probs)

    def enumerate_support(self, expand=True):
        k = self.probs.shape[-1]
        return _enumerated(eye(k, dtype=self.probs.dtype), self.batch_shape, expand)

    def sample(self, sample_shape=()):
        indices = self._categorical.sample(sample_shape)
        return F.one_hot(indices, self.probs.shape[-1]).to(self.probs.dtype)

    def log_prob(self, value):
        self._validate_sample(value)
        return self._categorical.log_prob(ops.argmax(value, -1))

    def entropy(self):
        return self._categorical.entropy()


class OneHotCategoricalStraightThrough(OneHotCategorical):
    """OneHotCategorical whose `rsample` passes gradients straight through: the one-hot draw
    in value, the gradient of `probs` (Bengio et al., 2013)."""
    has_rsample = True

    def rsample(self, sample_shape=()):
        samples = self.sample(sample_shape)
        return samples + (self.probs - self.probs.detach())


class Multinomial(Distribution):
    """Counts of `total_count` categorical draws (event_shape: the categories)."""
    arg_constraints = {"probs": constraints.simplex,
                       "logits": constraints.independent(constraints.real, 1)}

    def __init__(self, total_count=1, probs=None, logits=None, validate_args=None):
        if isinstance(total_count, bool) or not isinstance(total_count, int):
            raise NotImplementedError("Multinomial: total_count must be an int (inhomogeneous "
                                      f"counts are not supported), got {total_count!r}")
        self.total_count = total_count
        self._categorical = Categorical(probs, logits, validate_args=validate_args)
        self.probs, self.logits = self._categorical.probs, self._categorical.logits
        super().__init__(self._categorical.batch_shape, self.probs.shape[-1:],
                         validate_args=validate_args)

    @property
    def support(self):
        return constraints.Constraint(
            lambda v: ((v >= 0) & (v == v.round())).all(-1) & (v.sum(-1) <= self.total_count),
            f"IntegerInterval(lower_bound=0, upper_bound={self.total_count})", event_dim=1,
            is_discrete=True)

    @property
    def mean(self):
        return self.probs * self.total_count

    @property
    def variance(self):
        return self.total_count * self.probs * (1 - self.probs)

    def sample(self, sample_shape=()):
        with no_grad():
            k = self.probs.shape[-1]
            draws = self._categorical.sample((self.total_count,) + tuple(sample_shape))
            return ops.sum(F.one_hot(draws, k).to(self.probs.dtype), 0)

    def log_prob(self, value):
        self._validate_sample(value)
        logits, value = ops.broadcast_tensors(self.logits, as_float(value))
        log_factorial_n = ops.lgamma(ops.sum(value, -1) + 1)
        log_factorial_xs = ops.sum(ops.lgamma(value + 1), -1)
        logits = ops.where((value == 0) & (logits == -math.inf), 0.0, logits)
        return log_factorial_n - log_factorial_xs + ops.sum(logits * value, -1)

    def entropy(self):
        n = self.total_count
        counts = arange(n + 1, dtype=self.probs.dtype).reshape(
            (-1,) + (1,) * (len(self.batch_shape) + 1))
        binomial = Binomial(n, self.probs, validate_args=False)
        binomial_probs = ops.exp(binomial.log_prob(counts))
        weights = ops.lgamma(counts + 1)
        return (n * self._categorical.entropy() - math.lgamma(n + 1)
                + ops.sum(ops.sum(weights * binomial_probs, 0), -1))
