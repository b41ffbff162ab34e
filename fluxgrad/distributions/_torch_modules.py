"""PyTorch's one-module-per-distribution paths (`torch.distributions.normal`,
`from torch.distributions.categorical import Categorical`, ...): each is a module object holding
the classes torch's module of that name exports, registered in `sys.modules` and as an attribute
of the package, so both `import` forms and attribute access find them."""
import sys
import types

MODULES = {
    "bernoulli": ["Bernoulli"], "beta": ["Beta"], "binomial": ["Binomial"],
    "categorical": ["Categorical"], "cauchy": ["Cauchy"], "chi2": ["Chi2"],
    "continuous_bernoulli": ["ContinuousBernoulli"], "dirichlet": ["Dirichlet"],
    "exponential": ["Exponential"], "fishersnedecor": ["FisherSnedecor"], "gamma": ["Gamma"],
    "generalized_pareto": ["GeneralizedPareto"], "geometric": ["Geometric"],
    "gumbel": ["Gumbel"], "half_cauchy": ["HalfCauchy"], "half_normal": ["HalfNormal"],
    "independent": ["Independent"], "inverse_gamma": ["InverseGamma"],
    "kumaraswamy": ["Kumaraswamy"], "laplace": ["Laplace"], "lkj_cholesky": ["LKJCholesky"],
    "log_normal": ["LogNormal"], "logistic_normal": ["LogisticNormal"],
    "lowrank_multivariate_normal": ["LowRankMultivariateNormal"],
    "mixture_same_family": ["MixtureSameFamily"], "multinomial": ["Multinomial"],
    "multivariate_normal": ["MultivariateNormal"], "negative_binomial": ["NegativeBinomial"],
    "normal": ["Normal"],
    "one_hot_categorical": ["OneHotCategorical", "OneHotCategoricalStraightThrough"],
    "pareto": ["Pareto"], "poisson": ["Poisson"], "relaxed_bernoulli": ["RelaxedBernoulli"],
    "relaxed_categorical": ["RelaxedOneHotCategorical"], "studentT": ["StudentT"],
    "transformed_distribution": ["TransformedDistribution"], "uniform": ["Uniform"],
    "von_mises": ["VonMises"], "weibull": ["Weibull"], "wishart": ["Wishart"],
}


def install(package):
    """Registers each of MODULES under `package` (the distributions package module)."""
    for name, classes in MODULES.items():
        module = types.ModuleType(f"{package.__name__}.{name}",
                                  f"torch.distributions.{name}: {', '.join(classes)}.")
        for cls in classes:
            setattr(module, cls, getattr(package, cls))
        module.__all__ = list(classes)
        sys.modules[module.__name__] = module
        setattr(package, name, module)
