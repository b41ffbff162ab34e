"""A backward pass that records nothing runs on plain arrays (engine.py's plain pass).

Every record that says `array_rules` must give, on arrays, what its rules give on Tensors:
each of its samples is differentiated in float64 and float32 by a plain pass and by a
Tensor pass (`create_graph=True`, whose rules dispatch ops), and the gradients must agree
in shape, dtype and value. The rest checks what the plain pass wraps as Tensors: hooks,
`retain_grad`, `.grad`, `grad()`'s results, custom Functions, and the passes that must
not be plain.
"""
import numpy as np
import pytest

import fluxgrad
from fluxgrad import Tensor
from fluxgrad._core import engine
from fluxgrad._core.primitive import REGISTRY
from samples import all_samples

ARRAY_RULE_SAMPLES = [s for s in all_samples()
                      if s.op in REGISTRY and REGISTRY[s.op].array_rules and not s.in_place]


def test_the_arithmetic_families_run_on_arrays():
    flagged = {name for name, prim in REGISTRY.items() if prim.array_rules}
    assert {"add", "sub", "mul", "div", "neg", "tanh", "exp", "sigmoid"} <= flagged
    assert len(ARRAY_RULE_SAMPLES) >= 50


def _gradients(sample, dtype, create_graph):
    leaves = [Tensor(np.asarray(a, dtype), requires_grad=True) for a in sample.args]
    outs = sample.fn(*leaves)
    outs = [o for o in (outs if isinstance(outs, (tuple, list)) else (outs,))
            if o.is_floating_point() and o.requires_grad]
    rng = np.random.default_rng(1)
    seeds = [Tensor(rng.standard_normal(o.shape).astype(o._data.dtype)) for o in outs]
    grads = fluxgrad.autograd.grad(outs, leaves, seeds, allow_unused=True,
                                   create_graph=create_graph)
    return [None if g is None else g.detach().numpy() for g in grads]


@pytest.mark.parametrize("dtype", [np.float64, np.float32])
@pytest.mark.parametrize("sample", ARRAY_RULE_SAMPLES, ids=repr)
def test_array_rules_give_the_tensor_rules_results(sample, dtype):
    with np.errstate(all="ignore"):
        plain = _gradients(sample, dtype, create_graph=False)
        tensors = _gradients(sample, dtype, create_graph=True)
    tol = 1e-12 if dtype is np.float64 else 1e-5
    for got, want in zip(plain, tensors):
        assert (got is None) == (want is None)
        if got is None:
            continue
        assert got.shape == want.shape and got.dtype == want.dtype
        np.testing.assert_allclose(got, want, rtol=tol, atol=tol, equal_nan=True)


def test_a_plain_pass_dispatches_no_op_for_array_rules(monkeypatch):
    x = fluxgrad.tensor(np.linspace(-1, 1, 5), requires_grad=True)
    w = fluxgrad.tensor(np.full(5, 0.5), requires_grad=True)
    y = ((x * w + 0.5).tanh() - x / w).sum()
    dispatched = []
    real = engine._pullback
    monkeypatch.setattr(engine, "_pullback",
                        lambda node, out_bar: dispatched.append(node.prim.name) or
                        real(node, out_bar))
    y.backward()
    assert dispatched == ["sum"]  # sum's rule broadcasts: it has no array rules
    t = np.tanh(x._data * 0.5 + 0.5)
    np.testing.assert_allclose(x.grad.numpy(), 0.5 * (1 - t * t) - 1 / 0.5, rtol=1e-12)
    np.testing.assert_allclose(w.grad.numpy(), x._data * (1 - t * t) + x._data / 0.25,
                               rtol=1e-12)


def test_hooks_and_retained_grads_see_tensors_in_a_plain_pass():
    x = fluxgrad.tensor([1.0, 2.0], dtype=fluxgrad.float64, requires_grad=True)
    h = x * 3
    h.retain_grad()
    seen = []
    h.register_hook(lambda g: seen.append(type(g)) or g * 2)
    x.register_hook(lambda g: seen.append(type(g)))
    (h * h).sum().backward()
    assert seen == [Tensor, Tensor]
    np.testing.assert_array_equal(h.grad.numpy(), [12.0, 24.0])  # as torch: after the hook
    np.testing.assert_array_equal(x.grad.numpy(), [36.0, 72.0])
    g, = fluxgrad.autograd.grad((x * x).sum(), x)
    assert type(g) is Tensor and g.tolist() == [2.0, 4.0]


def test_gradient_buffers_a_plain_pass_hands_out_are_not_shared():
    x = fluxgrad.tensor([1.0, 2.0], requires_grad=True)
    y = fluxgrad.tensor([3.0, 4.0], requires_grad=True)
    (x + y).sum().backward()  # add's rules hand the same cotangent to both inputs
    x.grad += 1
    assert y.grad.tolist() == [1.0, 1.0]


def test_custom_functions_in_a_plain_pass():
    class Cube(fluxgrad.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            ctx.save_for_backward(x)
            return x ** 3

        @staticmethod
        def backward(ctx, g):
            x, = ctx.saved_tensors
            assert type(g) is Tensor
            return 3 * x * x * g
    x = fluxgrad.tensor([1.0, -2.0], requires_grad=True)
    (Cube.apply(x * 2) * 1.5).sum().backward()
    np.testing.assert_allclose(x.grad.numpy(), 1.5 * 3 * (2 * x._data) ** 2 * 2)


def test_second_order_and_transforms_still_record():
    x = fluxgrad.tensor([0.3, -0.7], dtype=fluxgrad.float64, requires_grad=True)
    g, = fluxgrad.autograd.grad((x * x).tanh().sum(), x, create_graph=True)
    gg, = fluxgrad.autograd.grad(g.sum(), x)
    t = np.tanh(x._data ** 2)
    want = 2 * (1 - t * t) - 8 * x._data ** 2 * t * (1 - t * t)
    np.testing.assert_allclose(gg.numpy(), want, rtol=1e-12)
    per_example = fluxgrad.func.vmap(fluxgrad.func.grad(lambda v: (v * v).tanh().sum()))(
        fluxgrad.tensor([[0.3], [-0.7]], dtype=fluxgrad.float64))
    np.testing.assert_allclose(per_example.numpy().ravel(), 2 * x._data * (1 - t * t),
                               rtol=1e-12)


def test_gradients_of_0d_leaves_are_writable_arrays():
    # NumPy gives scalars, not arrays, for the sum of every element and for 0-d + 0-d
    a = fluxgrad.full((), 0.1, requires_grad=True)
    b = fluxgrad.tensor(2.0, requires_grad=True)
    (a + a * fluxgrad.linspace(0, 1, 5)).sum().backward()
    (b * b + b).backward()
    for leaf, want in ((a, 7.5), (b, 5.0)):
        assert type(leaf.grad._data) is np.ndarray and leaf.grad.shape == ()
        assert leaf.grad.item() == pytest.approx(want)
        leaf.grad.zero_()
        assert leaf.grad.item() == 0.0
