"""Focused tests of the small fixes the scripts of round 7 (tests/pytorch_scripts) brought in."""
import pytest

import fluxgrad as fg


@pytest.mark.parametrize("make", [fg.zeros, fg.ones, fg.empty, fg.rand, fg.randn])
def test_factories_take_the_size_as_a_keyword_as_torch(make):
    assert make(size=(2, 3)).shape == (2, 3)
    assert make(size=[4]).shape == (4,)
    assert make(2, 3).shape == make((2, 3)).shape == (2, 3)


@pytest.mark.parametrize("make", [fg.zeros, fg.rand])
def test_a_size_given_twice_is_refused_with_type_error(make):
    with pytest.raises(TypeError, match="both positionally"):
        make(2, size=(2,))


def test_distribution_modules_import_by_torch_paths():
    from fluxgrad.distributions.categorical import Categorical
    from fluxgrad.distributions.one_hot_categorical import OneHotCategoricalStraightThrough
    import fluxgrad.distributions.multivariate_normal as mvn
    assert Categorical is fg.distributions.Categorical
    assert OneHotCategoricalStraightThrough is fg.distributions.OneHotCategoricalStraightThrough
    assert mvn.MultivariateNormal is fg.distributions.MultivariateNormal
    assert fg.distributions.normal.Normal is fg.distributions.Normal
