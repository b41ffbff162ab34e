"""nn.utils.parametrize and weight_norm: behaviour the scripts comparison can't show (object
identity, refusals that change nothing); values are compared with PyTorch in
tests/pytorch_scripts/parametrize_utils.py."""
import numpy as np
import pytest

import fluxgrad as fg
import fluxgrad.nn as nn
import fluxgrad.nn.utils.parametrize as parametrize
from fluxgrad.nn.utils.parametrizations import weight_norm


class Symmetric(nn.Module):
    def forward(self, x):
        return x.triu() + x.triu(1).transpose(-1, -2)


def test_the_original_is_the_parameter_the_optimizer_already_holds():
    layer = nn.Linear(2, 2)
    weight = layer.weight
    parametrize.register_parametrization(layer, "weight", Symmetric())
    assert layer.parametrizations.weight.original is weight
    assert type(layer).__name__ == "ParametrizedLinear"
    np.testing.assert_allclose(layer.weight.detach().numpy(), layer.weight.detach().numpy().T)


def test_removing_what_is_not_parametrized_raises_and_changes_nothing():
    layer = nn.Linear(2, 2)
    with pytest.raises(ValueError, match="does not have a parametrization on weight"):
        parametrize.remove_parametrizations(layer, "weight")
    assert type(layer) is nn.Linear and isinstance(layer.weight, nn.Parameter)


def test_removal_restores_the_class_and_a_plain_parameter():
    layer = nn.Linear(2, 2)
    parametrize.register_parametrization(layer, "weight", Symmetric())
    expected = layer.weight.detach().numpy().copy()
    parametrize.remove_parametrizations(layer, "weight")
    assert type(layer) is nn.Linear and not hasattr(layer, "parametrizations")
    assert isinstance(layer.weight, nn.Parameter)
    np.testing.assert_array_equal(layer.weight.detach().numpy(), expected)


def test_weight_norm_with_two_originals_cannot_be_left_unparametrized():
    layer = weight_norm(nn.Linear(3, 2))
    with pytest.raises(ValueError, match="sequence of tensors"):
        parametrize.remove_parametrizations(layer, "weight", leave_parametrized=False)
    assert parametrize.is_parametrized(layer, "weight")


def test_weight_norm_gradients_match_the_closed_form():
    layer = weight_norm(nn.Linear(3, 1, bias=False))
    g, v = layer.parametrizations.weight.original0, layer.parametrizations.weight.original1
    with fg.no_grad():
        g.fill_(2.0)
        v.copy_(fg.tensor([[3.0, 4.0, 0.0]]))
    layer(fg.tensor([[1.0, 1.0, 1.0]])).sum().backward()
    # d/dg of g * (v . x) / |v| is (v . x) / |v| = 7 / 5
    np.testing.assert_allclose(g.grad.numpy(), [[1.4]], rtol=1e-6)
