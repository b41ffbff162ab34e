"""The distributions and transforms torch.distributions has beyond the first sets (VonMises,
Kumaraswamy, ContinuousBernoulli, LKJCholesky, Wishart, InverseGamma, FisherSnedecor,
GeneralizedPareto, LogisticNormal, OneHotCategoricalStraightThrough, ExponentialFamily and
the new transforms) against torch (float64): values and gradients with respect to the
parameters, shapes, and sample moments at a fixed seed (loose tolerances, large n)."""
import math

import numpy as np
import pytest
import torch
import torch.distributions as TD

import fluxgrad as fg
import fluxgrad.distributions as D
from distribution_checks import (assert_rsample_gradient_matches_differences,
                                 assert_shapes_match_torch,
                                 assert_values_and_gradients_match_torch)

RNG = np.random.default_rng(5)
LOC = RNG.standard_normal(3)
POS = RNG.uniform(0.5, 2.0, 3)
POS2 = RNG.uniform(0.5, 2.0, 3)
BIG = RNG.uniform(4.5, 7.0, 3)
UNIT = np.array([0.2, 0.5, 0.9])
PROBS = np.array([0.1, 0.4995, 0.8])
A = RNG.standard_normal((3, 3))
COV = A @ A.T + 3 * np.eye(3)
TRIL = np.linalg.cholesky(COV)
VEC = RNG.standard_normal((2, 3))
CORR_L = np.linalg.cholesky(np.array([[1.0, 0.3, -0.2], [0.3, 1.0, 0.4], [-0.2, 0.4, 1.0]]))
WISHART_VALUE = COV * 1.7 + np.eye(3)
SIMPLEX = np.array([[0.2, 0.3, 0.1, 0.4], [0.05, 0.15, 0.5, 0.3]])

MOMENTS = ("log_prob", "entropy", "mean", "variance")
CASES = {
    "VonMises": ([LOC, POS * 3], lambda M, a, k: M.VonMises(a, k), LOC + 0.4,
                 ("log_prob", "mean", "variance")),
    "VonMises-large": ([LOC, BIG], lambda M, a, k: M.VonMises(a, k), LOC - 2.9,
                       ("log_prob", "variance")),
    "Kumaraswamy": ([POS + 0.5, POS2 + 0.5], lambda M, a, b: M.Kumaraswamy(a, b), UNIT,
                    MOMENTS + ("cdf", "icdf")),
    "ContinuousBernoulli-probs": ([PROBS], lambda M, p: M.ContinuousBernoulli(probs=p), UNIT,
                                  MOMENTS + ("cdf", "icdf")),
    "ContinuousBernoulli-logits": ([LOC], lambda M, lg: M.ContinuousBernoulli(logits=lg),
                                   UNIT, MOMENTS + ("cdf", "icdf")),
    "LKJCholesky": ([POS], lambda M, c: M.LKJCholesky(3, c), CORR_L, ("log_prob",)),
    "Wishart-cov": ([BIG[:1] + 1, COV], lambda M, df, c: M.Wishart(df, covariance_matrix=c),
                    WISHART_VALUE, MOMENTS),
    "Wishart-tril": ([BIG, TRIL], lambda M, df, t: M.Wishart(df, scale_tril=t),
                     WISHART_VALUE, MOMENTS),
    "Wishart-precision": ([BIG[:1], np.linalg.inv(COV)],
                          lambda M, df, p: M.Wishart(df, precision_matrix=p), WISHART_VALUE,
                          ("log_prob", "entropy", "mean")),
    "InverseGamma": ([BIG, POS], lambda M, a, r: M.InverseGamma(a, r), POS2, MOMENTS),
    "FisherSnedecor": ([POS * 3, BIG * 2], lambda M, d1, d2: M.FisherSnedecor(d1, d2), POS2,
                       ("log_prob", "mean", "variance")),
    # (log_prob and cdf: torch 2.13 fails on float64 there; test_generalized_pareto_...)
    "GeneralizedPareto": ([LOC, POS, np.array([0.2, -0.3, 0.1])],
                          lambda M, a, s, c: M.GeneralizedPareto(a, s, c), LOC + 0.5,
                          ("entropy", "mean", "variance", "icdf")),
    "LogisticNormal": ([VEC, POS], lambda M, a, s: M.LogisticNormal(a, s), SIMPLEX,
                       ("log_prob",)),
    "OneHotCategoricalStraightThrough": (
        [SIMPLEX], lambda M, p: M.OneHotCategoricalStraightThrough(probs=p),
        np.array([[0.0, 1.0, 0.0, 0.0], [0.0, 0.0, 0.0, 1.0]]), ("log_prob", "entropy")),
    "Transformed-power-softplus": ([LOC, POS], lambda M, a, s: M.TransformedDistribution(
        M.Normal(a, s), [M.SoftplusTransform(), M.PowerTransform(a * 0 + 1.5)]), POS2,
        ("log_prob", "cdf")),
    "Transformed-compose": ([LOC, POS], lambda M, a, s: M.TransformedDistribution(
        M.Normal(a, s), M.ComposeTransform([M.AffineTransform(0.5, 2.0), M.ExpTransform()])),
        POS2, ("log_prob", "cdf", "icdf")),
    "Transformed-independent": ([VEC, POS], lambda M, a, s: M.TransformedDistribution(
        M.Normal(a, s), M.IndependentTransform(M.AffineTransform(1.0, 3.0), 1)), VEC,
        ("log_prob",)),
    "Transformed-reshape": ([np.arange(6.0) / 4, np.ones(6)], lambda M, a, s:
                            M.TransformedDistribution(M.Independent(M.Normal(a, s), 1),
                                                      M.ReshapeTransform((6,), (2, 3))),
                            VEC, ("log_prob",)),
    "Transformed-cdf": ([LOC, POS], lambda M, a, s: M.TransformedDistribution(
        M.Normal(a * 0, s * 0 + 1), M.CumulativeDistributionTransform(M.Normal(a, s))),
        UNIT, ("log_prob",)),
}

QUANTITIES = [(name, what) for name, case in CASES.items() for what in case[3]]

# torch's cholesky_solve gives the strictly upper part of a Cholesky factor a gradient too
# (its backward does not project onto the lower triangle, which is all the factor holds)
LOWER_PART_ONLY = {("Wishart-tril", 1)}


@pytest.mark.parametrize("name, what", QUANTITIES)
def test_matches_torch_values_and_gradients(name, what):
    lower = {i for (n, i) in LOWER_PART_ONLY if n == name}
    assert_values_and_gradients_match_torch(CASES[name], what, lower)


@pytest.mark.parametrize("name", list(CASES))
def test_shapes_match_torch(name):
    assert_shapes_match_torch(CASES[name])


SAMPLED = ["VonMises", "VonMises-large", "Kumaraswamy", "ContinuousBernoulli-probs",
           "ContinuousBernoulli-logits", "Wishart-cov", "Wishart-tril", "InverseGamma",
           "FisherSnedecor", "GeneralizedPareto", "OneHotCategoricalStraightThrough"]


@pytest.mark.parametrize("name", SAMPLED)
def test_sample_moments_match_torch_moments(name):
    params, make, _, _ = CASES[name]
    theirs = make(TD, *(torch.tensor(p) for p in params))
    ours = make(D, *(fg.tensor(p) for p in params))
    fg.manual_seed(1)
    draws = ours.sample((40000,)).numpy()
    if name.startswith("VonMises"):  # circular: compare E[cos] and E[sin] of the offset
        offset = draws - theirs.loc.numpy()
        ratio = np.exp(TD.von_mises._log_modified_bessel_fn(theirs.concentration, 1).numpy()
                       - TD.von_mises._log_modified_bessel_fn(theirs.concentration, 0).numpy())
        np.testing.assert_allclose(np.cos(offset).mean(0), ratio, atol=0.02)
        np.testing.assert_allclose(np.sin(offset).mean(0), 0, atol=0.02)
        assert np.all(np.abs(draws) <= math.pi)
        return
    want_mean = theirs.mean.numpy()
    spread = np.sqrt(np.var(draws, 0) / draws.shape[0])
    np.testing.assert_array_less(np.abs(draws.mean(0) - want_mean), 6 * spread + 1e-12)
    if name != "FisherSnedecor":  # (its variance converges slowly: heavy tails)
        np.testing.assert_allclose(draws.var(0), theirs.variance.numpy(), rtol=0.1)


def test_lkj_cholesky_samples_are_correlation_factors_with_torch_moments():
    concentration = np.array([0.5, 2.0])
    ours = D.LKJCholesky(3, fg.tensor(concentration))
    theirs = TD.LKJCholesky(3, torch.tensor(concentration))
    fg.manual_seed(2)
    draws = ours.sample((20000,)).numpy()
    corr = draws @ np.swapaxes(draws, -1, -2)
    np.testing.assert_allclose(np.diagonal(corr, 0, -2, -1), 1.0, atol=1e-12)
    assert np.all(np.triu(draws, 1) == 0) and np.all(np.diagonal(draws, 0, -2, -1) > 0)
    torch.manual_seed(2)
    reference = theirs.sample((20000,)).numpy()
    ref_corr = reference @ np.swapaxes(reference, -1, -2)
    # off-diagonal correlations: mean 0, spread set by the concentration
    np.testing.assert_allclose(corr.var(0), ref_corr.var(0), atol=0.02)
    np.testing.assert_allclose(corr.mean(0), 0 * corr.mean(0) + np.eye(3), atol=0.03)


@pytest.mark.parametrize("name", ["Kumaraswamy", "ContinuousBernoulli-probs",
                                  "GeneralizedPareto", "Wishart-tril"])
def test_rsample_gradient_is_the_reparameterised_one(name):
    wishart = name.startswith("Wishart")  # df: chi-squared draws carry no gradient
    assert_rsample_gradient_matches_differences(
        CASES[name], scale=10, fixed={0} if wishart else (),
        triangular={1} if name == "Wishart-tril" else (), atol=1e-8)


def test_straight_through_rsample_is_one_hot_with_the_probs_gradient():
    probs = fg.tensor(SIMPLEX, requires_grad=True)
    fg.manual_seed(4)
    draw = D.OneHotCategoricalStraightThrough(probs=probs).rsample()
    assert set(np.unique(draw.detach().numpy())) <= {0.0, 1.0}
    weights = np.arange(8.0).reshape(2, 4)
    (draw * fg.tensor(weights)).sum().backward()
    # the gradient of the normalised probs p / sum(p) (as torch's Categorical normalises)
    expected = weights - (weights * SIMPLEX).sum(-1, keepdims=True)
    np.testing.assert_allclose(probs.grad.numpy(), expected, rtol=1e-12)


@pytest.mark.parametrize("transform, x", [
    (lambda M: M.StickBreakingTransform(), VEC),
    (lambda M: M.PowerTransform(4.0), POS),  # (1/4 exact in torch's float32)
    (lambda M: M.SoftplusTransform(), LOC),
    (lambda M: M.LowerCholeskyTransform(), A),
    (lambda M: M.SoftmaxTransform(), VEC),
    (lambda M: M.AbsTransform(), LOC),
    (lambda M: M.identity_transform, LOC),
])
def test_transform_values_inverses_and_jacobians_match_torch(transform, x):
    ours, theirs = transform(D), transform(TD)
    y_ours, y_theirs = ours(fg.tensor(x)), theirs(torch.tensor(x))
    np.testing.assert_allclose(y_ours.numpy(), y_theirs.numpy(), rtol=1e-12, atol=1e-14)
    np.testing.assert_allclose(ours.inv(y_ours).numpy(), theirs.inv(y_theirs).numpy(),
                               rtol=1e-10, atol=1e-12)
    assert ours.event_dim == theirs.event_dim and ours.bijective == theirs.bijective
    try:
        want = theirs.log_abs_det_jacobian(torch.tensor(x), y_theirs).numpy()
    except NotImplementedError:
        return
    got = ours.log_abs_det_jacobian(fg.tensor(x), y_ours).numpy()
    np.testing.assert_allclose(got, want, rtol=1e-12, atol=1e-14)


def test_exponential_family_entropy_is_the_bregman_divergence_of_the_log_normalizer():
    class Exp(D.ExponentialFamily):  # Exponential(rate): theta = -rate, F = -log(-theta)
        arg_constraints = {}
        _mean_carrier_measure = 0

        def __init__(self, rate):
            self.rate = rate
            super().__init__(rate.shape)

        @property
        def _natural_params(self):
            return (-self.rate,)

        def _log_normalizer(self, theta):
            return -fg.log(-theta)

    entropy = Exp(fg.tensor(POS)).entropy()
    np.testing.assert_allclose(entropy.detach().numpy(), 1 - np.log(POS), rtol=1e-12)


def test_continuous_bernoulli_exponential_family_entropy_matches_its_closed_form():
    dist = D.ContinuousBernoulli(logits=fg.tensor(LOC * 3))
    closed = dist.entropy().numpy()
    bregman = D.ExponentialFamily.entropy(dist).detach().numpy()
    np.testing.assert_allclose(bregman, closed, rtol=1e-8)


def test_every_torch_distribution_name_exists():
    assert set(TD.__all__) <= set(D.__all__)


CONSTRAINED = [
    (lambda C: C.real, LOC), (lambda C: C.positive, LOC), (lambda C: C.nonnegative, LOC),
    (lambda C: C.greater_than(1.5), LOC), (lambda C: C.greater_than_eq(-2.0), LOC),
    (lambda C: C.less_than(0.5), LOC), (lambda C: C.unit_interval, LOC),
    (lambda C: C.interval(-1.0, 3.0), LOC), (lambda C: C.half_open_interval(2.0, 4.0), LOC),
    (lambda C: C.simplex, VEC), (lambda C: C.real_vector, VEC),
    (lambda C: C.independent(C.positive, 1), VEC), (lambda C: C.lower_cholesky, A),
    (lambda C: C.positive_definite, A), (lambda C: C.corr_cholesky, LOC),
]


@pytest.mark.parametrize("registry", ["biject_to", "transform_to"])
@pytest.mark.parametrize("constraint, x", CONSTRAINED)
def test_constraint_registries_give_torchs_transforms(registry, constraint, x):
    try:
        getattr(TD, registry)(constraint(TD.constraints))
    except NotImplementedError:
        with pytest.raises(NotImplementedError):
            getattr(D, registry)(constraint(D.constraints))
        return
    ours = getattr(D, registry)(constraint(D.constraints))
    theirs = getattr(TD, registry)(constraint(TD.constraints))
    y_ours, y_theirs = ours(fg.tensor(x)), theirs(torch.tensor(x))
    np.testing.assert_allclose(y_ours.numpy(), y_theirs.numpy(), rtol=1e-12, atol=1e-14)
    assert bool(constraint(D.constraints).check(y_ours).all())
    if registry == "biject_to" and theirs.bijective:
        np.testing.assert_allclose(ours.inv(y_ours).numpy(), x, rtol=1e-8, atol=1e-10)
        np.testing.assert_allclose(
            ours.log_abs_det_jacobian(fg.tensor(x), y_ours).numpy(),
            theirs.log_abs_det_jacobian(torch.tensor(x), y_theirs).numpy(),
            rtol=1e-10, atol=1e-12)


def test_registering_a_transform_for_a_new_constraint():
    mine = D.constraints.Constraint(lambda v: v > 0, "Mine()")
    with pytest.raises(NotImplementedError, match="register"):
        D.biject_to(mine)
    D.biject_to.register(mine)(lambda c: D.ExpTransform())
    assert isinstance(D.biject_to(mine), D.ExpTransform)


@pytest.mark.parametrize("make, x", [
    (lambda M: M.CatTransform([M.ExpTransform(), M.AffineTransform(1.0, 2.0)], dim=0,
                              lengths=[1, 2]), LOC),
    (lambda M: M.CatTransform([M.ExpTransform(), M.SigmoidTransform()], dim=1,
                              lengths=[2, 1]), VEC),
    (lambda M: M.StackTransform([M.ExpTransform(), M.SoftplusTransform()], dim=0), VEC),
    (lambda M: M.CorrCholeskyTransform(), RNG.standard_normal((2, 6))),
])
def test_composite_transforms_match_torch(make, x):
    ours, theirs = make(D), make(TD)
    y_ours, y_theirs = ours(fg.tensor(x)), theirs(torch.tensor(x))
    np.testing.assert_allclose(y_ours.numpy(), y_theirs.numpy(), rtol=1e-12, atol=1e-14)
    np.testing.assert_allclose(ours.inv(y_ours).numpy(), x, rtol=1e-8, atol=1e-10)
    np.testing.assert_allclose(ours.log_abs_det_jacobian(fg.tensor(x), y_ours).numpy(),
                               theirs.log_abs_det_jacobian(torch.tensor(x), y_theirs).numpy(),
                               rtol=1e-10, atol=1e-12)


def test_lkj_cholesky_through_corr_cholesky_transform_matches_torch():
    """The usual use: a density over unconstrained vectors, log_prob(T(x)) + log|J|."""
    x = RNG.standard_normal(3)
    results = []
    for lib, module in ((fg, D), (torch, TD)):
        concentration = lib.tensor(np.array(1.7), requires_grad=True)
        dist = module.TransformedDistribution(module.LKJCholesky(3, concentration).expand(()),
                                              [])
        transform = module.biject_to(dist.support)
        unconstrained = lib.tensor(x, requires_grad=True)
        y = transform(unconstrained)
        total = dist.log_prob(y) + transform.log_abs_det_jacobian(unconstrained, y)
        total.backward()
        results.append((total.item(), unconstrained.grad.numpy(), concentration.grad.item()))
    np.testing.assert_allclose(results[0][0], results[1][0], rtol=1e-10)
    np.testing.assert_allclose(results[0][1], results[1][1], rtol=1e-8)
    np.testing.assert_allclose(results[0][2], results[1][2], rtol=1e-8)


@pytest.mark.parametrize("make", [
    lambda M, t: M.LKJCholesky(1, t(1.0)),
    lambda M, t: M.Wishart(t(1.5), covariance_matrix=t(COV)),
    lambda M, t: M.Wishart(t(4.0)),
    lambda M, t: M.ContinuousBernoulli(),
])
def test_invalid_arguments_raise_as_torch(make):
    with pytest.raises((ValueError, AssertionError)):
        make(TD, lambda v: torch.tensor(v))
    with pytest.raises(ValueError):
        make(D, lambda v: fg.tensor(v))


@pytest.mark.parametrize("what", ["log_prob", "cdf", "log_survival_function"])
def test_generalized_pareto_scores_match_torch_in_float32(what):
    concentration = np.array([0.2, -0.3, 0.0], np.float32)
    results = []
    for lib, module in ((fg, D), (torch, TD)):
        loc = lib.tensor(LOC.astype(np.float32), requires_grad=True)
        scale = lib.tensor(POS.astype(np.float32), requires_grad=True)
        dist = module.GeneralizedPareto(loc, scale, lib.tensor(concentration))
        out = getattr(dist, what)(lib.tensor((LOC + 0.5).astype(np.float32)))
        out.sum().backward()
        results.append((out.detach().numpy(), loc.grad.numpy(), scale.grad.numpy()))
    for ours, theirs in zip(*results):
        np.testing.assert_allclose(ours, theirs, rtol=2e-5, atol=1e-6)


def test_the_exponential_families_are_torchs():
    for name in TD.__all__:
        theirs = getattr(TD, name)
        if isinstance(theirs, type) and issubclass(theirs, TD.Distribution):
            assert issubclass(getattr(D, name), D.ExponentialFamily) == issubclass(
                theirs, TD.ExponentialFamily), name


FAMILIES = {
    "Normal": ([LOC, POS], lambda M, a, b: M.Normal(a, b)),
    "Bernoulli": ([PROBS], lambda M, p: M.Bernoulli(probs=p)),
    "Exponential": ([POS], lambda M, r: M.Exponential(r)),
    "Gamma": ([POS, POS2], lambda M, a, r: M.Gamma(a, r)),
    "ContinuousBernoulli": ([PROBS], lambda M, p: M.ContinuousBernoulli(probs=p)),
    # (one matrix: torch's Bregman KL sums a batch of Wishart dfs into one number)
    "Wishart": ([BIG[0], TRIL], lambda M, df, t: M.Wishart(df, scale_tril=t)),
}


@pytest.mark.parametrize("make", [lambda M, t: M.Beta(t([1.2, 0.7]), t([0.9, 1.5])),
                                  lambda M, t: M.Dirichlet(t([1.2, 0.7]))])
def test_families_with_a_carrier_measure_have_no_bregman_entropy_as_in_torch(make):
    with pytest.raises(NotImplementedError):
        TD.ExponentialFamily.entropy(make(TD, torch.tensor))
    with pytest.raises(NotImplementedError):
        D.ExponentialFamily.entropy(make(D, fg.tensor))
    assert make(D, fg.tensor).entropy().shape == make(TD, torch.tensor).entropy().shape


@pytest.mark.parametrize("name", list(FAMILIES))
def test_bregman_entropy_of_each_family_matches_torchs_entropy(name):
    params, make = FAMILIES[name]
    ours = D.ExponentialFamily.entropy(make(D, *(fg.tensor(p) for p in params)))
    theirs = make(TD, *(torch.tensor(p) for p in params)).entropy()
    np.testing.assert_allclose(ours.detach().numpy(), theirs.numpy(), rtol=1e-8, atol=1e-10)


@pytest.mark.parametrize("name", ["ContinuousBernoulli", "Wishart"])
def test_kl_divergence_of_the_new_families_matches_torch(name):
    params, make = FAMILIES[name]
    shifted = [p * 0.8 + 0.05 if p.ndim < 2 else p @ np.diag([1.2, 0.9, 1.1]) for p in params]
    results = []
    for lib, module in ((fg, D), (torch, TD)):
        leaves = [lib.tensor(p, requires_grad=True) for p in params + shifted]
        kl = module.kl_divergence(make(module, *leaves[:len(params)]),
                                  make(module, *leaves[len(params):]))
        kl.sum().backward()
        results.append((kl.detach().numpy(), [leaf.grad for leaf in leaves]))
    np.testing.assert_allclose(results[0][0], results[1][0], rtol=1e-8, atol=1e-12)
    for ours, theirs in zip(results[0][1], results[1][1]):
        if theirs is None:
            assert ours is None or not np.any(ours.numpy())
        else:
            np.testing.assert_allclose(np.tril(ours.numpy()) if ours.ndim == 2 else ours.numpy(),
                                       np.tril(theirs.numpy()) if theirs.ndim == 2
                                       else theirs.numpy(), rtol=1e-6, atol=1e-10)


def test_kl_between_different_exponential_families_raises_not_implemented():
    with pytest.raises(NotImplementedError, match="different exponential families"):
        D.kl_divergence(D.ContinuousBernoulli(probs=fg.tensor(0.3)),
                        D.Bernoulli(probs=fg.tensor(0.3)))
