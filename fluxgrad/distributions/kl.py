"""`kl_divergence(p, q)` and `register_kl(P, Q)`, as torch's: KL(p || q) by the formula
registered for the most specific pair of classes that p and q are instances of."""
import math

from .. import ops
from .._core.tensor import Tensor
from ..linalg import solve_triangular
from ..nn import functional as F
from .._core.engine import grad
from .basic import Bernoulli, Categorical, Normal, Uniform
from .bounded import ContinuousBernoulli
from .continuous import Beta, Exponential, Gamma, Laplace
from .discrete import OneHotCategorical, Poisson
from .multivariate import Dirichlet, MultivariateNormal
from .distribution import as_float
from .exp_family import ExponentialFamily
from .transforms import _sum_rightmost
from .wrappers import Independent, TransformedDistribution

__all__ = ["kl_divergence", "register_kl"]

_KL = {}


def register_kl(type_p, type_q):
    """Decorator: `fn(p, q)` computes KL(p || q) for p a `type_p` and q a `type_q`."""
    from .distribution import Distribution
    for t in (type_p, type_q):
        if not (isinstance(t, type) and issubclass(t, Distribution)):
            raise TypeError(f"register_kl: expected Distribution subclasses, got {t!r}")

    def decorator(fn):
        _KL[type_p, type_q] = fn
        return fn
    return decorator


def kl_divergence(p, q):
    """KL(p || q), batched over the distributions' batch shape."""
    mro_p, mro_q = type(p).__mro__, type(q).__mro__
    matches = [(mro_p.index(a), mro_q.index(b), fn) for (a, b), fn in _KL.items()
               if isinstance(p, a) and isinstance(q, b)]
    if not matches:
        raise NotImplementedError(f"No KL(p || q) is implemented for p of type "
                                  f"{type(p).__name__} and q of type {type(q).__name__}")
    return min(matches, key=lambda m: m[:2])[2](p, q)


@register_kl(Normal, Normal)
def _kl_normal_normal(p, q):
    ratio = (p.scale / q.scale) ** 2
    return 0.5 * (ratio + ((p.loc - q.loc) / q.scale) ** 2 - 1 - ops.log(ratio))


@register_kl(Bernoulli, Bernoulli)
def _kl_bernoulli_bernoulli(p, q):
    return (p.probs * (F.softplus(-q.logits) - F.softplus(-p.logits))
            + (1 - p.probs) * (F.softplus(q.logits) - F.softplus(p.logits)))


@register_kl(Categorical, Categorical)
def _kl_categorical_categorical(p, q):
    t = p.probs * (p.logits - q.logits)
    t = ops.where(q.probs == 0, math.inf, t)
    return ops.sum(ops.where(p.probs == 0, 0.0, t), -1)


@register_kl(OneHotCategorical, OneHotCategorical)
def _kl_onehot_onehot(p, q):
    return _kl_categorical_categorical(p._categorical, q._categorical)


@register_kl(Uniform, Uniform)
def _kl_uniform_uniform(p, q):
    inside = (q.low <= p.low) & (p.high <= q.high)
    return ops.where(inside, ops.log((q.high - q.low) / (p.high - p.low)), math.inf)


@register_kl(Exponential, Exponential)
def _kl_exponential_exponential(p, q):
    ratio = q.rate / p.rate
    return ratio - 1 - ops.log(ratio)


@register_kl(Gamma, Gamma)
def _kl_gamma_gamma(p, q):
    return (q.concentration * ops.log(p.rate / q.rate)
            + ops.lgamma(q.concentration) - ops.lgamma(p.concentration)
            + (p.concentration - q.concentration) * ops.digamma(p.concentration)
            + (q.rate - p.rate) * (p.concentration / p.rate))


@register_kl(Beta, Beta)
def _kl_beta_beta(p, q):
    p1, p0, q1, q0 = p.concentration1, p.concentration0, q.concentration1, q.concentration0
    sum_p, sum_q = p1 + p0, q1 + q0
    return (ops.lgamma(q1) + ops.lgamma(q0) + ops.lgamma(sum_p)
            - (ops.lgamma(p1) + ops.lgamma(p0) + ops.lgamma(sum_q))
            + (p1 - q1) * ops.digamma(p1) + (p0 - q0) * ops.digamma(p0)
            + (sum_q - sum_p) * ops.digamma(sum_p))


@register_kl(Dirichlet, Dirichlet)
def _kl_dirichlet_dirichlet(p, q):
    sum_p = ops.sum(p.concentration, -1)
    sum_q = ops.sum(q.concentration, -1)
    t1 = ops.lgamma(sum_p) - ops.lgamma(sum_q)
    t2 = ops.sum(ops.lgamma(p.concentration) - ops.lgamma(q.concentration), -1)
    t3 = p.concentration - q.concentration
    t4 = ops.digamma(p.concentration) - ops.unsqueeze(ops.digamma(sum_p), -1)
    return t1 - t2 + ops.sum(t3 * t4, -1)


@register_kl(Laplace, Laplace)
def _kl_laplace_laplace(p, q):
    ratio = p.scale / q.scale
    distance = ops.abs(p.loc - q.loc)
    return -ops.log(ratio) + distance / q.scale + ratio * ops.exp(-distance / p.scale) - 1


@register_kl(Poisson, Poisson)
def _kl_poisson_poisson(p, q):
    return p.rate * (ops.log(p.rate) - ops.log(q.rate)) - (p.rate - q.rate)


@register_kl(MultivariateNormal, MultivariateNormal)
def _kl_mvn_mvn(p, q):
    if tuple(p.event_shape) != tuple(q.event_shape):
        raise ValueError("KL-divergence between two Multivariate Normals with different event "
                         f"shapes cannot be computed ({tuple(p.event_shape)} and "
                         f"{tuple(q.event_shape)})")
    k = p.event_shape[0]
    batch = ops.broadcast_tensors(p.loc, q.loc)[0].shape[:-1]
    Lq = q.scale_tril.expand(*batch, k, k)
    Lp = p.scale_tril.expand(*batch, k, k)
    term2 = ops.sum(solve_triangular(Lq, Lp, upper=False) ** 2, (-2, -1))
    diff = ops.unsqueeze(q.loc - p.loc, -1)
    term3 = ops.sum(solve_triangular(Lq, diff.expand(*batch, k, 1), upper=False) ** 2, (-2, -1))
    return q._half_log_det() - p._half_log_det() + 0.5 * (term2 + term3 - k)


@register_kl(Independent, Independent)
def _kl_independent_independent(p, q):
    if p.reinterpreted_batch_ndims != q.reinterpreted_batch_ndims:
        raise NotImplementedError("kl_divergence: Independent distributions with different "
                                  "reinterpreted_batch_ndims")
    return _sum_rightmost(kl_divergence(p.base_dist, q.base_dist), p.reinterpreted_batch_ndims)


def _same_transform(a, b):
    """Whether transforms a and b are the same map (same class, equal parameters)."""
    if type(a) is not type(b) or a.__dict__.keys() != b.__dict__.keys():
        return False
    for key, x in a.__dict__.items():
        y = b.__dict__[key]
        if isinstance(x, Tensor) or isinstance(y, Tensor):
            x, y = as_float(x), as_float(y)
            if x.shape != y.shape or not bool(ops.all(ops.eq(x, y))):
                return False
        elif x != y:
            return False
    return True


@register_kl(TransformedDistribution, TransformedDistribution)
def _kl_transformed_transformed(p, q):
    if len(p.transforms) != len(q.transforms) or not all(
            _same_transform(a, b) for a, b in zip(p.transforms, q.transforms)):
        raise NotImplementedError("kl_divergence: TransformedDistributions with different "
                                  "transforms")
    if p.event_shape != q.event_shape:
        raise NotImplementedError("kl_divergence: TransformedDistributions with different "
                                  "event shapes")
    extra = len(p.event_shape) - len(p.base_dist.event_shape)
    return _sum_rightmost(kl_divergence(p.base_dist, q.base_dist), extra)


@register_kl(ContinuousBernoulli, ContinuousBernoulli)
def _kl_continuous_bernoulli(p, q):
    t1 = p.mean * (p.logits - q.logits)
    t2 = p._cont_bern_log_norm() + ops.log1p(-p.probs)
    t3 = -q._cont_bern_log_norm() - ops.log1p(-q.probs)
    return t1 + t2 + t3


@register_kl(ExponentialFamily, ExponentialFamily)
def _kl_exponential_family(p, q):
    """The Bregman divergence of the log normalizer F between the natural parameters:
    F(theta_q) - F(theta_p) - <theta_q - theta_p, grad F(theta_p)>, for p and q of the same
    family (the gradient taken by autograd: it differentiates in q only, as torch's)."""
    if type(p) is not type(q):
        raise NotImplementedError("The cross KL-divergence between different exponential "
                                  "families cannot be computed using Bregman divergences; "
                                  f"register a formula for ({type(p).__name__}, "
                                  f"{type(q).__name__}) with register_kl")
    p_natural = [theta.detach().requires_grad_() for theta in p._natural_params]
    q_natural = q._natural_params
    log_normalizer = p._log_normalizer(*p_natural)
    gradients = grad(log_normalizer.sum(), p_natural, create_graph=True)
    result = q._log_normalizer(*q_natural) - log_normalizer
    batch_ndim = len(q.batch_shape)
    for p_theta, q_theta, g in zip(p_natural, q_natural, gradients):
        term = (q_theta - p_theta) * g  # summed over the parameter's own (event) dims
        result = result - _sum_rightmost(term, term.ndim - batch_ndim)
    return result
