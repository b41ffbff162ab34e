"""Relaxed (Concrete / Gumbel-softmax) distributions, as torch.distributions: continuous stand-ins
for Bernoulli and one-hot Categorical draws whose `rsample` differentiates with respect to the
probabilities, sharper as `temperature` goes to 0.

LogitRelaxedBernoulli and ExpRelaxedCategorical live in logit / log space; RelaxedBernoulli
(through SigmoidTransform) and RelaxedOneHotCategorical (through ExpTransform) are their images
in [0, 1] and on the simplex. Formulas are torch's.
"""
from .. import ops
from .._core.dtypes import finfo
from ..creation import full_like
from ..random import rand
from . import constraints
from .basic import Categorical
from .distribution import Distribution, as_float, broadcast_all
from .transforms import ExpTransform, SigmoidTransform
from .wrappers import TransformedDistribution

__all__ = ["LogitRelaxedBernoulli", "RelaxedBernoulli", "ExpRelaxedCategorical",
           "RelaxedOneHotCategorical"]


def _clamp_probs(probs):
    eps = finfo(probs.dtype).eps
    return ops.clamp(probs, min=eps, max=1 - eps)


class LogitRelaxedBernoulli(Distribution):
    """The logit of a RelaxedBernoulli draw."""
    arg_constraints = {"probs": constraints.unit_interval, "logits": constraints.real}
    support = constraints.real
    has_rsample = True

    def __init__(self, temperature, probs=None, logits=None, validate_args=None):
        if (probs is None) == (logits is None):
            raise ValueError("Either `probs` or `logits` must be specified, but not both.")
        self.temperature = as_float(temperature)
        if probs is not None:
            (self.probs,) = broadcast_all(probs)
            clamped = _clamp_probs(self.probs)
            self.logits = ops.log(clamped) - ops.log1p(-clamped)
        else:
            (self.logits,) = broadcast_all(logits)
            self.probs = ops.sigmoid(self.logits)
        super().__init__(self.probs.shape, validate_args=validate_args)

    def rsample(self, sample_shape=()):
        shape = self._extended(sample_shape)
        probs = _clamp_probs(self.probs.expand(*shape))
        u = _clamp_probs(rand(shape, dtype=probs.dtype))
        return (ops.log(u) - ops.log1p(-u) + ops.log(probs) - ops.log1p(-probs)) / self.temperature

    def log_prob(self, value):
        self._validate_sample(value)
        logits, value = broadcast_all(self.logits, value)
        diff = logits - value * self.temperature
        return ops.log(self.temperature) + diff - 2 * ops.log1p(ops.exp(diff))


class _Relaxed(TransformedDistribution):
    """A relaxed distribution: a transform of its logit-space base, whose parameters it shows."""

    @property
    def temperature(self):
        return self.base_dist.temperature

    @property
    def logits(self):
        return self.base_dist.logits

    @property
    def probs(self):
        return self.base_dist.probs


class RelaxedBernoulli(_Relaxed):
    """A draw in (0, 1) that tends to a Bernoulli(probs) draw as temperature goes to 0."""
    arg_constraints = {"probs": constraints.unit_interval, "logits": constraints.real}
    support = constraints.unit_interval
    has_rsample = True

    def __init__(self, temperature, probs=None, logits=None, validate_args=None):
        base = LogitRelaxedBernoulli(temperature, probs, logits, validate_args=validate_args)
        super().__init__(base, SigmoidTransform(), validate_args=validate_args)


class ExpRelaxedCategorical(Distribution):
    """The log of a RelaxedOneHotCategorical draw (scores minus their logsumexp)."""
    arg_constraints = {"probs": constraints.simplex,
                       "logits": constraints.independent(constraints.real, 1)}
    support = constraints.independent(constraints.real, 1)
    has_rsample = True

    def __init__(self, temperature, probs=None, logits=None, validate_args=None):
        self._categorical = Categorical(probs, logits)
        self.temperature = as_float(temperature)
        super().__init__(self._categorical.batch_shape, self._categorical.param_shape[-1:],
                         validate_args=validate_args)

    @property
    def param_shape(self):
        return self._categorical.param_shape

    @property
    def logits(self):
        return self._categorical.logits

    @property
    def probs(self):
        return self._categorical.probs

    def rsample(self, sample_shape=()):
        u = _clamp_probs(rand(self._extended(sample_shape), dtype=self.logits.dtype))
        gumbels = -ops.log(-ops.log(u))
        scores = (self.logits + gumbels) / self.temperature
        return scores - ops.logsumexp(scores, -1, keepdim=True)

    def log_prob(self, value):
        self._validate_sample(value)
        k = self._categorical.num_categories
        logits, value = broadcast_all(self.logits, value)
        log_scale = (ops.lgamma(full_like(self.temperature, float(k)))
                     + (k - 1) * ops.log(self.temperature))
        score = logits - value * self.temperature
        score = ops.sum(score - ops.logsumexp(score, -1, keepdim=True), -1)
        return score + log_scale


class RelaxedOneHotCategorical(_Relaxed):
    """A point of the simplex that tends to a one-hot Categorical draw as temperature goes to
    0 (the Gumbel-softmax)."""
    arg_constraints = {"probs": constraints.simplex,
                       "logits": constraints.independent(constraints.real, 1)}
    support = constraints.simplex
    has_rsample = True

    def __init__(self, temperature, probs=None, logits=None, validate_args=None):
        base = ExpRelaxedCategorical(temperature, probs, logits, validate_args=validate_args)
        super().__init__(base, ExpTransform(), validate_args=validate_args)

