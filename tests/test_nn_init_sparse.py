"""nn.init.sparse_, calculate_gain and PyTorch's private fan helpers that user code calls."""
import math

import pytest

import fluxgrad
import fluxgrad.nn as nn


def test_sparse_zeroes_the_same_count_in_every_column():
    fluxgrad.manual_seed(0)
    w = nn.init.sparse_(fluxgrad.empty(10, 7), sparsity=0.25, std=0.5)
    zeros = (w == 0).sum(dim=0)
    assert zeros.tolist() == [math.ceil(0.25 * 10)] * 7
    assert 0.2 < float(w[w != 0].std()) < 0.8


def test_sparse_refuses_other_than_two_dimensions():
    with pytest.raises(ValueError, match="2-d"):
        nn.init.sparse_(fluxgrad.empty(3, 4, 5), sparsity=0.1)


def test_private_fan_helpers_match_pytorch():
    torch = pytest.importorskip("torch")
    for shape in [(30, 20), (6, 4, 3, 5)]:
        ours = nn.init._calculate_fan_in_and_fan_out(fluxgrad.empty(*shape))
        assert ours == torch.nn.init._calculate_fan_in_and_fan_out(torch.empty(*shape))
        for mode in ("fan_in", "fan_out"):
            assert nn.init._calculate_correct_fan(fluxgrad.empty(*shape), mode) == \
                torch.nn.init._calculate_correct_fan(torch.empty(*shape), mode)


def test_calculate_gain_values_and_types_match_pytorch():
    torch = pytest.importorskip("torch")
    for name in ("linear", "conv2d", "sigmoid", "tanh", "relu", "leaky_relu", "selu"):
        ours, theirs = nn.init.calculate_gain(name), torch.nn.init.calculate_gain(name)
        assert ours == theirs and type(ours) is type(theirs)
