"""HalfCauchy, Pareto and the relaxed (Concrete) distributions against PyTorch's: log_prob,
moments, entropy, cdf / icdf, and reparameterised draws in the support with gradients."""
import numpy as np
import pytest

import fluxgrad
from fluxgrad import distributions as D

torch = pytest.importorskip("torch")
TD = torch.distributions

CASES = [
    ("HalfCauchy", dict(scale=[0.5, 1.0, 2.0]), [0.3, 1.2, 5.0]),
    ("Pareto", dict(scale=[0.2, 0.5, 1.0], alpha=[0.5, 2.5, 3.0]), [0.3, 1.2, 5.0]),
    ("RelaxedBernoulli", dict(temperature=[0.5, 2.0], probs=[0.2, 0.7]), [0.1, 0.9]),
    ("RelaxedBernoulli", dict(temperature=[0.5, 2.0], logits=[-1.0, 3.0]), [0.6, 0.3]),
    ("LogitRelaxedBernoulli", dict(temperature=[0.5, 2.0], probs=[0.2, 0.7]), [-1.0, 2.0]),
    ("RelaxedOneHotCategorical", dict(temperature=0.7, logits=[[0.1, 0.5, -1.0], [2.0, 0.0, 0.3]]),
     [[0.2, 0.3, 0.5], [0.6, 0.3, 0.1]]),
    ("ExpRelaxedCategorical", dict(temperature=1.5, probs=[0.2, 0.5, 0.3]),
     [-1.5, -0.5, -1.4076059644443804]),
]


def make(module, name, params):
    """`name` from the distributions package, or (the log-space relaxed ones) from the module
    that defines it, as PyTorch keeps them."""
    args = {k: module.tensor(v, dtype=module.float64) for k, v in params.items()}
    if module is torch and name.startswith(("Logit", "Exp")):
        home = TD.relaxed_bernoulli if "Bernoulli" in name else TD.relaxed_categorical
    else:
        home = D.relaxed if module is fluxgrad and name.startswith(("Logit", "Exp")) \
            else module.distributions
    return getattr(home, name)(**args)


@pytest.mark.parametrize("name, params, value", CASES, ids=[c[0] for c in CASES])
def test_matches_pytorch(name, params, value):
    ours, theirs = make(fluxgrad, name, params), make(torch, name, params)
    value = np.array(value)
    np.testing.assert_allclose(ours.log_prob(fluxgrad.tensor(value)).numpy(),
                               theirs.log_prob(torch.tensor(value)).numpy(), rtol=1e-10)
    assert tuple(ours.batch_shape) == tuple(theirs.batch_shape)
    assert tuple(ours.event_shape) == tuple(theirs.event_shape)
    for attr in ("mean", "mode", "variance"):
        try:
            expected = getattr(theirs, attr).numpy()
        except NotImplementedError:
            continue
        np.testing.assert_allclose(getattr(ours, attr).numpy(), expected, rtol=1e-10)
    try:
        expected = theirs.entropy().numpy()
    except NotImplementedError:
        return
    np.testing.assert_allclose(ours.entropy().numpy(), expected, rtol=1e-10)


@pytest.mark.parametrize("name", ["HalfCauchy", "Pareto"])
def test_cdf_and_icdf_match_pytorch(name):
    params = next(c[1] for c in CASES if c[0] == name)
    ours, theirs = make(fluxgrad, name, params), make(torch, name, params)
    x = np.array([0.6, 1.2, 5.0])
    np.testing.assert_allclose(ours.cdf(fluxgrad.tensor(x)).numpy(),
                               theirs.cdf(torch.tensor(x)).numpy(), rtol=1e-10)
    q = np.array([0.1, 0.5, 0.9])
    np.testing.assert_allclose(ours.icdf(fluxgrad.tensor(q)).numpy(),
                               theirs.icdf(torch.tensor(q)).numpy(), rtol=1e-10)


def test_relaxed_draws_lie_in_the_support_and_differentiate():
    logits = fluxgrad.tensor([[0.1, 0.5, -1.0]], requires_grad=True)
    draws = D.RelaxedOneHotCategorical(fluxgrad.tensor(0.5), logits=logits).rsample((50,))
    np.testing.assert_allclose(draws.sum(-1).detach().numpy(), 1.0, rtol=1e-5)
    (draws[..., 0] * 2).sum().backward()
    assert logits.grad is not None and np.isfinite(logits.grad.numpy()).all()
    probs = fluxgrad.tensor([0.3], requires_grad=True)
    b = D.RelaxedBernoulli(fluxgrad.tensor(0.2), probs=probs).rsample((100,))
    assert bool(((b > 0) & (b < 1)).all())
    b.sum().backward()
    assert float(probs.grad) > 0


def test_half_cauchy_draws_are_nonnegative():
    assert bool((D.HalfCauchy(fluxgrad.tensor([1.0, 3.0])).sample((200,)) >= 0).all())
