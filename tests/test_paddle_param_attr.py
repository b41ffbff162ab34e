"""PaddlePaddle's ParamAttr, `nn.initializer` classes (Paddle's fan conventions: Linear's weight
is [in, out] to them) and `regularizer.L1Decay` / `L2Decay`, eagerly and in static
`minimize`; expected values from closed forms."""
import math

import numpy as np
import pytest

import fluxgrad as fg
from fluxgrad import nn, static
from fluxgrad.nn import initializer as I
from fluxgrad.regularizer import L1Decay, L2Decay

from static_programs import build_program


def test_assign_sees_linear_weight_as_paddle_lays_it_out():
    value = np.arange(12.0).reshape(3, 4)  # [in, out]
    layer = nn.Linear(3, 4, weight_attr=fg.ParamAttr(initializer=I.Assign(value)),
                      bias_attr=False)
    assert layer.bias is None
    x = np.random.default_rng(0).standard_normal((2, 3)).astype(np.float32)
    np.testing.assert_allclose(layer(fg.tensor(x)).detach().numpy(), x @ value, rtol=1e-6)


def test_kaiming_uniform_of_a_linear_weight_uses_in_features_as_fan_in():
    layer = nn.Linear(10, 2000, weight_attr=I.KaimingUniform())
    bound = math.sqrt(2.0) * math.sqrt(3.0 / 10)  # gain(relu) * sqrt(3 / fan_in)
    w = np.abs(layer.weight.detach().numpy())
    assert w.max() <= bound and w.max() > 0.99 * bound


def test_kaiming_normal_of_a_conv_weight_uses_channels_times_kernel_as_fan_in():
    fg.manual_seed(0)
    conv = nn.Conv2D(4, 500, 3, weight_attr=I.KaimingNormal())
    np.testing.assert_allclose(conv.weight.detach().numpy().std(), math.sqrt(2.0 / (4 * 9)), rtol=0.03)
    fan_out = nn.Conv2D(4, 500, 3, weight_attr=I.KaimingNormal(mode="fan_out"))
    np.testing.assert_allclose(fan_out.weight.detach().numpy().std(), math.sqrt(2.0 / (500 * 9)),
                               rtol=0.03)


def test_xavier_uniform_and_normal_follow_their_closed_forms():
    fg.manual_seed(0)
    w = nn.Linear(30, 1000, weight_attr=I.XavierUniform()).weight.detach().numpy()
    limit = math.sqrt(6.0 / 1030)
    assert np.abs(w).max() <= limit and np.abs(w).max() > 0.99 * limit
    w = nn.Linear(300, 1000, weight_attr=I.XavierNormal(gain=2.0)).weight.detach().numpy()
    np.testing.assert_allclose(w.std(), 2.0 * math.sqrt(2.0 / 1300), rtol=0.02)


def test_constant_normal_uniform_and_truncated_normal():
    fg.manual_seed(0)
    b = nn.Linear(3, 5, bias_attr=fg.ParamAttr(initializer=I.Constant(0.25))).bias.detach().numpy()
    np.testing.assert_array_equal(b, np.full(5, 0.25, np.float32))
    w = nn.Linear(200, 500, weight_attr=I.Normal(1.0, 0.5)).weight.detach().numpy()
    np.testing.assert_allclose([w.mean(), w.std()], [1.0, 0.5], rtol=0.02)
    w = nn.Linear(200, 500, weight_attr=I.Uniform(-0.1, 0.3)).weight.detach().numpy()
    assert w.min() >= -0.1 and w.max() < 0.3 and abs(w.mean() - 0.1) < 0.005
    w = nn.Linear(200, 500, weight_attr=I.TruncatedNormal(0.0, 1.0, a=-0.5, b=1.5)).weight
    assert w.min().item() >= -0.5 and w.max().item() <= 1.5


def test_orthogonal_gives_orthonormal_rows_of_the_paddle_layout():
    layer = nn.Linear(3, 6, weight_attr=I.Orthogonal(gain=2.0))
    paddle_w = layer.weight.detach().numpy().T.astype(np.float64)  # [in, out]
    np.testing.assert_allclose(paddle_w @ paddle_w.T, 4.0 * np.eye(3), atol=1e-5)


def test_dirac_conv_passes_its_input_through():
    conv = nn.Conv2D(3, 3, 3, padding=1, weight_attr=I.Dirac(), bias_attr=False)
    x = np.random.default_rng(1).standard_normal((2, 3, 5, 5)).astype(np.float32)
    np.testing.assert_allclose(conv(fg.tensor(x)).detach().numpy(), x, rtol=1e-6)


def test_paddle_batch_norm_takes_weight_and_bias_attrs():
    bn = nn.BatchNorm2D(3, weight_attr=fg.ParamAttr(initializer=I.Constant(2.0)),
                        bias_attr=I.Constant(0.5))
    np.testing.assert_array_equal(bn.weight.detach().numpy(), [2.0, 2.0, 2.0])
    np.testing.assert_array_equal(bn.bias.detach().numpy(), [0.5, 0.5, 0.5])
    assert nn.BatchNorm1D(3, weight_attr=False).weight is None


def test_param_attr_names_and_freezes_and_bad_attrs_are_refused():
    layer = nn.Linear(2, 3, weight_attr=fg.ParamAttr(name="w0", trainable=False))
    assert layer.weight.name == "w0" and layer.weight.stop_gradient
    assert not layer.bias.stop_gradient
    assert nn.Linear(2, 3, weight_attr="named").weight.name == "named"
    with pytest.raises(ValueError, match="weight_attr=False"):
        nn.Linear(2, 3, weight_attr=False)
    with pytest.raises(ValueError, match="shape"):
        nn.Linear(2, 3, weight_attr=I.Assign(np.zeros((3, 2))))
    with pytest.raises(TypeError, match="regularizer"):
        fg.ParamAttr(regularizer=0.1)
    with pytest.raises(TypeError, match="bias_attr"):
        nn.Linear(2, 3, bias_attr=3)
    with pytest.raises(ValueError, match="coeff"):
        L2Decay(-1.0)


def test_embedding_and_create_parameter_take_an_attr():
    emb = nn.Embedding(4, 3, weight_attr=fg.ParamAttr(initializer=I.Constant(2.0)))
    np.testing.assert_array_equal(emb.weight.detach().numpy(), np.full((4, 3), 2.0, np.float32))
    p = nn.Layer().create_parameter([2, 2], attr=fg.ParamAttr(initializer=I.Constant(3.0)))
    np.testing.assert_array_equal(p.detach().numpy(), np.full((2, 2), 3.0, np.float32))


def _one_step(opt_cls, weight_decay, attr=None, lr=0.1):
    layer = nn.Linear(2, 2, weight_attr=attr or I.Assign([[1.0, -2.0], [0.5, -0.25]]),
                      bias_attr=False)
    w0 = layer.weight.detach().numpy().copy()
    opt = opt_cls(learning_rate=lr, parameters=layer.parameters(), weight_decay=weight_decay)
    layer(fg.ones(1, 2)).sum().backward()
    g = layer.weight.grad.detach().numpy().copy()
    opt.step()
    return w0, g, layer.weight.detach().numpy()


def test_l2_decay_adds_coeff_times_the_parameter_to_the_gradient():
    w0, g, w1 = _one_step(fg.optimizer.SGD, L2Decay(0.5))
    np.testing.assert_allclose(w1, w0 - 0.1 * (g + 0.5 * w0), rtol=1e-6)


def test_l1_decay_adds_coeff_times_the_sign_to_the_gradient():
    w0, g, w1 = _one_step(fg.optimizer.SGD, L1Decay(0.5))
    np.testing.assert_allclose(w1, w0 - 0.1 * (g + 0.5 * np.sign(w0)), rtol=1e-6)
    w0, g, w1 = _one_step(fg.optimizer.Momentum, L1Decay(0.5))
    np.testing.assert_allclose(w1, w0 - 0.1 * (g + 0.5 * np.sign(w0)), rtol=1e-6)


def test_a_parameter_regularizer_replaces_the_optimizer_weight_decay():
    attr = fg.ParamAttr(initializer=I.Assign([[1.0, -2.0], [0.5, -0.25]]),
                        regularizer=L1Decay(0.3))
    w0, g, w1 = _one_step(fg.optimizer.SGD, L2Decay(0.5), attr)
    np.testing.assert_allclose(w1, w0 - 0.1 * (g + 0.3 * np.sign(w0)), rtol=1e-6)


def test_a_parameter_learning_rate_scales_the_optimizer_one():
    attr = fg.ParamAttr(initializer=I.Assign([[1.0, -2.0], [0.5, -0.25]]), learning_rate=0.5)
    w0, g, w1 = _one_step(fg.optimizer.SGD, None, attr, lr=0.2)
    np.testing.assert_allclose(w1, w0 - 0.1 * g, rtol=1e-6)


def test_static_fc_takes_attrs_and_minimize_honours_them(scoped):
    w_init = np.array([[1.0, -2.0], [0.5, -0.25], [0.0, 3.0]], np.float32)

    def build():
        x = static.data("x", [4, 3], "float32")
        attr = fg.ParamAttr(name="fc_w", initializer=I.Assign(w_init), learning_rate=2.0,
                            regularizer=L1Decay(0.1))
        y = static.nn.fc(x, 2, weight_attr=attr, bias_attr=False)
        loss = fg.mean(y)
        fg.optimizer.SGD(learning_rate=0.1, weight_decay=L2Decay(1.0)).minimize(loss)
        return x, loss
    main, startup, _ = build_program(build)
    exe = static.Executor()
    exe.run(startup)
    a = np.random.default_rng(0).standard_normal((4, 3)).astype(np.float32)
    exe.run(main, feed={"x": a}, fetch_list=[])
    g = np.repeat(a.mean(0)[:, None], 2, axis=1) / 2  # d mean(x @ w) / dw
    expected = w_init - 0.2 * (g + 0.1 * np.sign(w_init))
    np.testing.assert_allclose(static.global_scope().find_var("fc_w").get_tensor(), expected,
                               rtol=1e-5)


def test_static_layers_take_param_attr_and_bias_attr(scoped):
    def build():
        img = static.data("img", [1, 1, 3, 3], "float32")
        conv = static.nn.conv2d(img, 2, 2, param_attr=fg.ParamAttr(name="cw",
                                                                  initializer=I.Constant(0.5)),
                                bias_attr=I.Constant(1.0))
        ids = static.data("ids", [3], "int64")
        emb = static.nn.embedding(ids, [4, 2], padding_idx=0, param_attr=I.Constant(2.0))
        x = static.data("x", [2, 4], "float32")
        ln = static.nn.layer_norm(x, param_attr=I.Constant(2.0), bias_attr=I.Constant(0.5))
        bn = static.nn.batch_norm(x, param_attr=I.Constant(3.0), is_test=True)
        return conv, emb, ln, bn
    main, startup, fetches = build_program(build)
    assert main.global_block().var("cw").shape == (2, 1, 2, 2)
    exe = static.Executor()
    exe.run(startup)
    a = np.array([[1.0, 2.0, 3.0, 4.0], [0.0, -1.0, 1.0, 2.0]], np.float32)
    conv, emb, ln, bn = exe.run(main, feed={"img": np.ones((1, 1, 3, 3), np.float32),
                                            "ids": np.array([0, 1, 3]), "x": a},
                                fetch_list=list(fetches))
    np.testing.assert_allclose(conv, np.full((1, 2, 2, 2), 3.0))
    np.testing.assert_array_equal(emb, [[0, 0], [2, 2], [2, 2]])
    normalized = (a - a.mean(1, keepdims=True)) / np.sqrt(a.var(1, keepdims=True) + 1e-5)
    np.testing.assert_allclose(ln, 2.0 * normalized + 0.5, rtol=1e-5)
    np.testing.assert_allclose(bn, 3.0 * a / np.sqrt(1 + 1e-5), rtol=1e-5)


def test_a_compiled_training_step_honours_regularizers_and_learning_rates():
    def make():
        layer = nn.Linear(2, 2, weight_attr=fg.ParamAttr(
            initializer=I.Assign([[1.0, -2.0], [0.5, -0.25]]), learning_rate=0.5),
            bias_attr=fg.ParamAttr(initializer=I.Constant(0.3), regularizer=L2Decay(0.2)))
        opt = fg.optimizer.SGD(learning_rate=0.1, parameters=layer.parameters(),
                               weight_decay=L1Decay(0.5))
        return layer, opt

    def step(layer, opt, x):
        opt.clear_grad()
        (layer(x) ** 2).sum().backward()
        opt.step()

    x = fg.tensor([[1.0, 2.0], [-1.0, 0.5]])
    eager, eager_opt = make()
    compiled, compiled_opt = make()
    w0 = eager.weight.detach().numpy().copy()
    b0 = eager.bias.detach().numpy().copy()
    step(eager, eager_opt, x)
    g_w, g_b = eager.weight.grad.numpy(), eager.bias.grad.numpy()
    np.testing.assert_allclose(eager.weight.detach().numpy(),
                               w0 - 0.05 * (g_w + 0.5 * np.sign(w0)), rtol=1e-6)
    np.testing.assert_allclose(eager.bias.detach().numpy(), b0 - 0.1 * (g_b + 0.2 * b0),
                               rtol=1e-6)
    fg.compile(lambda x: step(compiled, compiled_opt, x), fullgraph=True)(x)
    np.testing.assert_allclose(compiled.weight.detach().numpy(), eager.weight.detach().numpy(),
                               rtol=1e-6)
    np.testing.assert_allclose(compiled.bias.detach().numpy(), eager.bias.detach().numpy(),
                               rtol=1e-6)
