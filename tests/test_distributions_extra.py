"""The distributions beyond Normal/Uniform/Bernoulli/Categorical against torch.distributions
(float64): log_prob, entropy, mean, variance, stddev, cdf, icdf and their gradients with
respect to the parameters; sample shapes and sample moments at a fixed seed (loose
tolerances, large n); kl_divergence; validation errors."""
import numpy as np
import pytest
import torch
import torch.distributions as TD

import fluxgrad as fg
import fluxgrad.distributions as D
from distribution_checks import (assert_rsample_gradient_matches_differences,
                                 assert_shapes_match_torch,
                                 assert_values_and_gradients_match_torch)

RNG = np.random.default_rng(0)
LOC = RNG.standard_normal(3)
POS = RNG.uniform(0.5, 2.0, 3)
POS2 = RNG.uniform(0.5, 2.0, 3)
PROB = RNG.uniform(0.2, 0.8, 3)
VEC3 = RNG.uniform(0.5, 2.0, (2, 3))
A = RNG.standard_normal((3, 3))
COV = A @ A.T + 3 * np.eye(3)
TRIL = np.linalg.cholesky(COV)
UNIT = np.array([0.2, 0.5, 0.9])
POSV = RNG.uniform(0.2, 3.0, 3)


def _mixture(M, logits, loc, scale):
    return M.MixtureSameFamily(M.Categorical(logits=logits), M.Normal(loc, scale))


def _mixture_mvn(M, logits, loc):
    return M.MixtureSameFamily(M.Categorical(logits=logits),
                               M.Independent(M.Normal(loc, loc * 0 + 1.5), 1))


def _affine(M, loc, scale):
    return M.TransformedDistribution(M.Normal(loc, scale), [M.AffineTransform(1.0, 2.0),
                                                           M.ExpTransform()])


def _sigmoid(M, loc, scale):
    return M.TransformedDistribution(M.Normal(loc, scale), M.SigmoidTransform())


def _tanh(M, loc, scale):
    return M.TransformedDistribution(M.Normal(loc, scale), [M.TanhTransform()])


# name: (parameters, how each framework builds it, a value to score, quantities to compare)
MOMENTS = ("log_prob", "entropy", "mean", "variance", "stddev")
CASES = {
    "Exponential": ([POS], lambda M, r: M.Exponential(r), POSV, MOMENTS + ("cdf", "icdf")),
    "Laplace": ([LOC, POS], lambda M, a, b: M.Laplace(a, b), LOC + 0.4,
                MOMENTS + ("cdf", "icdf")),
    "LogNormal": ([LOC, POS], lambda M, a, b: M.LogNormal(a, b), POSV,
                  MOMENTS + ("cdf", "icdf")),
    "Gamma": ([POS, POS2], lambda M, a, r: M.Gamma(a, r), POSV, MOMENTS),
    "Chi2": ([POS * 2], lambda M, df: M.Chi2(df), POSV, MOMENTS),
    "Beta": ([POS, POS2], lambda M, a, b: M.Beta(a, b), UNIT, MOMENTS),
    "Dirichlet": ([VEC3], lambda M, c: M.Dirichlet(c), np.array([[0.2, 0.3, 0.5],
                                                                 [0.6, 0.1, 0.3]]), MOMENTS),
    "Poisson": ([POS], lambda M, r: M.Poisson(r), np.array([0.0, 2.0, 5.0]),
                ("log_prob", "mean", "variance", "stddev")),
    "Binomial-probs": ([PROB], lambda M, p: M.Binomial(6, probs=p), np.array([0.0, 3.0, 6.0]),
                       MOMENTS),
    "Binomial-logits": ([LOC], lambda M, lg: M.Binomial(4, logits=lg),
                        np.array([1.0, 0.0, 4.0]), MOMENTS),
    "NegativeBinomial-probs": ([POS * 2, PROB], lambda M, n, p: M.NegativeBinomial(n, probs=p),
                               np.array([0.0, 2.0, 7.0]), ("log_prob", "mean", "variance")),
    "NegativeBinomial-logits": ([POS, LOC], lambda M, n, lg: M.NegativeBinomial(n, logits=lg),
                                np.array([3.0, 0.0, 1.0]), ("log_prob", "mean", "variance")),
    "LowRankMultivariateNormal": ([LOC, A[:, :2], POS], lambda M, a, w, d:
                                  M.LowRankMultivariateNormal(a, w, d),
                                  RNG.standard_normal((2, 3)), MOMENTS),
    "Geometric-probs": ([PROB], lambda M, p: M.Geometric(probs=p), np.array([0.0, 2.0, 7.0]),
                        MOMENTS),
    "Geometric-logits": ([LOC], lambda M, lg: M.Geometric(logits=lg),
                         np.array([3.0, 0.0, 1.0]), MOMENTS),
    "Cauchy": ([LOC, POS], lambda M, a, b: M.Cauchy(a, b), LOC - 0.7,
               ("log_prob", "entropy", "cdf", "icdf")),
    "HalfNormal": ([POS], lambda M, s: M.HalfNormal(s), POSV, MOMENTS + ("cdf", "icdf")),
    "StudentT": ([POS * 3, LOC, POS2], lambda M, df, a, b: M.StudentT(df, a, b), LOC + 0.3,
                 ("log_prob", "entropy", "mean", "variance")),
    "Gumbel": ([LOC, POS], lambda M, a, b: M.Gumbel(a, b), LOC + 0.5,
               MOMENTS + ("cdf", "icdf")),
    "Weibull": ([POS, POS2 + 0.5], lambda M, s, k: M.Weibull(s, k), POSV,
                MOMENTS + ("cdf", "icdf")),
    "MultivariateNormal-cov": ([LOC, COV], lambda M, a, c: M.MultivariateNormal(
        a, covariance_matrix=c), RNG.standard_normal((2, 3)), MOMENTS),
    "MultivariateNormal-tril": ([LOC, TRIL], lambda M, a, t: M.MultivariateNormal(
        a, scale_tril=t), RNG.standard_normal(3), MOMENTS),
    "MultivariateNormal-precision": ([LOC, np.linalg.inv(COV)], lambda M, a, p:
                                     M.MultivariateNormal(a, precision_matrix=p),
                                     RNG.standard_normal(3), MOMENTS),
    "MultivariateNormal-batch": ([VEC3 - 1, TRIL], lambda M, a, t: M.MultivariateNormal(
        a, scale_tril=t), RNG.standard_normal((4, 1, 3)), MOMENTS),
    "MultivariateNormal-batch-cov": ([LOC, np.stack([COV, COV * 2])], lambda M, a, c:
                                     M.MultivariateNormal(a, c), RNG.standard_normal(3),
                                     MOMENTS),
    "OneHotCategorical": ([VEC3], lambda M, p: M.OneHotCategorical(probs=p),
                          np.array([[0.0, 1.0, 0.0], [0.0, 0.0, 1.0]]), MOMENTS),
    "Multinomial": ([VEC3], lambda M, lg: M.Multinomial(5, logits=lg),
                    np.array([[1.0, 4.0, 0.0], [2.0, 2.0, 1.0]]), MOMENTS),
    "Independent": ([LOC, POS], lambda M, a, b: M.Independent(M.Normal(a, b), 1), LOC * 0.5,
                    MOMENTS),
    "MixtureSameFamily": ([LOC, LOC[::-1].copy(), POS],
                          lambda M, lg, a, b: _mixture(M, lg, a, b),
                          np.array([0.3, -1.0]), ("log_prob", "mean", "variance", "cdf")),
    "MixtureSameFamily-event": ([LOC[:2], VEC3], lambda M, lg, a: _mixture_mvn(M, lg, a),
                                np.array([0.1, 0.2, -0.5]), ("log_prob", "mean", "variance")),
    "Transformed-affine-exp": ([LOC, POS], _affine, POSV, ("log_prob", "cdf", "icdf")),
    "Transformed-affine-event": ([LOC, POS], lambda M, a, b: M.TransformedDistribution(
        M.Normal(a, b), M.AffineTransform(a * 0 + 1.0, -2.0, event_dim=1)), POSV,
        ("log_prob",)),
    "Transformed-sigmoid": ([LOC, POS], _sigmoid, UNIT, ("log_prob", "cdf", "icdf")),
    "Transformed-tanh": ([LOC, POS], _tanh, UNIT - 0.4, ("log_prob",)),
}

QUANTITIES = [(name, what) for name, case in CASES.items() for what in case[3]]


@pytest.mark.parametrize("name, what", QUANTITIES)
def test_matches_torch_values_and_gradients(name, what):
    assert_values_and_gradients_match_torch(CASES[name], what)


@pytest.mark.parametrize("name", list(CASES))
def test_shapes_match_torch(name):
    assert_shapes_match_torch(CASES[name])


SAMPLED = ["Exponential", "Laplace", "LogNormal", "Gamma", "Chi2", "Beta", "Dirichlet",
           "Poisson", "Binomial-probs", "NegativeBinomial-probs", "Geometric-probs",
           "HalfNormal", "Gumbel", "Weibull", "LowRankMultivariateNormal",
           "MultivariateNormal-cov", "OneHotCategorical", "Multinomial", "Independent",
           "MixtureSameFamily", "MixtureSameFamily-event", "Transformed-sigmoid",
           "StudentT"]


@pytest.mark.parametrize("name", SAMPLED)
def test_sample_moments_match_torch_moments(name):
    params, make, _, _ = CASES[name]
    theirs = make(TD, *(torch.tensor(p) for p in params))
    ours = make(D, *(fg.tensor(p) for p in params))
    fg.manual_seed(1)
    draws = ours.sample((40000,)).numpy()
    want_mean = theirs.mean.numpy() if name != "Transformed-sigmoid" else \
        theirs.sample((200000,)).mean(0).numpy()
    spread = np.sqrt(np.var(draws, 0) / draws.shape[0])
    np.testing.assert_array_less(np.abs(draws.mean(0) - want_mean), 6 * spread + 1e-12)
    if name not in ("StudentT", "Transformed-sigmoid"):
        np.testing.assert_allclose(draws.var(0), theirs.variance.numpy(), rtol=0.08)


def test_multivariate_normal_sample_covariance():
    loc = fg.tensor(LOC)
    dist = D.MultivariateNormal(loc, covariance_matrix=fg.tensor(COV))
    fg.manual_seed(2)
    draws = dist.sample((50000,)).numpy()
    np.testing.assert_allclose(np.cov(draws.T), COV, atol=0.15)


@pytest.mark.parametrize("name", ["Exponential", "Laplace", "LogNormal", "Cauchy", "HalfNormal",
                                  "Gumbel", "Weibull", "MultivariateNormal-tril",
                                  "Independent", "Transformed-affine-exp"])
def test_rsample_gradient_is_the_reparameterised_one(name):
    assert_rsample_gradient_matches_differences(
        CASES[name], triangular={1} if name == "MultivariateNormal-tril" else ())


def test_gamma_rsample_carries_the_rate_gradient():
    rate = fg.tensor([0.5, 2.0], requires_grad=True)
    fg.manual_seed(4)
    x = D.Gamma(fg.tensor([1.5, 3.0]), rate).rsample((3,))
    x.sum().backward()
    # x = g / rate for a standard gamma draw g, so dx/drate = -x / rate
    np.testing.assert_allclose(rate.grad.numpy(),
                               -(x.detach().numpy() / rate.detach().numpy()).sum(0), rtol=1e-6)


@pytest.mark.parametrize("make", [
    lambda c: D.Gamma(c, 1.0), lambda c: D.Beta(c, 2.0), lambda c: D.Dirichlet(c),
    lambda c: D.StudentT(c), lambda c: D.Chi2(c)])
def test_gamma_based_rsample_refuses_a_concentration_gradient(make):
    concentration = fg.tensor([1.5, 2.5], requires_grad=True)
    with pytest.raises(NotImplementedError, match="implicit reparameterisation"):
        make(concentration).rsample()
    assert make(concentration).sample((2,)).shape == (2, 2)


KL_PAIRS = {
    "Normal": ([LOC, POS], lambda M, a, b: M.Normal(a, b)),
    "Categorical": ([VEC3], lambda M, p: M.Categorical(probs=p)),
    "Bernoulli": ([PROB], lambda M, p: M.Bernoulli(probs=p)),
    "MultivariateNormal": ([LOC, TRIL], lambda M, a, t: M.MultivariateNormal(a, scale_tril=t)),
    "Exponential": ([POS], lambda M, r: M.Exponential(r)),
    "Gamma": ([POS, POS2], lambda M, a, r: M.Gamma(a, r)),
    "Beta": ([POS, POS2], lambda M, a, b: M.Beta(a, b)),
    "Laplace": ([LOC, POS], lambda M, a, b: M.Laplace(a, b)),
    "Uniform": ([LOC, POS], lambda M, a, w: M.Uniform(a, a + w)),
    "Dirichlet": ([VEC3], lambda M, c: M.Dirichlet(c)),
    "Poisson": ([POS], lambda M, r: M.Poisson(r)),
    "MultivariateNormal-batch": ([VEC3 - 1, TRIL], lambda M, a, t: M.MultivariateNormal(
        a, scale_tril=t)),
    "OneHotCategorical": ([VEC3], lambda M, p: M.OneHotCategorical(probs=p)),
    "Independent": ([LOC, POS], lambda M, a, b: M.Independent(M.Normal(a, b), 1)),
}


def _shifted(name, p, i):
    if name.startswith("MultivariateNormal") and i == 1:
        return p @ np.diag([1.3, 0.8, 1.1]) + np.tril(np.full_like(p, 0.1), -1)
    if name == "Uniform" and i == 0:
        return p - 0.2
    if name == "Uniform":
        return p + 0.5
    return p * 0.7 + 0.35


@pytest.mark.parametrize("name", list(KL_PAIRS))
def test_kl_divergence_matches_torch_with_gradients(name):
    params, make = KL_PAIRS[name]
    shifted = [_shifted(name, p, i) for i, p in enumerate(params)]
    results = []
    for lib, module in ((fg, D), (torch, TD)):
        leaves = [lib.tensor(p, requires_grad=True) for p in params + shifted]
        kl = module.kl_divergence(make(module, *leaves[:len(params)]),
                                  make(module, *leaves[len(params):]))
        kl.sum().backward()
        results.append((kl.detach().numpy(), [leaf.grad.numpy() for leaf in leaves]))
    (ours, our_grads), (theirs, their_grads) = results
    np.testing.assert_allclose(ours, theirs, rtol=1e-7, atol=1e-12)
    for g, t in zip(our_grads, their_grads):
        np.testing.assert_allclose(g, t, rtol=1e-6, atol=1e-10)


def test_register_kl_picks_the_most_specific_pair():
    class MyNormal(D.Normal):
        pass

    @D.register_kl(MyNormal, D.Normal)
    def _mine(p, q):
        return fg.tensor(-1.0)

    p, q = MyNormal(0.0, 1.0), D.Normal(1.0, 2.0)
    assert D.kl_divergence(p, q).item() == -1.0
    assert D.kl_divergence(q, q).item() == 0.0


def test_kl_divergence_of_an_unregistered_pair_raises_not_implemented():
    with pytest.raises(NotImplementedError, match="Gamma.*Normal"):
        D.kl_divergence(D.Gamma(1.0, 1.0), D.Normal(0.0, 1.0))


@pytest.fixture
def torch_validates():
    """torch's validation on (its default), whatever an earlier test left it at."""
    saved = TD.Distribution._validate_args
    TD.Distribution.set_default_validate_args(True)
    yield
    TD.Distribution.set_default_validate_args(saved)


@pytest.mark.parametrize("make", [
    lambda M: M.Exponential(torch.tensor(-1.0) if M is TD else fg.tensor(-1.0)),
    lambda M: M.Gamma(1.0, 0.0), lambda M: M.Beta(-1.0, 1.0), lambda M: M.Poisson(-2.0),
    lambda M: M.Laplace(0.0, -1.0), lambda M: M.Weibull(1.0, 0.0),
    lambda M: M.Binomial(3, probs=1.5 if M is TD else fg.tensor(1.5)),
    lambda M: M.Dirichlet((torch if M is TD else fg).tensor([1.0, -1.0])),
    lambda M: M.MultivariateNormal((torch if M is TD else fg).zeros(2),
                                   (torch if M is TD else fg).tensor([[1.0, 2.0], [2.0, 1.0]])),
])
def test_invalid_parameters_raise_value_error_as_torch(make, torch_validates):
    with pytest.raises(ValueError):
        make(TD)
    with pytest.raises(ValueError, match="Expected parameter"):
        make(D)


def test_validate_args_false_skips_the_check():
    assert D.Exponential(fg.tensor(-1.0), validate_args=False).rate.item() == -1.0


@pytest.mark.parametrize("dist, value", [
    (lambda M, t: M.Exponential(t(2.0)), -1.0), (lambda M, t: M.Beta(t(2.0), t(2.0)), 1.5),
    (lambda M, t: M.Poisson(t(2.0)), 1.5), (lambda M, t: M.Binomial(3, t(0.5)), 4.0),
    (lambda M, t: M.Dirichlet(t([1.0, 2.0])), [0.5, 0.7])])
def test_log_prob_outside_the_support_raises_value_error_as_torch(dist, value, torch_validates):
    with pytest.raises(ValueError):
        dist(TD, lambda v: torch.tensor(v, dtype=torch.float64)).log_prob(
            torch.tensor(value, dtype=torch.float64))
    with pytest.raises(ValueError, match="support"):
        dist(D, lambda v: fg.tensor(v, dtype=fg.float64)).log_prob(
            fg.tensor(value, dtype=fg.float64))


def test_multivariate_normal_needs_exactly_one_matrix():
    with pytest.raises(ValueError, match="Exactly one"):
        D.MultivariateNormal(fg.zeros(2))
    with pytest.raises(ValueError, match="Exactly one"):
        D.MultivariateNormal(fg.zeros(2), fg.eye(2), scale_tril=fg.eye(2))


def test_multivariate_normal_exposes_every_matrix_form():
    dist = D.MultivariateNormal(fg.tensor(LOC), scale_tril=fg.tensor(TRIL))
    np.testing.assert_allclose(dist.covariance_matrix.numpy(), COV, rtol=1e-12)
    np.testing.assert_allclose(dist.precision_matrix.numpy(), np.linalg.inv(COV), rtol=1e-10)


def test_sample_is_outside_the_graph_and_rsample_inside():
    loc = fg.tensor(LOC, requires_grad=True)
    dist = D.Laplace(loc, 1.0)
    assert not dist.sample().requires_grad
    assert dist.rsample().requires_grad


def test_samples_repeat_under_a_seed():
    dist = D.Dirichlet(fg.tensor(VEC3))
    fg.manual_seed(7)
    first = dist.sample((3,)).numpy()
    fg.manual_seed(7)
    np.testing.assert_array_equal(dist.sample((3,)).numpy(), first)


def test_compiled_function_draws_anew_at_every_call():
    def draw(concentration, loc):
        return (D.Gamma(concentration, 1.0).sample((2,))
                + D.Dirichlet(fg.stack([concentration, concentration], -1)).sample()[..., 0]
                + D.Normal(loc, 1.0).rsample())

    compiled = fg.compile(draw)
    args = fg.tensor([1.0, 2.0]), fg.tensor([0.0, 1.0])
    first, second = compiled(*args).numpy(), compiled(*args).numpy()
    assert compiled.trace_count == 1 and "random_gamma" in compiled.code
    assert not np.array_equal(first, second)


@pytest.mark.parametrize("make", [
    lambda M, lib: M.Bernoulli(probs=lib.tensor(PROB)),
    lambda M, lib: M.Categorical(probs=lib.tensor(VEC3)),
    lambda M, lib: M.OneHotCategorical(probs=lib.tensor(VEC3)),
    lambda M, lib: M.Binomial(3, probs=lib.tensor(PROB))])
@pytest.mark.parametrize("expand", [True, False])
def test_enumerate_support_matches_torch(make, expand):
    ours = make(D, fg).enumerate_support(expand=expand)
    theirs = make(TD, torch).enumerate_support(expand=expand)
    assert tuple(ours.shape) == tuple(theirs.shape)
    np.testing.assert_array_equal(ours.numpy(), theirs.numpy())


@pytest.mark.parametrize("name", ["Exponential", "LogNormal", "Binomial-logits", "Independent",
                                  "MultivariateNormal-cov", "MixtureSameFamily",
                                  "Transformed-sigmoid"])
def test_expand_broadcasts_the_batch_and_scores_like_torch(name):
    params, make, value, _ = CASES[name]
    theirs = make(TD, *(torch.tensor(p) for p in params))
    ours = make(D, *(fg.tensor(p) for p in params))
    batch = (2,) + tuple(theirs.batch_shape)
    theirs, ours = theirs.expand(batch), ours.expand(batch)
    assert tuple(ours.batch_shape) == tuple(theirs.batch_shape) == batch
    assert type(ours).__name__ == type(theirs).__name__
    np.testing.assert_allclose(ours.log_prob(fg.tensor(value)).numpy(),
                               theirs.log_prob(torch.tensor(value)).numpy(), rtol=1e-6)
