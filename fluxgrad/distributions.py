"""`fluxgrad.distributions`: Normal, Uniform, Bernoulli and Categorical, as in PyTorch.

`log_prob`, `entropy`, `mean`, `variance` and `rsample` (the reparameterised draw
of the continuous ones) are written in fluxgrad ops, so they differentiate with
respect to the parameters in every mode; `sample` draws without a graph. Draws
come from fluxgrad's default generator (`fluxgrad.manual_seed`).
"""
import math

from . import ops
from ._core.dtypes import finfo
from ._core.grad_mode import no_grad
from ._core.size import Size
from ._core.tensor import Tensor
from .creation import full_like, tensor
from .nn import functional as F
from .random import bernoulli, multinomial, rand, randn

__all__ = ["Distribution", "Normal", "Uniform", "Bernoulli", "Categorical", "kl_divergence"]


def _as_float(value):
    return value if isinstance(value, Tensor) else tensor(float(value))


def _broadcast(*values):
    return ops.broadcast_tensors(*(_as_float(v) for v in values))


class Distribution:
    """Base class: a batch of independent distributions of shape `batch_shape`."""
    has_rsample = False

    def __init__(self, batch_shape=(), event_shape=()):
        self.batch_shape, self.event_shape = Size(batch_shape), Size(event_shape)

    def _extended(self, sample_shape):
        return tuple(Size(sample_shape)) + tuple(self.batch_shape) + tuple(self.event_shape)

    def sample(self, sample_shape=()):
        """A draw of shape sample_shape + batch_shape + event_shape, outside the graph."""
        with no_grad():
            return self.rsample(sample_shape)

    def rsample(self, sample_shape=()):
        raise NotImplementedError(f"{type(self).__name__} has no reparameterised sample "
                                  "(rsample); use sample(), which gives no gradient")

    @property
    def stddev(self):
        return ops.sqrt(self.variance)

    def __repr__(self):
        return f"{type(self).__name__}(batch_shape={list(self.batch_shape)})"


class Normal(Distribution):
    has_rsample = True

    def __init__(self, loc, scale, validate_args=None):
        self.loc, self.scale = _broadcast(loc, scale)
        if (self.scale.detach().numpy() <= 0).any():
            raise ValueError("Normal: scale must be positive")
        super().__init__(self.loc.shape)

    @property
    def mean(self):
        return self.loc

    @property
    def variance(self):
        return self.scale ** 2

    def rsample(self, sample_shape=()):
        eps = randn(self._extended(sample_shape), dtype=self.loc.dtype)
        return self.loc + eps * self.scale

    def log_prob(self, value):
        return (-((value - self.loc) ** 2) / (2 * self.variance) - ops.log(self.scale)
                - math.log(math.sqrt(2 * math.pi)))

    def entropy(self):
        return 0.5 + 0.5 * math.log(2 * math.pi) + ops.log(self.scale)

    def cdf(self, value):
        return 0.5 * (1 + ops.erf((value - self.loc) / (self.scale * math.sqrt(2))))


class Uniform(Distribution):
    has_rsample = True

    def __init__(self, low, high, validate_args=None):
        self.low, self.high = _broadcast(low, high)
        if (self.low.detach().numpy() >= self.high.detach().numpy()).any():
            raise ValueError("Uniform: low must be less than high")
        super().__init__(self.low.shape)

    @property
    def mean(self):
        return (self.low + self.high) / 2

    @property
    def variance(self):
        return (self.high - self.low) ** 2 / 12

    def rsample(self, sample_shape=()):
        u = rand(self._extended(sample_shape), dtype=self.low.dtype)
        return self.low + u * (self.high - self.low)

    def log_prob(self, value):
        inside = (value >= self.low) & (value < self.high)
        return ops.where(inside, -ops.log(self.high - self.low), -math.inf)

    def entropy(self):
        return ops.log(self.high - self.low)


class Bernoulli(Distribution):
    """1 with probability `probs` (or sigmoid(`logits`)), else 0."""

    def __init__(self, probs=None, logits=None, validate_args=None):
        if (probs is None) == (logits is None):
            raise ValueError("Bernoulli: give exactly one of probs and logits")
        if probs is not None:
            self.probs = _as_float(probs)
            eps = finfo(self.probs.dtype).eps
            p = ops.clamp(self.probs, eps, 1 - eps)
            self.logits = ops.log(p) - ops.log1p(-p)
        else:
            self.logits = _as_float(logits)
            self.probs = ops.sigmoid(self.logits)
        super().__init__(self.probs.shape)

    @property
    def mean(self):
        return self.probs

    @property
    def variance(self):
        return self.probs * (1 - self.probs)

    def sample(self, sample_shape=()):
        with no_grad():
            return bernoulli(self.probs.detach().expand(*self._extended(sample_shape)))

    def log_prob(self, value):
        logits, value = ops.broadcast_tensors(self.logits, _as_float(value))
        return -F.binary_cross_entropy_with_logits(logits, value, reduction="none")

    def entropy(self):
        return F.binary_cross_entropy_with_logits(self.logits, self.probs, reduction="none")


class Categorical(Distribution):
    """Category indices drawn with weights `probs` (normalised) or `logits` on the last axis."""

    def __init__(self, probs=None, logits=None, validate_args=None):
        if (probs is None) == (logits is None):
            raise ValueError("Categorical: give exactly one of probs and logits")
        if probs is not None:
            probs = _as_float(probs)
            self.probs = probs / ops.sum(probs, -1, keepdim=True)
            self.logits = ops.log(self.probs)
        else:
            logits = _as_float(logits)
            self.logits = logits - ops.logsumexp(logits, -1, keepdim=True)
            self.probs = ops.exp(self.logits)
        if self.probs.ndim < 1:
            raise ValueError("Categorical: probs/logits need at least one dimension (the "
                             "categories)")
        self.num_categories = self.probs.shape[-1]
        super().__init__(self.probs.shape[:-1])

    @property
    def mean(self):
        return full_like(self.probs[..., 0], math.nan)

    @property
    def variance(self):
        return full_like(self.probs[..., 0], math.nan)

    def sample(self, sample_shape=()):
        n = Size(sample_shape).numel()
        rows = self.probs.detach().reshape(-1, self.num_categories)
        draws = multinomial(rows, n, replacement=True)  # [batch, n]
        return draws.t().reshape(tuple(Size(sample_shape)) + tuple(self.batch_shape))

    def log_prob(self, value):
        value = value if isinstance(value, Tensor) else tensor(value)
        value, logits = ops.broadcast_tensors(ops.unsqueeze(value.long(), -1), self.logits)
        return ops.gather(logits, -1, value[..., :1]).squeeze(-1)

    def entropy(self):
        smallest = finfo(self.logits.dtype).min
        return -ops.sum(ops.clamp(self.logits, min=smallest) * self.probs, -1)


def kl_divergence(p, q):
    """KL(p || q) for two distributions of the same family (Normal, Bernoulli, Categorical,
    Uniform)."""
    if type(p) is not type(q):
        raise NotImplementedError(f"kl_divergence: no formula for {type(p).__name__} and "
                                  f"{type(q).__name__}")
    if isinstance(p, Normal):
        ratio = (p.scale / q.scale) ** 2
        return 0.5 * (ratio + ((p.loc - q.loc) / q.scale) ** 2 - 1 - ops.log(ratio))
    if isinstance(p, Bernoulli):
        return (p.probs * (F.softplus(-q.logits) - F.softplus(-p.logits))
                + (1 - p.probs) * (F.softplus(q.logits) - F.softplus(p.logits)))
    if isinstance(p, Categorical):
        return ops.sum(p.probs * (p.logits - q.logits), -1)
    if isinstance(p, Uniform):
        inside = (q.low <= p.low) & (p.high <= q.high)
        return ops.where(inside, ops.log((q.high - q.low) / (p.high - p.low)), math.inf)
    raise NotImplementedError(f"kl_divergence: no formula for {type(p).__name__}")
