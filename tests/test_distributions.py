"""distributions against torch.distributions: log_prob, entropy, moments, KL and their
gradients; samples checked by moments at a fixed seed."""
import numpy as np
import pytest
import torch
import torch.distributions as TD

import fluxgrad as fg
import fluxgrad.distributions as D

RNG = np.random.default_rng(0)
LOC, SCALE = RNG.standard_normal(3), RNG.uniform(0.5, 2.0, 3)
LOW, WIDTH = RNG.standard_normal(3), RNG.uniform(0.5, 2.0, 3)
PROBS = RNG.uniform(0.1, 0.9, 3)
LOGITS = RNG.standard_normal((2, 4))

# name: (parameters as arrays, how each framework builds it, a value to score)
CASES = {
    "Normal": ([LOC, SCALE], lambda M, a, b: M.Normal(a, b), RNG.standard_normal(3)),
    "Uniform": ([LOW, WIDTH], lambda M, a, b: M.Uniform(a, a + b), LOW + WIDTH * 0.3),
    "Bernoulli-probs": ([PROBS], lambda M, p: M.Bernoulli(probs=p), np.array([1.0, 0.0, 1.0])),
    "Bernoulli-logits": ([PROBS - 0.5], lambda M, lg: M.Bernoulli(logits=lg),
                         np.array([0.0, 1.0, 1.0])),
    "Categorical-probs": ([np.abs(LOGITS) + 0.1], lambda M, p: M.Categorical(probs=p),
                          np.array([3, 0])),
    "Categorical-logits": ([LOGITS], lambda M, lg: M.Categorical(logits=lg), np.array([1, 2])),
}


def _build(name, lib):
    params, make, value = CASES[name]
    module = D if lib is fg else TD
    leaves = [lib.tensor(p, requires_grad=True) for p in params]
    return leaves, make(module, *leaves), lib.tensor(value)


# a Categorical's mean and variance are NaN (a test of their own below)
QUANTITIES = [(name, what) for name in CASES for what in ("log_prob", "entropy", "mean", "variance")
              if not (name.startswith("Categorical") and what in ("mean", "variance"))]


@pytest.mark.parametrize("name, what", QUANTITIES)
def test_matches_torch_values_and_gradients(name, what):
    results = []
    for lib in (fg, torch):
        leaves, dist, value = _build(name, lib)
        out = dist.log_prob(value) if what == "log_prob" else getattr(dist, what)
        if callable(out):
            out = out()
        (out * lib.tensor(np.arange(1.0, out.numel() + 1).reshape(out.shape))).sum().backward()
        results.append((out.detach().numpy(),
                        [None if p.grad is None else p.grad.numpy() for p in leaves]))
    (ours, our_grads), (theirs, their_grads) = results
    np.testing.assert_allclose(ours, theirs, rtol=1e-7, atol=1e-10)
    for g, t in zip(our_grads, their_grads):
        assert (g is None) == (t is None)
        if t is not None:
            np.testing.assert_allclose(g, t, rtol=1e-7, atol=1e-10)


def test_categorical_mean_is_nan_as_in_torch():
    c = D.Categorical(logits=fg.tensor(LOGITS))
    assert np.isnan(c.mean.numpy()).all() and c.mean.shape == (2,)


@pytest.mark.parametrize("name", ["Normal", "Uniform", "Bernoulli-probs", "Categorical-probs"])
def test_kl_divergence_matches_torch(name):
    params, make, _ = CASES[name]
    shifted = [p * 0.7 + 0.35 for p in params]
    ours = D.kl_divergence(make(D, *(fg.tensor(p) for p in params)),
                           make(D, *(fg.tensor(p) for p in shifted)))
    theirs = TD.kl_divergence(make(TD, *(torch.tensor(p) for p in params)),
                              make(TD, *(torch.tensor(p) for p in shifted)))
    np.testing.assert_allclose(ours.numpy(), theirs.numpy(), rtol=1e-7)


def test_rsample_carries_the_reparameterised_gradient():
    loc = fg.tensor([1.0, -2.0], requires_grad=True)
    scale = fg.tensor([0.5, 2.0], requires_grad=True)
    fg.manual_seed(0)
    draw = D.Normal(loc, scale).rsample()
    draw.sum().backward()
    np.testing.assert_allclose(loc.grad.numpy(), [1.0, 1.0])
    np.testing.assert_allclose(scale.grad.numpy(), ((draw - loc) / scale).detach().numpy(),
                               rtol=1e-6)
    assert not D.Normal(loc, scale).sample().requires_grad


def test_sample_moments_and_shapes():
    fg.manual_seed(3)
    n = 40_000
    normal = D.Normal(fg.tensor([0.0, 5.0]), fg.tensor([1.0, 0.5])).sample((n,)).numpy()
    np.testing.assert_allclose(normal.mean(0), [0, 5], atol=0.02)
    np.testing.assert_allclose(normal.std(0), [1, 0.5], rtol=0.02)
    uniform = D.Uniform(-1.0, 3.0).sample((n,)).numpy()
    assert uniform.min() >= -1 and uniform.max() < 3 and abs(uniform.mean() - 1) < 0.03
    coin = D.Bernoulli(probs=fg.tensor([0.2, 0.7])).sample((n,)).numpy()
    np.testing.assert_allclose(coin.mean(0), [0.2, 0.7], atol=0.01)
    probs = np.array([[0.1, 0.2, 0.7], [0.5, 0.25, 0.25]])
    draws = D.Categorical(probs=fg.tensor(probs)).sample((n,)).numpy()
    assert draws.shape == (n, 2)
    for row in range(2):
        np.testing.assert_allclose(np.bincount(draws[:, row], minlength=3) / n, probs[row],
                                   atol=0.01)


def test_bad_parameters_are_refused():
    with pytest.raises(ValueError, match="scale"):
        D.Normal(0.0, -1.0)
    with pytest.raises(ValueError, match="low"):
        D.Uniform(1.0, 1.0)
    with pytest.raises(ValueError, match="exactly one"):
        D.Bernoulli()
    with pytest.raises(NotImplementedError, match="rsample"):
        D.Bernoulli(probs=0.5).rsample()
