"""Rough edges a newcomer meets (issue 15): dtype mismatches PyTorch refuses, class-target
dtypes, the viz command without Graphviz, the demo's progress bar, and vgg11's initial weights."""
import numpy as np
import pytest
import torch

import fluxgrad as fg
import fluxgrad.nn.functional as F

RNG = np.random.default_rng(0)


def _raises_like_torch(ours, theirs, *words):
    with pytest.raises(RuntimeError):
        theirs()
    with pytest.raises(RuntimeError) as err:
        ours()
    for word in words:
        assert word in str(err.value)


def test_float64_data_into_a_float32_linear_raises_as_in_torch():
    data = RNG.standard_normal((2, 3))
    fg.manual_seed(0)
    _raises_like_torch(lambda: fg.nn.Linear(3, 2)(fg.tensor(data)),
                       lambda: torch.nn.Linear(3, 2)(torch.tensor(data)),
                       "linear", "float64", "float32", ".float()")


def test_matmul_of_float32_and_float64_raises_as_in_torch():
    a, b = RNG.standard_normal((2, 3)), RNG.standard_normal((3, 4))
    _raises_like_torch(lambda: fg.tensor(a, dtype=fg.float32) @ fg.tensor(b),
                       lambda: torch.tensor(a, dtype=torch.float32) @ torch.tensor(b),
                       "matmul", "float32", "float64")


def test_linear_with_a_float64_bias_raises_as_in_torch():
    x, w, b = np.ones((2, 3)), np.ones((4, 3)), np.ones(4)
    _raises_like_torch(
        lambda: F.linear(fg.tensor(x, dtype=fg.float32), fg.tensor(w, dtype=fg.float32),
                         fg.tensor(b)),
        lambda: torch.nn.functional.linear(torch.tensor(x, dtype=torch.float32),
                                           torch.tensor(w, dtype=torch.float32), torch.tensor(b)),
        "bias", "float64")


@pytest.mark.parametrize("name", ["conv2d", "conv_transpose2d", "conv1d"])
def test_conv_with_mismatched_floating_dtypes_raises_as_in_torch(name):
    shape = (1, 1, 5, 5) if name != "conv1d" else (1, 1, 5)
    x, w = np.ones(shape), np.ones(shape[:2] + (2,) * (len(shape) - 2))
    _raises_like_torch(
        lambda: getattr(F, name)(fg.tensor(x), fg.tensor(w, dtype=fg.float32)),
        lambda: getattr(torch.nn.functional, name)(torch.tensor(x),
                                                   torch.tensor(w, dtype=torch.float32)),
        "float64", "float32")


@pytest.mark.parametrize("name", ["conv1d", "conv2d", "conv3d", "conv_transpose3d"])
def test_conv_with_a_float64_bias_raises_as_in_torch(name):
    dims = {"1d": 1, "2d": 2, "3d": 3}[name[-2:]]
    x, w, b = np.ones((1, 1) + (4,) * dims), np.ones((1, 1) + (2,) * dims), np.ones(1)
    f32 = {"ours": lambda a: fg.tensor(a, dtype=fg.float32),
           "torch": lambda a: torch.tensor(a, dtype=torch.float32)}
    _raises_like_torch(
        lambda: getattr(F, name)(f32["ours"](x), f32["ours"](w), fg.tensor(b)),
        lambda: getattr(torch.nn.functional, name)(f32["torch"](x), f32["torch"](w),
                                                   torch.tensor(b)),
        "bias", "float64", "float32")


def test_matching_dtypes_still_multiply_and_python_data_still_promotes():
    a = RNG.standard_normal((2, 3)).astype(np.float32)
    out = fg.tensor(a) @ [[1.0], [2.0], [3.0]]
    np.testing.assert_allclose(out.numpy(), a @ np.array([[1.0], [2.0], [3.0]]), rtol=1e-6)


@pytest.mark.parametrize("loss", ["cross_entropy", "nll_loss"])
def test_int32_class_targets_raise_as_in_torch(loss):
    logits, labels = RNG.standard_normal((3, 4)), np.array([1, 2, 3], np.int32)
    _raises_like_torch(lambda: getattr(F, loss)(fg.tensor(logits), fg.tensor(labels)),
                       lambda: getattr(torch.nn.functional, loss)(torch.tensor(logits),
                                                                  torch.tensor(labels)),
                       "int32", ".long()")


def test_int64_and_uint8_class_targets_match_torch():
    logits = RNG.standard_normal((3, 4))
    for dtype in (np.int64, np.uint8):
        labels = np.array([1, 0, 3], dtype)
        ours = F.cross_entropy(fg.tensor(logits), fg.tensor(labels))
        theirs = torch.nn.functional.cross_entropy(torch.tensor(logits), torch.tensor(labels))
        np.testing.assert_allclose(ours.item(), theirs.item(), rtol=1e-12)


def test_paddles_n_by_1_int64_labels_are_still_accepted():
    logits, labels = RNG.standard_normal((3, 4)), np.array([1, 0, 3])
    ours = F.cross_entropy(fg.tensor(logits), fg.tensor(labels[:, None]))
    theirs = torch.nn.functional.cross_entropy(torch.tensor(logits), torch.tensor(labels))
    np.testing.assert_allclose(ours.item(), theirs.item(), rtol=1e-12)


def _z_picture():
    x = fg.tensor([1.0, 2.0], requires_grad=True)
    y = fg.tensor([3.0, 4.0], requires_grad=True)
    z = x ** 2 + 4 * y
    z.sum().backward(retain_graph=True)
    return fg.viz.draw(z, params={"x": x, "y": y})


def test_viz_command_without_dot_writes_dot_text_and_says_how_to_render(tmp_path, monkeypatch,
                                                                        capsys):
    from fluxgrad.viz import _graph
    from fluxgrad.viz.__main__ import main
    monkeypatch.setattr(_graph, "find_dot", lambda: None)
    with pytest.raises(SystemExit) as exit_:
        main([str(tmp_path / "out.png")])
    assert exit_.value.code == 1
    assert not (tmp_path / "out.png").exists()
    text = (tmp_path / "out.dot").read_text()
    assert text.startswith("digraph") and "PowBackward" in text and "cluster_legend" in text
    said = capsys.readouterr().err
    assert f"dot -Tpng {tmp_path / 'out.dot'} -o {tmp_path / 'out.png'}" in said
    assert "apt-get install graphviz" in said


def test_pictures_get_a_legend_of_exactly_the_styles_they_use():
    import re
    from fluxgrad.viz import _graph
    g = _z_picture()
    assert "legend" not in g.source
    legend = g.to_dot(legend=True).split("subgraph cluster_legend", 1)[1]
    entries = set(re.findall(r"^\s*legend_(\w+) \[label", legend, re.M))
    # x and y are leaves, 2 and 4 constants, z and the products plain tensors; nothing stopped
    assert entries == {"leaf", "tensor", "const", "op", "backward", "accumulate"}
    for name in entries:
        assert _graph._LEGEND_NODES[name] in legend and _graph._STYLE[name] in legend
    assert {"forward data", "gradient", "tensor to its node"} <= set(
        re.findall(r'label="([^"]+)", minlen', legend))


def test_a_picture_without_backward_has_no_backward_entries_in_its_legend():
    x = fg.tensor([1.0, 2.0], requires_grad=True)
    legend = fg.viz.draw(x * 3, backward=False).to_dot(legend=True)
    assert "legend_op" in legend and "legend_backward" not in legend
    assert "gradient" not in legend


def _demo_module():
    import importlib.util
    import os
    root = os.path.dirname(os.path.dirname(os.path.abspath(fg.__file__)))
    spec = importlib.util.spec_from_file_location(
        "train_digits", os.path.join(root, "examples", "train_digits.py"))
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


class _Clock:
    def __init__(self):
        self.now = 100.0

    def __call__(self):
        return self.now


def test_demo_progress_bar_writes_one_line_per_epoch_off_a_terminal_with_elapsed_and_eta():
    import io
    stream, clock = io.StringIO(), _Clock()
    bar = _demo_module().Progress(epochs=2, steps=4, stream=stream, clock=clock)
    for epoch in (1, 2):
        for step in range(1, 5):
            clock.now += 5.0  # 5 s a step: after 4 of 8 steps, 20 s elapsed and 20 s to go
            bar.update(epoch, step, 0.5, 0.75)
        stream.write("  held-out acc 80.00%\n")
    text = stream.getvalue()
    assert "\r" not in text
    first, second = text.splitlines()
    assert first.startswith("epoch  1/2 [########################]   4/4 loss 0.5000 acc 75.00%")
    assert "elapsed 0:20 eta 0:20" in first and "elapsed 0:40 eta 0:00" in second


def test_demo_progress_bar_redraws_in_place_on_a_terminal():
    import io

    class Terminal(io.StringIO):
        def isatty(self):
            return True
    stream, clock = Terminal(), _Clock()
    bar = _demo_module().Progress(epochs=1, steps=3, stream=stream, clock=clock)
    for step in (1, 2, 3):
        clock.now += 2.0
        bar.update(1, step, 1.0, 0.5)
    draws = stream.getvalue().split("\r")[1:]
    assert len(draws) == 3 and "\n" not in stream.getvalue()
    assert "elapsed 0:02 eta 0:04" in draws[0] and "elapsed 0:06 eta 0:00" in draws[2]


def test_vgg11_initial_weights_keep_torchvisions_distributions():
    fg.manual_seed(0)
    model = fg.vision.models.vgg11()
    first, last = model.classifier[0], model.classifier[6]
    assert (first.in_features, first.out_features) == (25088, 4096)
    assert first.weight.shape == (4096, 25088) and last.weight.shape == (1000, 4096)
    for layer in (model.classifier[0], model.classifier[3], last):
        w = layer.weight.detach().numpy()
        assert w.dtype == np.float32 and layer.weight.requires_grad
        assert abs(w.mean()) < 1e-4 and abs(w.std() / 0.01 - 1) < 0.01  # normal(0, 0.01)
        assert not layer.bias.detach().numpy().any()
    conv = model.features[0].weight.detach().numpy()  # kaiming normal, fan_out, relu
    assert abs(conv.std() / np.sqrt(2 / (64 * 9)) - 1) < 0.1
    assert set(dict(model.named_parameters())) >= {"classifier.0.weight", "classifier.6.bias"}


@pytest.mark.parametrize("init, moments", [
    (lambda w: fg.nn.init.uniform_(w, -2.0, 4.0), (1.0, 6 / np.sqrt(12))),
    (lambda w: fg.nn.init.normal_(w, 3.0, 0.5), (3.0, 0.5)),
])
@pytest.mark.parametrize("dtype", [fg.float32, fg.float64, fg.float16])
def test_initialisers_fill_contiguous_and_strided_tensors_with_the_right_moments(init, moments,
                                                                                  dtype):
    base = fg.zeros(400, 500, dtype=dtype)
    for target in (base, base[:, ::2]):
        init(target)
        values = target.numpy().astype(np.float64)
        assert values.dtype == np.float64 and values.std() > 0
        np.testing.assert_allclose([values.mean(), values.std()], moments, rtol=0.02, atol=0.02)
