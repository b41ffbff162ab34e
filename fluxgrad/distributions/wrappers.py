"""Distributions built from others, as torch.distributions: Independent (batch dims read as
event dims), MixtureSameFamily (a Categorical mixture of one batched family) and
TransformedDistribution (a base pushed through transforms), with LogNormal as
Normal through ExpTransform, Pareto as Exponential through exp and a scale, and
LogisticNormal as Normal through StickBreakingTransform."""
from .. import ops
from .._core.grad_mode import no_grad
from ..nn import functional as F
from . import constraints
from .basic import Categorical, Normal
from .continuous import Exponential
from .distribution import Distribution, broadcast_all
from .transforms import (AffineTransform, ComposeTransform, ExpTransform,
                         StickBreakingTransform, Transform, _sum_rightmost)

__all__ = ["Independent", "MixtureSameFamily", "TransformedDistribution", "LogNormal", "Pareto",
           "LogisticNormal"]


class Independent(Distribution):
    arg_constraints = {}

    def __init__(self, base_distribution, reinterpreted_batch_ndims, validate_args=None):
        n = int(reinterpreted_batch_ndims)
        batch = tuple(base_distribution.batch_shape)
        if n > len(batch):
            raise ValueError("Expected reinterpreted_batch_ndims <= len(base_distribution."
                             f"batch_shape), actual {n} vs {len(batch)}")
        self.base_dist, self.reinterpreted_batch_ndims = base_distribution, n
        self.has_rsample = base_distribution.has_rsample
        split = len(batch) - n
        super().__init__(batch[:split], batch[split:] + tuple(base_distribution.event_shape),
                         validate_args=validate_args)

    def expand(self, batch_shape, _instance=None):
        inner = tuple(self.base_dist.batch_shape)[len(self.batch_shape):]
        return Independent(self.base_dist.expand(tuple(batch_shape) + inner),
                           self.reinterpreted_batch_ndims, validate_args=False)

    @property
    def support(self):
        return constraints.independent(self.base_dist.support, self.reinterpreted_batch_ndims)

    @property
    def mean(self):
        return self.base_dist.mean

    @property
    def mode(self):
        return self.base_dist.mode

    @property
    def variance(self):
        return self.base_dist.variance

    def sample(self, sample_shape=()):
        return self.base_dist.sample(sample_shape)

    def rsample(self, sample_shape=()):
        return self.base_dist.rsample(sample_shape)

    def log_prob(self, value):
        return _sum_rightmost(self.base_dist.log_prob(value), self.reinterpreted_batch_ndims)

    def entropy(self):
        return _sum_rightmost(self.base_dist.entropy(), self.reinterpreted_batch_ndims)

    def __repr__(self):
        return f"Independent({self.base_dist!r}, {self.reinterpreted_batch_ndims})"


class MixtureSameFamily(Distribution):
    """A mixture whose weights are a Categorical over the last batch dim of the components."""
    arg_constraints = {}

    def __init__(self, mixture_distribution, component_distribution, validate_args=None):
        if not isinstance(mixture_distribution, Categorical):
            raise ValueError("The Mixture distribution needs to be an instance of "
                             "torch.distributions.Categorical")
        if not isinstance(component_distribution, Distribution):
            raise ValueError("The Component distribution need to be an instance of "
                             "torch.distributions.Distribution")
        mix_batch = tuple(mixture_distribution.batch_shape)
        comp_batch = tuple(component_distribution.batch_shape)
        if not comp_batch or comp_batch[-1] != mixture_distribution.num_categories:
            raise ValueError("`mixture_distribution component` "
                             f"({mixture_distribution.num_categories}) does not equal "
                             f"`component_distribution.batch_shape[-1]` ({comp_batch[-1:]})")
        for a, b in zip(reversed(mix_batch), reversed(comp_batch[:-1])):
            if a != 1 and b != 1 and a != b:
                raise ValueError(f"`mixture_distribution.batch_shape` ({mix_batch}) is not "
                                 "compatible with `component_distribution.batch_shape`"
                                 f"({comp_batch})")
        self._mixture_distribution = mixture_distribution
        self._component_distribution = component_distribution
        self._event_ndims = len(component_distribution.event_shape)
        super().__init__(comp_batch[:-1], component_distribution.event_shape,
                         validate_args=validate_args)

    def expand(self, batch_shape, _instance=None):
        batch_shape = tuple(batch_shape)
        components = self._component_distribution.batch_shape[-1]
        return MixtureSameFamily(self._mixture_distribution.expand(batch_shape),
                                 self._component_distribution.expand(batch_shape + (components,)),
                                 validate_args=False)

    @property
    def mixture_distribution(self):
        return self._mixture_distribution

    @property
    def component_distribution(self):
        return self._component_distribution

    @property
    def support(self):
        return self._component_distribution.support

    def _weights(self):
        """The mixture probabilities with the event dims appended (to meet component stats)."""
        probs = self._mixture_distribution.probs
        return probs.reshape(tuple(probs.shape) + (1,) * self._event_ndims)

    @property
    def mean(self):
        return ops.sum(self._weights() * self._component_distribution.mean,
                       -1 - self._event_ndims)

    @property
    def variance(self):
        axis = -1 - self._event_ndims
        weights, comp = self._weights(), self._component_distribution
        mean = ops.unsqueeze(self.mean, axis)
        return (ops.sum(weights * comp.variance, axis)
                + ops.sum(weights * (comp.mean - mean) ** 2, axis))

    def _pad(self, x):
        return ops.unsqueeze(x, -1 - self._event_ndims)

    def log_prob(self, value):
        log_prob_x = self._component_distribution.log_prob(self._pad(value))
        log_mix = F.log_softmax(self._mixture_distribution.logits, -1)
        return ops.logsumexp(log_prob_x + log_mix, -1)

    def cdf(self, value):
        cdf_x = self._component_distribution.cdf(self._pad(value))
        return ops.sum(cdf_x * self._mixture_distribution.probs, -1)

    def sample(self, sample_shape=()):
        with no_grad():
            sample_len = len(tuple(sample_shape))
            batch_len = len(self.batch_shape)
            indices = self._mixture_distribution.sample(sample_shape)  # S + B
            comp = self._component_distribution.sample(sample_shape)  # S + B + [K] + E
            event = tuple(self.event_shape)
            index = indices.reshape(tuple(indices.shape) + (1,) * (1 + len(event)))
            target = tuple(comp.shape[:sample_len + batch_len]) + (1,) + event
            index = index.expand(*target)
            return ops.gather(comp, sample_len + batch_len, index).squeeze(
                sample_len + batch_len)

    def __repr__(self):
        return (f"MixtureSameFamily(\n  {self._mixture_distribution!r},\n  "
                f"{self._component_distribution!r})")


class TransformedDistribution(Distribution):
    """The law of t_n(...t_1(x)) for x drawn from `base_distribution`."""
    arg_constraints = {}

    def __init__(self, base_distribution, transforms, validate_args=None):
        if isinstance(transforms, Transform):
            transforms = [transforms]
        elif not (isinstance(transforms, (list, tuple))
                  and all(isinstance(t, Transform) for t in transforms)):
            raise ValueError("transforms must be a Transform or a list of Transforms, got "
                             f"{transforms!r}")
        self.base_dist, self.transforms = base_distribution, list(transforms)
        self.has_rsample = base_distribution.has_rsample
        shape = tuple(base_distribution.batch_shape) + tuple(base_distribution.event_shape)
        chain = ComposeTransform(self.transforms)
        if chain.event_dim > len(shape):
            raise ValueError(f"TransformedDistribution: the transforms need {chain.event_dim} "
                             f"event dims but the base distribution has shape {shape}")
        # the base's extra batch dims that the transforms read as event dims, carried through
        event_dim = chain.codomain_event_dim + max(
            len(base_distribution.event_shape) - chain.event_dim, 0)
        shape = chain.forward_shape(shape)
        split = len(shape) - event_dim
        super().__init__(shape[:split], shape[split:], validate_args=validate_args)

    def expand(self, batch_shape, _instance=None):
        inner = tuple(self.base_dist.batch_shape)[len(self.batch_shape):]
        return TransformedDistribution(self.base_dist.expand(tuple(batch_shape) + inner),
                                       self.transforms, validate_args=False)

    @property
    def support(self):
        return self.transforms[-1].codomain if self.transforms else self.base_dist.support

    def _forward(self, x):
        for t in self.transforms:
            x = t(x)
        return x

    def sample(self, sample_shape=()):
        with no_grad():
            return self._forward(self.base_dist.sample(sample_shape))

    def rsample(self, sample_shape=()):
        return self._forward(self.base_dist.rsample(sample_shape))

    def log_prob(self, value):
        self._validate_sample(value)
        event_dim = len(self.event_shape)
        log_prob, y = 0.0, value
        for t in reversed(self.transforms):
            x = t.inv(y)
            event_dim += t.event_dim - t.codomain_event_dim
            log_prob = log_prob - _sum_rightmost(t.log_abs_det_jacobian(x, y),
                                                 event_dim - t.event_dim)
            y = x
        return log_prob + _sum_rightmost(self.base_dist.log_prob(y),
                                         event_dim - len(self.base_dist.event_shape))

    def _sign(self):
        sign = 1
        for t in self.transforms:
            sign = sign * t.sign
        return sign

    def cdf(self, value):
        for t in reversed(self.transforms):
            value = t.inv(value)
        value = self.base_dist.cdf(value)
        return value if self._sign() == 1 else 1 - value

    def icdf(self, value):
        value = self.base_dist.icdf(value if self._sign() == 1 else 1 - value)
        return self._forward(value)


class LogNormal(TransformedDistribution):
    arg_constraints = {"loc": constraints.real, "scale": constraints.positive}
    support = constraints.positive
    has_rsample = True

    def __init__(self, loc, scale, validate_args=None):
        base = Normal(loc, scale, validate_args=validate_args)
        self.loc, self.scale = base.loc, base.scale
        super().__init__(base, ExpTransform(), validate_args=validate_args)

    def expand(self, batch_shape, _instance=None):
        batch_shape = tuple(batch_shape)
        return LogNormal(self.loc.expand(*batch_shape), self.scale.expand(*batch_shape),
                         validate_args=False)

    @property
    def mean(self):
        return ops.exp(self.loc + self.scale ** 2 / 2)

    @property
    def mode(self):
        return ops.exp(self.loc - self.scale ** 2)

    @property
    def variance(self):
        s2 = self.scale ** 2
        return ops.expm1(s2) * ops.exp(2 * self.loc + s2)

    def entropy(self):
        return self.base_dist.entropy() + self.loc


class Pareto(TransformedDistribution):
    """scale * exp(e) for e drawn from Exponential(alpha): support [scale, inf)."""
    arg_constraints = {"alpha": constraints.positive, "scale": constraints.positive}
    has_rsample = True

    def __init__(self, scale, alpha, validate_args=None):
        self.scale, self.alpha = broadcast_all(scale, alpha)
        base = Exponential(self.alpha, validate_args=validate_args)
        super().__init__(base, [ExpTransform(), AffineTransform(loc=0, scale=self.scale)],
                         validate_args=validate_args)

    def expand(self, batch_shape, _instance=None):
        batch_shape = tuple(batch_shape)
        return Pareto(self.scale.expand(*batch_shape), self.alpha.expand(*batch_shape),
                      validate_args=False)

    @property
    def support(self):
        return constraints.greater_than_eq(self.scale)

    @property
    def mean(self):
        a = ops.clamp(self.alpha, min=1)  # infinite for alpha <= 1
        return a * self.scale / (a - 1)

    @property
    def mode(self):
        return self.scale

    @property
    def variance(self):
        a = ops.clamp(self.alpha, min=2)  # infinite for alpha <= 2
        return self.scale ** 2 * a / ((a - 1) ** 2 * (a - 2))

    def entropy(self):
        return ops.log(self.scale / self.alpha) + (1 + 1 / self.alpha)


class LogisticNormal(TransformedDistribution):
    """A Normal draw in R^(K-1) mapped to the K-simplex by stick breaking."""
    arg_constraints = {"loc": constraints.real, "scale": constraints.positive}
    support = constraints.simplex
    has_rsample = True

    def __init__(self, loc, scale, validate_args=None):
        base = Normal(loc, scale, validate_args=validate_args)
        if not tuple(base.batch_shape):
            base = base.expand([1])
        super().__init__(base, StickBreakingTransform(), validate_args=validate_args)

    def expand(self, batch_shape, _instance=None):
        shape = tuple(batch_shape) + tuple(self.event_shape[:-1]) + (self.loc.shape[-1],)
        return LogisticNormal(self.loc.expand(*shape), self.scale.expand(*shape),
                              validate_args=False)

    @property
    def loc(self):
        return self.base_dist.loc

    @property
    def scale(self):
        return self.base_dist.scale
