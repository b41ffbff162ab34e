"""SyncBatchNorm in one process: batch norm over any [N, C, ...], and the conversion."""
import numpy as np
import pytest

import fluxgrad as fg
import fluxgrad.nn as nn

torch = pytest.importorskip("torch")


@pytest.mark.parametrize("shape", [(4, 3), (4, 3, 5), (2, 3, 2, 2), (2, 3, 2, 1, 2)])
def test_sync_batchnorm_normalises_and_tracks_like_torch_in_one_process(shape):
    x = np.random.default_rng(0).standard_normal(shape).astype(np.float32)
    ours, theirs = nn.SyncBatchNorm(3, momentum=0.2), torch.nn.SyncBatchNorm(3, momentum=0.2)
    np.testing.assert_allclose(ours(fg.tensor(x)).detach().numpy(),
                               theirs(torch.tensor(x)).detach().numpy(), atol=1e-5)
    np.testing.assert_allclose(ours.running_var.numpy(), theirs.running_var.numpy(), rtol=1e-5)


def test_sync_batchnorm_refuses_input_without_a_channel_axis():
    with pytest.raises(ValueError, match="at least 2D"):
        nn.SyncBatchNorm(3)(fg.ones(3))


def test_convert_sync_batchnorm_keeps_the_parameters_statistics_and_mode():
    model = nn.Sequential(nn.Linear(2, 3), nn.BatchNorm1d(3))
    model[1].running_mean.fill_(2.0)
    model.eval()
    weight = model[1].weight
    converted = nn.SyncBatchNorm.convert_sync_batchnorm(model)
    assert converted is model and type(model[1]) is nn.SyncBatchNorm
    assert model[1].weight is weight and model[1].running_mean.tolist() == [2.0] * 3
    assert not model[1].training
    alone = nn.SyncBatchNorm.convert_sync_batchnorm(nn.BatchNorm2d(4, affine=False))
    assert type(alone) is nn.SyncBatchNorm and alone.weight is None
