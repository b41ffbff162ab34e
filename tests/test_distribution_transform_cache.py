"""Transforms' `cache_size` (torch's): with 1, the inverse of the transform's last output is
its input itself, which keeps a tanh-squashed log-density finite and exact near +-1."""
import pytest
import torch

import fluxgrad as fg
from fluxgrad.distributions.transforms import AffineTransform, PowerTransform, TanhTransform


def test_cached_inverse_of_the_last_output_is_the_input_itself():
    t = TanhTransform(cache_size=1)
    x = fg.tensor([0.5, 20.0])
    y = t(x)
    assert t.inv(y) is x and t(x) is y


def test_uncached_inverse_is_computed():
    t = TanhTransform()
    x = fg.tensor([0.5])
    assert t.inv(t(x)) is not x


def test_squashed_log_prob_far_in_the_tail_matches_torch_with_the_cache():
    def log_prob(lib):
        from_lib = lib.distributions
        base = from_lib.Normal(lib.tensor([0.0, 1.0]), lib.tensor([1.0, 2.0]))
        d = from_lib.TransformedDistribution(
            base, [from_lib.transforms.TanhTransform(cache_size=1)])
        u = lib.tensor([9.0, -0.3])
        return d.log_prob(d.transforms[0](u)).tolist()
    assert log_prob(fg) == pytest.approx(log_prob(torch), rel=1e-5)


@pytest.mark.parametrize("make", [lambda: AffineTransform(0.0, 2.0, cache_size=1),
                                  lambda: PowerTransform(2.0, cache_size=1)])
def test_transforms_with_parameters_take_cache_size(make):
    t = make()
    x = fg.tensor([1.5])
    assert t.inv(t(x)) is x


def test_cache_size_other_than_0_or_1_is_refused():
    with pytest.raises(ValueError, match="cache_size must be 0 or 1"):
        TanhTransform(cache_size=2)
