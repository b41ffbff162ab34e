"""`fluxgrad.distributions`, PyTorch's `torch.distributions`: probability distributions whose
`log_prob`, `entropy`, moments and reparameterised samples (`rsample`) are written in fluxgrad
ops (so they differentiate with respect to the parameters in every mode), whose `sample` draws
through fluxgrad's random ops (drawn anew at every run of a static program or compiled call),
and `kl_divergence` with `register_kl`.
"""
import sys

from . import constraints, transforms
from .basic import Bernoulli, Categorical, Normal, Uniform
from .bounded import ContinuousBernoulli, Kumaraswamy
from .circular import VonMises
from .constraint_registry import biject_to, transform_to
from .continuous import (Beta, Cauchy, Chi2, Exponential, Gamma, Gumbel, HalfCauchy, HalfNormal,
                         Laplace, StudentT, Weibull)
from .discrete import (Binomial, Geometric, Multinomial, NegativeBinomial, OneHotCategorical,
                       OneHotCategoricalStraightThrough, Poisson)
from .distribution import Distribution
from .exp_family import ExponentialFamily
from .kl import kl_divergence, register_kl
from .matrix import LKJCholesky, Wishart
from .multivariate import Dirichlet, LowRankMultivariateNormal, MultivariateNormal
from .positive import FisherSnedecor, GeneralizedPareto, InverseGamma
from .relaxed import RelaxedBernoulli, RelaxedOneHotCategorical
from .transforms import (AbsTransform, AffineTransform, CatTransform, ComposeTransform,
                         CorrCholeskyTransform, CumulativeDistributionTransform, ExpTransform,
                         IndependentTransform, LowerCholeskyTransform, PositiveDefiniteTransform,
                         PowerTransform, ReshapeTransform, SigmoidTransform, SoftmaxTransform,
                         SoftplusTransform, StackTransform, StickBreakingTransform,
                         TanhTransform, Transform, identity_transform)
from .wrappers import (Independent, LogisticNormal, LogNormal, MixtureSameFamily, Pareto,
                       TransformedDistribution)

__all__ = ["Distribution", "Normal", "Uniform", "Bernoulli", "Categorical", "Exponential",
           "Laplace", "LogNormal", "Gamma", "Beta", "Dirichlet", "Poisson", "Binomial",
           "NegativeBinomial", "Geometric", "Cauchy", "HalfNormal", "StudentT", "Chi2", "Gumbel",
           "Weibull", "MultivariateNormal", "LowRankMultivariateNormal", "OneHotCategorical",
           "Multinomial", "Independent", "MixtureSameFamily", "TransformedDistribution", "Transform",
           "ExpTransform", "AffineTransform", "SigmoidTransform", "TanhTransform", "constraints",
           "transforms", "kl_divergence", "register_kl", "HalfCauchy", "Pareto",
           "RelaxedBernoulli", "RelaxedOneHotCategorical", "VonMises", "Kumaraswamy",
           "ContinuousBernoulli", "LKJCholesky", "Wishart", "InverseGamma", "FisherSnedecor",
           "GeneralizedPareto", "LogisticNormal", "OneHotCategoricalStraightThrough",
           "ExponentialFamily", "PowerTransform", "AbsTransform", "SoftplusTransform",
           "ComposeTransform", "identity_transform", "StickBreakingTransform",
           "SoftmaxTransform", "IndependentTransform", "ReshapeTransform",
           "LowerCholeskyTransform", "CumulativeDistributionTransform",
           "PositiveDefiniteTransform", "CorrCholeskyTransform", "CatTransform",
           "StackTransform", "biject_to", "transform_to"]

from . import _torch_modules  # noqa: E402

_torch_modules.install(sys.modules[__name__])
