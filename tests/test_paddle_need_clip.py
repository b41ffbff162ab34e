"""PaddlePaddle's ParamAttr(need_clip=False): an optimizer's grad_clip= (nn.ClipGradByNorm,
ClipGradByGlobalNorm, ClipGradByValue) leaves that parameter's gradient alone and out of the
global norm, eagerly, in a compiled step and in a static program's minimize. Expected values
are the clipping formulas in NumPy on the unclipped gradients."""
import numpy as np
import pytest

import fluxgrad as fg
from fluxgrad import nn, static
from fluxgrad.nn import initializer as I

from static_programs import build_program

W0 = np.array([[1.0, -2.0], [0.5, -0.25], [0.0, 3.0]], np.float32)  # Paddle's [in, out]
X = np.random.default_rng(0).standard_normal((4, 3)).astype(np.float32)
CLIPS = {
    "global_norm": lambda: nn.ClipGradByGlobalNorm(1.0),
    "norm": lambda: nn.ClipGradByNorm(1.0),
    "value": lambda: nn.ClipGradByValue(0.5),
}


def _scale(norm, clip_norm=1.0):
    return min(clip_norm / (norm + 1e-6), 1.0)


def _expected_grads(kind, g_w, g_b):
    """The weight's gradient untouched (need_clip=False), the bias's clipped."""
    if kind == "value":
        return g_w, np.clip(g_b, -0.5, 0.5)
    return g_w, g_b * _scale(np.linalg.norm(g_b))  # the global norm counts the bias alone


def _attrs():
    return (fg.ParamAttr(initializer=I.Assign(W0), need_clip=False),
            fg.ParamAttr(initializer=I.Constant(0.3)))


def _unclipped_grads():
    g_w = 10 * np.repeat(X.sum(0)[:, None], 2, axis=1)  # d 10 sum(x @ w + b) / dw
    return g_w, np.full(2, 10.0 * len(X), np.float32)


@pytest.mark.parametrize("kind", list(CLIPS))
def test_eager_grad_clip_skips_a_parameter_with_need_clip_false(kind):
    weight_attr, bias_attr = _attrs()
    layer = nn.Linear(3, 2, weight_attr=weight_attr, bias_attr=bias_attr)
    opt = fg.optimizer.SGD(learning_rate=1.0, parameters=layer.parameters(),
                           grad_clip=CLIPS[kind]())
    (10 * layer(fg.tensor(X)).sum()).backward()
    opt.step()
    g_w, g_b = _expected_grads(kind, *_unclipped_grads())
    np.testing.assert_allclose(layer.weight.detach().numpy().T, W0 - g_w, rtol=1e-5)
    np.testing.assert_allclose(layer.bias.detach().numpy(), 0.3 - g_b, rtol=1e-5)


@pytest.mark.parametrize("kind", list(CLIPS))
def test_compiled_step_grad_clip_skips_a_parameter_with_need_clip_false(kind):
    weight_attr, bias_attr = _attrs()
    layer = nn.Linear(3, 2, weight_attr=weight_attr, bias_attr=bias_attr)
    opt = fg.optimizer.SGD(learning_rate=1.0, parameters=layer.parameters(),
                           grad_clip=CLIPS[kind]())

    @fg.compile
    def step(x):
        opt.clear_grad()
        (10 * layer(x).sum()).backward()
        opt.step()

    step(fg.tensor(X))
    g_w, g_b = _expected_grads(kind, *_unclipped_grads())
    np.testing.assert_allclose(layer.weight.detach().numpy().T, W0 - g_w, rtol=1e-5)
    np.testing.assert_allclose(layer.bias.detach().numpy(), 0.3 - g_b, rtol=1e-5)


@pytest.mark.parametrize("kind", list(CLIPS))
def test_static_minimize_grad_clip_skips_a_parameter_with_need_clip_false(scoped, kind):
    def build():
        x = static.data("x", [4, 3], "float32")
        weight_attr, bias_attr = _attrs()
        weight_attr.name, bias_attr.name = "fc_w", "fc_b"
        y = static.nn.fc(x, 2, weight_attr=weight_attr, bias_attr=bias_attr)
        loss = 10 * fg.sum(y)
        fg.optimizer.SGD(learning_rate=1.0, grad_clip=CLIPS[kind]()).minimize(loss)
        return x, loss
    main, startup, _ = build_program(build)
    exe = static.Executor()
    exe.run(startup)
    exe.run(main, feed={"x": X}, fetch_list=[])
    g_w, g_b = _expected_grads(kind, *_unclipped_grads())
    scope = static.global_scope()
    np.testing.assert_allclose(scope.find_var("fc_w").get_tensor(), W0 - g_w, rtol=1e-5)
    np.testing.assert_allclose(scope.find_var("fc_b").get_tensor(), 0.3 - g_b, rtol=1e-5)


def test_static_minimize_clips_every_parameter_without_need_clip_false(scoped):
    def build():
        x = static.data("x", [4, 3], "float32")
        y = static.nn.fc(x, 2, weight_attr=fg.ParamAttr(name="w", initializer=I.Assign(W0)),
                         bias_attr=fg.ParamAttr(name="b", initializer=I.Constant(0.3)))
        fg.optimizer.SGD(learning_rate=1.0, grad_clip=nn.ClipGradByGlobalNorm(1.0)).minimize(
            10 * fg.sum(y))
        return x, y
    main, startup, _ = build_program(build)
    exe = static.Executor()
    exe.run(startup)
    exe.run(main, feed={"x": X}, fetch_list=[])
    g_w, g_b = _unclipped_grads()
    scale = _scale(np.sqrt((g_w ** 2).sum() + (g_b ** 2).sum()))
    scope = static.global_scope()
    np.testing.assert_allclose(scope.find_var("w").get_tensor(), W0 - scale * g_w, rtol=1e-5)
    np.testing.assert_allclose(scope.find_var("b").get_tensor(), 0.3 - scale * g_b, rtol=1e-5)
