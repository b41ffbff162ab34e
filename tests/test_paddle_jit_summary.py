"""PaddlePaddle's `jit.save` / `jit.load` (fluxgrad's file pair, a TranslatedLayer that computes
as the saved layer), `summary` and `flops` (LeNet's counts as Paddle's documentation prints
them: 61,610 parameters, 347,560 flops)."""
import numpy as np
import pytest

import fluxgrad as fg
from fluxgrad import nn, static


class LeNet(nn.Layer):
    def __init__(self):
        super().__init__()
        self.features = nn.Sequential(nn.Conv2D(1, 6, 3, stride=1, padding=1), nn.ReLU(),
                                      nn.MaxPool2D(2, 2), nn.Conv2D(6, 16, 5), nn.ReLU(),
                                      nn.MaxPool2D(2, 2))
        self.fc = nn.Sequential(nn.Linear(400, 120), nn.Linear(120, 84), nn.Linear(84, 10))

    def forward(self, x):
        return self.fc(fg.flatten(self.features(x), 1))


def _net():
    return nn.Sequential(nn.Linear(4, 8), nn.BatchNorm1d(8), nn.ReLU(), nn.Dropout(0.3),
                         nn.Linear(8, 2))


def test_a_saved_and_loaded_layer_computes_as_the_layer_in_eval_mode(tmp_path):
    net = _net()
    net(fg.randn(6, 4))  # moves the running statistics away from their start
    path = str(tmp_path / "sub" / "model")
    fg.jit.save(net, path, input_spec=[static.InputSpec([None, 4], "float32", "x")])
    assert (tmp_path / "sub" / "model.pdmodel").exists()
    assert (tmp_path / "sub" / "model.pdiparams").exists()
    assert net.training and fg.in_dynamic_mode() and type(net[0].weight) is nn.Parameter
    loaded = fg.jit.load(path)
    x = fg.randn(3, 4)
    net.eval()
    np.testing.assert_allclose(loaded(x).numpy(), net(x).detach().numpy(), rtol=1e-6)
    np.testing.assert_allclose(loaded(fg.randn(7, 4)).shape, [7, 2])
    assert set(loaded.state_dict()) == {k for k in net.state_dict()
                                        if not k.endswith("num_batches_tracked")}
    np.testing.assert_array_equal(loaded.state_dict()["4.bias"].detach().numpy(),
                                  net[4].bias.detach().numpy())


def test_a_loaded_layer_computes_with_its_state_dict_values(tmp_path):
    net = nn.Linear(3, 2)
    fg.jit.save(net, str(tmp_path / "m"), input_spec=[fg.zeros(2, 3)])
    loaded = fg.jit.load(str(tmp_path / "m"))
    with fg.no_grad():
        loaded.state_dict()["bias"].fill_(5.0)
    out = loaded(fg.zeros(2, 3))
    np.testing.assert_array_equal(out.numpy(), np.full((2, 2), 5.0, np.float32))


def test_a_layer_with_two_inputs_and_two_outputs_round_trips(tmp_path):
    class Two(nn.Layer):
        def __init__(self):
            super().__init__()
            self.a = nn.Linear(2, 2)

        def forward(self, x, y):
            return self.a(x) + y, fg.tanh(y)

    net = Two()
    specs = [static.InputSpec([None, 2], "float32", "x"), static.InputSpec([None, 2], "float32",
                                                                          "y")]
    fg.jit.save(net, str(tmp_path / "two"), input_spec=specs)
    loaded = fg.jit.load(str(tmp_path / "two"))
    x, y = fg.randn(3, 2), fg.randn(3, 2)
    got = loaded(x, y)
    want = net(x, y)
    assert isinstance(got, tuple) and len(got) == 2
    for g, w in zip(got, want):
        np.testing.assert_allclose(g.numpy(), w.detach().numpy(), rtol=1e-6)
    with pytest.raises(TypeError, match="2 inputs"):
        loaded(x)


def test_save_refuses_a_missing_input_spec_and_a_function(tmp_path):
    with pytest.raises(ValueError, match="input_spec"):
        fg.jit.save(nn.Linear(2, 2), str(tmp_path / "m"))
    with pytest.raises(TypeError, match="Layer"):
        fg.jit.save(lambda x: x, str(tmp_path / "m"), input_spec=[fg.zeros(2)])


def test_summary_prints_the_table_and_counts_lenets_parameters(capsys):
    net = LeNet()
    for p in net.fc[2].parameters():
        p.stop_gradient = True
    info = fg.summary(net, (1, 1, 28, 28))
    assert info == {"total_params": 61610, "trainable_params": 61610 - 850}
    text = capsys.readouterr().out
    assert "[1, 16, 10, 10]" in text and "48,120" in text and "Total params: 61,610" in text
    assert net.training


def test_summary_takes_several_input_sizes_and_input_tensors(capsys):
    class Add(nn.Layer):
        def __init__(self):
            super().__init__()
            self.lin = nn.Linear(3, 3)

        def forward(self, x, y):
            return self.lin(x) + y
    assert fg.summary(Add(), [(2, 3), (2, 3)])["total_params"] == 12
    assert fg.summary(Add(), input=[fg.zeros(2, 3), fg.zeros(2, 3)])["total_params"] == 12
    with pytest.raises(ValueError, match="input_size"):
        fg.summary(Add())


def test_flops_counts_lenet_as_paddle(capsys):
    assert fg.flops(LeNet(), [1, 1, 28, 28]) == 347560
    assert "Total Flops: 347560" in capsys.readouterr().out
    count = fg.flops(nn.Sequential(nn.Linear(3, 4), nn.Tanh()), [2, 3],
                     custom_ops={nn.Tanh: lambda m, args, out: out.numel()})
    assert count == 2 * 4 * 3 + 2 * 4
