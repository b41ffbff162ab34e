"""optim.swa_utils: AveragedModel's running mean and EMA, SWALR's annealing and update_bn,
against closed forms and PyTorch."""
import numpy as np
import pytest

import fluxgrad
from fluxgrad.optim.swa_utils import (SWALR, AveragedModel, get_ema_avg_fn, get_ema_multi_avg_fn,
                                      update_bn)

torch = pytest.importorskip("torch")


def linear_with(value):
    layer = fluxgrad.nn.Linear(2, 1)
    with fluxgrad.no_grad():
        layer.weight.fill_(value)
        layer.bias.fill_(-value)
    return layer


def test_averaged_model_is_the_running_mean():
    model = linear_with(0.0)
    averaged = AveragedModel(model)
    for value in (1.0, 2.0, 6.0):
        with fluxgrad.no_grad():
            model.weight.fill_(value)
            model.bias.fill_(-value)
        averaged.update_parameters(model)
    np.testing.assert_allclose(averaged.module.weight.detach().numpy(), [[3.0, 3.0]])
    np.testing.assert_allclose(averaged.module.bias.detach().numpy(), [-3.0])
    assert int(averaged.n_averaged) == 3


@pytest.mark.parametrize("kind", ["avg_fn", "multi_avg_fn"])
def test_ema_starts_from_a_copy_then_decays(kind):
    model = linear_with(1.0)
    fn = dict(avg_fn=get_ema_avg_fn(0.9)) if kind == "avg_fn" else \
        dict(multi_avg_fn=get_ema_multi_avg_fn(0.9))
    ema = AveragedModel(model, **fn)
    ema.update_parameters(model)
    with fluxgrad.no_grad():
        model.weight.fill_(11.0)
    ema.update_parameters(model)
    np.testing.assert_allclose(ema.module.weight.detach().numpy(), [[2.0, 2.0]], rtol=1e-6)


def test_buffers_are_copied_unless_use_buffers():
    model = fluxgrad.nn.BatchNorm1d(2)
    copied, averaged = AveragedModel(model), AveragedModel(model, use_buffers=True)
    for value in (2.0, 4.0):
        with fluxgrad.no_grad():
            model.running_mean.fill_(value)
        copied.update_parameters(model)
        averaged.update_parameters(model)
    np.testing.assert_allclose(copied.module.running_mean.numpy(), [4.0, 4.0])
    np.testing.assert_allclose(averaged.module.running_mean.numpy(), [3.0, 3.0])


@pytest.mark.parametrize("strategy, epochs", [("cos", 3), ("linear", 4), ("cos", 0)])
def test_swalr_matches_pytorch(strategy, epochs):
    lrs = []
    for m in (fluxgrad, torch):
        opt = m.optim.SGD([m.nn.Parameter(m.zeros(1)), ], lr=0.5)
        scheduler = m.optim.swa_utils.SWALR(opt, swa_lr=0.05, anneal_epochs=epochs,
                                            anneal_strategy=strategy)
        seen = [opt.param_groups[0]["lr"]]
        for _ in range(6):
            opt.step()
            scheduler.step()
            seen.append(opt.param_groups[0]["lr"])
        lrs.append(seen)
    np.testing.assert_allclose(lrs[0], lrs[1], rtol=1e-12)


def test_swalr_refuses_an_unknown_strategy():
    opt = fluxgrad.optim.SGD([fluxgrad.nn.Parameter(fluxgrad.zeros(1))], lr=0.5)
    with pytest.raises(ValueError, match="anneal_strategy"):
        SWALR(opt, swa_lr=0.1, anneal_strategy="exp")
    assert "swa_lr" not in opt.param_groups[0]


def test_update_bn_recomputes_the_statistics_of_the_data():
    data = np.random.default_rng(0).standard_normal((12, 3)).astype(np.float32)
    model = fluxgrad.nn.Sequential(fluxgrad.nn.BatchNorm1d(3))
    model.eval()
    loader = fluxgrad.utils.data.DataLoader(
        fluxgrad.utils.data.TensorDataset(fluxgrad.tensor(data)), batch_size=4)
    update_bn(loader, model)
    batches = data.reshape(3, 4, 3)
    np.testing.assert_allclose(model[0].running_mean.numpy(), batches.mean(1).mean(0), rtol=1e-5)
    np.testing.assert_allclose(model[0].running_var.numpy(), batches.var(1, ddof=1).mean(0),
                               rtol=1e-5)
    assert model[0].momentum == 0.1 and not model.training
