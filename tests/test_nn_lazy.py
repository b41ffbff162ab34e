"""Lazy layers: sizes read from the first input, the class they become, what they keep."""
import pytest

import fluxgrad as fg
import fluxgrad.nn as nn

torch = pytest.importorskip("torch")
tnn = torch.nn


@pytest.mark.parametrize("name, args, shape", [
    ("LazyConv1d", (5, 2), (2, 3, 6)), ("LazyConv2d", (4, 3), (2, 3, 6, 6)),
    ("LazyConv3d", (2, 2), (1, 3, 4, 4, 4)), ("LazyConvTranspose1d", (2, 2), (2, 3, 5)),
    ("LazyConvTranspose2d", (2, 2), (1, 3, 4, 4)), ("LazyConvTranspose3d", (2, 2), (1, 3, 2, 2, 2)),
    ("LazyBatchNorm1d", (), (4, 3)), ("LazyBatchNorm2d", (), (2, 3, 2, 2)),
    ("LazyBatchNorm3d", (), (2, 3, 2, 2, 2)), ("LazyInstanceNorm1d", (), (2, 3, 4)),
    ("LazyInstanceNorm2d", (), (2, 3, 4, 4)), ("LazyInstanceNorm3d", (), (1, 3, 2, 2, 2)),
    ("LazyLinear", (4,), (2, 7))])
def test_lazy_layer_prints_builds_and_becomes_the_class_torch_makes(name, args, shape):
    ours, theirs = getattr(nn, name)(*args), getattr(tnn, name)(*args)
    assert repr(ours) == repr(theirs)
    ours(fg.ones(*shape))
    theirs(torch.ones(*shape))
    assert type(ours).__name__ == type(theirs).__name__
    assert repr(ours) == repr(theirs)
    assert ({k: tuple(v.shape) for k, v in ours.state_dict().items()}
            == {k: tuple(v.shape) for k, v in theirs.state_dict().items()})


def test_lazy_layer_keeps_its_hooks_and_eval_mode_through_the_first_call():
    layer = nn.LazyBatchNorm1d()
    seen = []
    layer.register_forward_hook(lambda m, args, out: seen.append(type(m).__name__))
    layer.eval()
    out = layer(fg.tensor([[1.0, 2.0], [3.0, 6.0]]))
    assert seen == ["BatchNorm1d"] and not layer.training
    assert out.flatten().tolist() == pytest.approx([1.0, 2.0, 3.0, 6.0], abs=1e-4)  # stats 0, 1


def test_lazy_layer_has_uninitialized_parameters_until_called_and_takes_dtype():
    layer = nn.LazyConv2d(3, 1, dtype=fg.float64)
    params = list(layer.parameters())
    assert len(params) == 2 and layer.has_uninitialized_params()
    assert all(nn.parameter.is_lazy(p) and p.dtype == fg.float64 for p in params)
    layer(fg.ones(1, 2, 3, 3, dtype=fg.float64))
    assert layer.weight.dtype == fg.float64 and layer.weight.shape == (3, 2, 1, 1)
    assert isinstance(layer, nn.Conv2d) and not isinstance(layer, nn.LazyModuleMixin)


@pytest.mark.parametrize("make, shape", [
    (lambda lazy: nn.Linear(5, 3) if not lazy else nn.LazyLinear(3), (2, 5)),
    (lambda lazy: nn.Conv2d(4, 2, 3, groups=2) if not lazy else nn.LazyConv2d(2, 3, groups=2),
     (1, 4, 5, 5)),
    (lambda lazy: nn.ConvTranspose1d(3, 2, 2) if not lazy else nn.LazyConvTranspose1d(2, 2),
     (1, 3, 4)),
    (lambda lazy: nn.BatchNorm1d(3) if not lazy else nn.LazyBatchNorm1d(), (4, 3))])
def test_load_state_dict_builds_a_lazy_layer_for_the_weights_shapes(make, shape):
    trained = make(False)
    model = nn.Sequential(make(True))
    assert repr(model.load_state_dict({"0." + k: v for k, v in trained.state_dict().items()})
                ) == "<All keys matched successfully>"
    assert type(model[0]) is type(trained)
    trained.eval()
    model.eval()
    x = fg.ones(*shape)
    assert fg.equal(model(x), trained(x))
