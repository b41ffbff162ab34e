"""`fluxgrad.distributions`, PyTorch's `torch.distributions`: probability distributions whose
`log_prob`, `entropy`, moments and reparameterised samples (`rsample`) are written in fluxgrad
ops (so they differentiate with respect to the parameters in every mode), whose `sample` draws
through fluxgrad's random ops (drawn anew at every run of a static program or compiled call),
and `kl_divergence` with `register_kl`.
"""
from . import constraints, transforms
from .basic import Bernoulli, Categorical, Normal, Uniform
from .continuous import (Beta, Cauchy, Chi2, Exponential, Gamma, Gumbel, HalfCauchy, HalfNormal,
                         Laplace, StudentT, Weibull)
from .discrete import (Binomial, Geometric, Multinomial, NegativeBinomial, OneHotCategorical,
                       Poisson)
from .distribution import Distribution
from .kl import kl_divergence, register_kl
from .multivariate import Dirichlet, LowRankMultivariateNormal, MultivariateNormal
from .relaxed import RelaxedBernoulli, RelaxedOneHotCategorical
from .transforms import AffineTransform, ExpTransform, SigmoidTransform, TanhTransform, Transform
from .wrappers import Independent, LogNormal, MixtureSameFamily, Pareto, TransformedDistribution

__all__ = ["Distribution", "Normal", "Uniform", "Bernoulli", "Categorical", "Exponential",
           "Laplace", "LogNormal", "Gamma", "Beta", "Dirichlet", "Poisson", "Binomial",
           "NegativeBinomial", "Geometric", "Cauchy", "HalfNormal", "StudentT", "Chi2", "Gumbel",
           "Weibull", "MultivariateNormal", "LowRankMultivariateNormal", "OneHotCategorical",
           "Multinomial", "Independent", "MixtureSameFamily", "TransformedDistribution", "Transform",
           "ExpTransform", "AffineTransform", "SigmoidTransform", "TanhTransform", "constraints",
           "transforms", "kl_divergence", "register_kl", "HalfCauchy", "Pareto",
           "RelaxedBernoulli", "RelaxedOneHotCategorical"]
