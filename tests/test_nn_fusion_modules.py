"""nn.utils.fusion folds an eval-mode BatchNorm into the layer before it (outputs unchanged,
PyTorch's fused weights); nn.modules gives the layers PyTorch's submodule paths."""
import numpy as np
import pytest

import fluxgrad
import fluxgrad.nn as nn
from fluxgrad.nn.utils.fusion import fuse_conv_bn_eval, fuse_linear_bn_eval

torch = pytest.importorskip("torch")


def filled(make, seed):
    """The same layers in fluxgrad and PyTorch with the same random parameters and running
    statistics, in eval mode."""
    pairs = []
    for m in (fluxgrad, torch):
        rng = np.random.default_rng(seed)
        layers = make(m)
        for layer in layers:
            with m.no_grad():
                for p in layer.parameters():
                    p.copy_(m.tensor(rng.uniform(-0.5, 0.5, tuple(p.shape)).astype(np.float32)))
                if isinstance(layer, m.nn.BatchNorm2d) or isinstance(layer, m.nn.BatchNorm1d):
                    layer.running_mean.copy_(m.tensor(rng.uniform(-1, 1, layer.num_features)
                                                      .astype(np.float32)))
                    layer.running_var.copy_(m.tensor(rng.uniform(0.5, 2, layer.num_features)
                                                     .astype(np.float32)))
            layer.eval()
        pairs.append(layers)
    return pairs


@pytest.mark.parametrize("make, fuse, shape", [
    (lambda m: (m.nn.Conv2d(3, 4, 3), m.nn.BatchNorm2d(4)), "conv", (2, 3, 5, 5)),
    (lambda m: (m.nn.Conv2d(3, 4, 3, bias=False), m.nn.BatchNorm2d(4)), "conv", (2, 3, 5, 5)),
    (lambda m: (m.nn.ConvTranspose2d(4, 2, 3, stride=2), m.nn.BatchNorm2d(2)), "deconv",
     (1, 4, 3, 3)),
    (lambda m: (m.nn.Linear(3, 5), m.nn.BatchNorm1d(5)), "linear", (4, 3)),
])
def test_fused_layer_matches_pytorchs_and_computes_bn_of_layer(make, fuse, shape):
    (layer, bn), (t_layer, t_bn) = filled(make, 0)
    x = np.random.default_rng(1).standard_normal(shape).astype(np.float32)
    if fuse == "linear":
        ours, theirs = fuse_linear_bn_eval(layer, bn), \
            torch.nn.utils.fusion.fuse_linear_bn_eval(t_layer, t_bn)
    else:
        transpose = fuse == "deconv"
        ours = fuse_conv_bn_eval(layer, bn, transpose=transpose)
        theirs = torch.nn.utils.fusion.fuse_conv_bn_eval(t_layer, t_bn, transpose=transpose)
    np.testing.assert_allclose(ours.weight.detach().numpy(), theirs.weight.detach().numpy(),
                               rtol=1e-6, atol=1e-7)
    np.testing.assert_allclose(ours.bias.detach().numpy(), theirs.bias.detach().numpy(),
                               rtol=1e-6, atol=1e-7)
    np.testing.assert_allclose(ours(fluxgrad.tensor(x)).detach().numpy(),
                               bn(layer(fluxgrad.tensor(x))).detach().numpy(), rtol=1e-5,
                               atol=1e-5)


def test_fusion_refuses_training_mode_and_changes_nothing():
    conv, bn = nn.Conv2d(1, 2, 1), nn.BatchNorm2d(2)
    before = conv.weight.detach().clone()
    with pytest.raises(AssertionError, match="eval"):
        fuse_conv_bn_eval(conv, bn)
    assert fluxgrad.equal(conv.weight, before) and conv.training


def test_modules_paths_name_the_same_classes():
    from fluxgrad.nn.modules.batchnorm import _BatchNorm
    from fluxgrad.nn.modules.utils import _pair, _triple
    assert isinstance(nn.BatchNorm1d(2), _BatchNorm) and isinstance(nn.BatchNorm3d(2), _BatchNorm)
    assert nn.modules.linear.Linear is nn.Linear and nn.modules.module.Module is nn.Module
    assert isinstance(nn.Conv1d(1, 1, 1), nn.modules.conv._ConvNd)
    assert _pair(3) == (3, 3) and _triple([1, 2, 3]) == (1, 2, 3)


def test_weighted_loss_registers_its_weight_as_a_buffer():
    from fluxgrad.nn.modules.loss import _WeightedLoss
    loss = _WeightedLoss(fluxgrad.tensor([1.0, 2.0]), reduction="sum")
    assert list(loss.state_dict()) == ["weight"] and loss.reduction == "sum"
