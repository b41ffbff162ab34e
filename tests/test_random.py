"""Random sampling: distributions checked by moments and chi-square at fixed seeds (never by
exact draws), reproducibility through manual_seed and Generator, and errors as in torch."""
import numpy as np
import pytest
import torch

import fluxgrad as fg

N = 40_000
# chi-square quantiles at 0.999 (tables; scipy.stats.chi2.ppf(0.999, df)) for df = 3, 4, 9
CHI2_999 = {3: 16.266, 4: 18.467, 9: 27.877}


def chi_square(counts, probs):
    expected = np.asarray(probs) * np.sum(counts)
    return float(np.sum((np.asarray(counts) - expected) ** 2 / expected))


def setup_function():
    fg.manual_seed(1234)


def test_manual_seed_repeats_every_sampler():
    def draws():
        fg.manual_seed(5)
        return [fg.rand(3), fg.randn(3), fg.randint(0, 9, (3,)), fg.randperm(5),
                fg.multinomial(fg.ones(4), 2), fg.bernoulli(fg.full((4,), 0.5)),
                fg.normal(0.0, 1.0, (3,)), fg.poisson(fg.ones(3)), fg.empty(3).uniform_(),
                fg.empty(3).normal_(), fg.empty(3).exponential_(), fg.empty(3).random_(9),
                fg.empty(3).bernoulli_(0.5)]
    for a, b in zip(draws(), draws()):
        np.testing.assert_array_equal(a.detach().numpy(), b.detach().numpy())


def test_generator_is_a_stream_of_its_own():
    g = fg.Generator().manual_seed(7)
    first = fg.randn(4, generator=g)
    fg.randn(10)  # the default generator moves; g does not
    g.manual_seed(7)
    np.testing.assert_array_equal(fg.randn(4, generator=g).detach().numpy(), first.detach().numpy())
    assert g.initial_seed() == 7 and g.device == "cpu"
    state = g.get_state()
    a = fg.rand(3, generator=g)
    g.set_state(state)
    np.testing.assert_array_equal(fg.rand(3, generator=g).detach().numpy(), a.detach().numpy())


def test_rand_and_randn_moments():
    u, z = fg.rand(N).detach().numpy(), fg.randn(N).detach().numpy()
    assert u.min() >= 0 and u.max() < 1
    assert abs(u.mean() - 0.5) < 0.01 and abs(u.var() - 1 / 12) < 0.005
    assert abs(z.mean()) < 0.02 and abs(z.var() - 1) < 0.03


def test_randint_is_uniform_by_chi_square():
    counts = np.bincount(fg.randint(2, 6, (N,)).detach().numpy() - 2, minlength=4)
    assert chi_square(counts, [0.25] * 4) < CHI2_999[3]


def test_randperm_is_a_permutation_with_uniform_first_element():
    firsts = [fg.randperm(5)[0].item() for _ in range(2000)]
    assert sorted(fg.randperm(50).tolist()) == list(range(50))
    assert chi_square(np.bincount(firsts, minlength=5), [0.2] * 5) < CHI2_999[4]
    assert fg.randperm(4).dtype == fg.int64


def test_multinomial_with_replacement_follows_the_weights():
    weights = np.array([1.0, 2.0, 3.0, 4.0])
    draws = fg.multinomial(fg.tensor(weights), N, replacement=True).detach().numpy()
    assert chi_square(np.bincount(draws, minlength=4), weights / 10) < CHI2_999[3]


def test_multinomial_without_replacement_draws_distinct_categories():
    weights = fg.tensor([[0.0, 1.0, 1.0, 2.0], [5.0, 0.0, 1.0, 1.0]])
    for _ in range(50):
        rows = fg.multinomial(weights, 3).tolist()
        assert sorted(rows[0]) == [1, 2, 3] and 1 not in rows[1] and len(set(rows[1])) == 3
    # the first draw without replacement follows the weights
    firsts = [fg.multinomial(fg.tensor([1.0, 2.0, 3.0, 4.0]), 2)[0].item() for _ in range(4000)]
    assert chi_square(np.bincount(firsts, minlength=4), [0.1, 0.2, 0.3, 0.4]) < CHI2_999[3]


def test_multinomial_second_draw_without_replacement_matches_torch_probability():
    # P(second = 0) for weights (1, 2, 3, 4): sum over first j != 0 of p_j * 1 / (10 - w_j)
    p = np.array([1, 2, 3, 4]) / 10
    expected = sum(p[j] * 1 / (10 - 10 * p[j]) for j in (1, 2, 3))
    seconds = fg.multinomial(fg.tensor([[1.0, 2.0, 3.0, 4.0]] * 20000), 2).detach().numpy()[:, 1]
    assert abs(np.mean(seconds == 0) - expected) < 0.01


@pytest.mark.parametrize("weights, samples, replacement", [
    ([1.0, -1.0], 1, False), ([0.0, 0.0], 1, True), ([1.0, 0.0, 0.0], 2, False),
    ([float("nan"), 1.0], 1, True)])
def test_multinomial_refuses_bad_weights(weights, samples, replacement):
    with pytest.raises(RuntimeError, match="multinomial"):
        fg.multinomial(fg.tensor(weights), samples, replacement)


def test_bernoulli_frequency_and_dtype():
    p = fg.tensor([0.1, 0.5, 0.9], dtype=fg.float64)
    draws = fg.bernoulli(p.expand(N, 3)).detach().numpy()
    assert fg.bernoulli(p).dtype == fg.float64 and set(np.unique(draws)) <= {0.0, 1.0}
    np.testing.assert_allclose(draws.mean(axis=0), [0.1, 0.5, 0.9], atol=0.01)
    assert abs(fg.bernoulli(fg.zeros(N), 0.3).detach().numpy().mean() - 0.3) < 0.01
    with pytest.raises(RuntimeError, match="\\[0, 1\\]"):
        fg.bernoulli(fg.tensor([1.5]))


def test_normal_forms_and_moments():
    mean, std = fg.tensor([0.0, 10.0]), fg.tensor([1.0, 0.1])
    draws = np.stack([fg.normal(mean, std).detach().numpy() for _ in range(5000)])
    np.testing.assert_allclose(draws.mean(axis=0), [0, 10], atol=0.05)
    np.testing.assert_allclose(draws.std(axis=0), [1, 0.1], rtol=0.05)
    assert fg.normal(mean, 2.0).shape == (2,) and fg.normal(1.0, std).shape == (2,)
    z = fg.normal(3.0, 2.0, (N,)).detach().numpy()
    assert abs(z.mean() - 3) < 0.05 and abs(z.std() - 2) < 0.05
    assert fg.normal(fg.zeros(2, dtype=fg.float64), 1.0).dtype == fg.float64


def test_poisson_mean_and_variance():
    draws = fg.poisson(fg.full((N,), 4.0)).detach().numpy()
    assert abs(draws.mean() - 4) < 0.05 and abs(draws.var() - 4) < 0.15
    assert fg.poisson(fg.ones(2)).dtype == fg.float32


def test_inplace_samplers_fill_with_the_right_distributions():
    u = fg.empty(N).uniform_(-2, 3).detach().numpy()
    assert u.min() >= -2 and u.max() < 3 and abs(u.mean() - 0.5) < 0.05
    z = fg.empty(N).normal_(1.0, 0.5).detach().numpy()
    assert abs(z.mean() - 1) < 0.01 and abs(z.std() - 0.5) < 0.01
    e = fg.empty(N).exponential_(2.0).detach().numpy()
    assert e.min() >= 0 and abs(e.mean() - 0.5) < 0.01
    b = fg.empty(N).bernoulli_(0.25).detach().numpy()
    assert abs(b.mean() - 0.25) < 0.01
    r = fg.zeros(N, dtype=fg.int64).random_(3, 7).detach().numpy()
    assert chi_square(np.bincount(r - 3, minlength=4), [0.25] * 4) < CHI2_999[3]
    assert fg.zeros(5).random_(4).detach().numpy().max() < 4


def test_inplace_sampler_on_a_leaf_that_requires_grad_needs_no_grad():
    w = fg.zeros(3, requires_grad=True)
    with pytest.raises(RuntimeError, match="no_grad"):
        w.uniform_()
    with fg.no_grad():
        w.uniform_()
    assert w.requires_grad and w.detach().numpy().max() > 0


def test_inplace_sampler_cuts_the_gradient_through_a_non_leaf():
    x, t = fg.ones(3, requires_grad=True), torch.ones(3, requires_grad=True)
    y, s = x * 2, t * 2
    y.normal_()
    s.normal_()
    (y * x).sum().backward()
    (s * t).sum().backward()
    # d/dx of (sample * x) is the sample (the sample itself depends on nothing)
    np.testing.assert_allclose(x.grad.detach().numpy(), y.detach().numpy(), rtol=1e-6)
    assert s.grad_fn is not None and y.grad_fn is not None


def test_random_dtypes_follow_torch():
    pairs = [(fg.randint(3, (2,)), torch.randint(3, (2,))), (fg.rand(2), torch.rand(2)),
             (fg.randperm(3), torch.randperm(3)),
             (fg.multinomial(fg.ones(3), 1), torch.multinomial(torch.ones(3), 1)),
             (fg.randn(2, dtype=fg.float64), torch.randn(2, dtype=torch.float64))]
    for ours, theirs in pairs:
        assert str(ours.dtype).split(".")[1] == str(theirs.dtype).split(".")[1]
