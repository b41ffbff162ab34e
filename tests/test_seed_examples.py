"""The eager autograd examples of the tutorials in /work/shared/seeds, written with fluxgrad names,
checked against the numbers the tutorials print. (Examples that need nn or optim live with those.)

Seeds: 000 PaddlePaddle's autograd guide, 001 PyTorch's autograd tutorial, 003 OneFlow's
autograd chapter, 004 a chain-rule walk-through (micrograd style).
"""
import numpy as np
import pytest

import fluxgrad


# --- seed 000: PaddlePaddle ------------------------------------------------------------------
def test_paddle_stop_gradient_defaults_and_setter():
    a = fluxgrad.to_tensor([1.0, 2.0, 3.0])
    b = fluxgrad.to_tensor([1.0, 2.0, 3.0], stop_gradient=False)
    assert a.stop_gradient is True
    assert b.stop_gradient is False
    a.stop_gradient = False
    assert a.stop_gradient is False


def test_paddle_backward_of_x_squared_plus_4y():
    x = fluxgrad.to_tensor([1.0, 2.0, 3.0], stop_gradient=False)
    y = fluxgrad.to_tensor([4.0, 5.0, 6.0], stop_gradient=False)
    z = x ** 2 + 4 * y
    z.backward()
    np.testing.assert_array_equal(x.grad.numpy(), [2.0, 4.0, 6.0])
    np.testing.assert_array_equal(y.grad.numpy(), [4.0, 4.0, 4.0])


def test_paddle_backward_with_retain_graph():
    x = fluxgrad.to_tensor([1.0, 2.0, 3.0], stop_gradient=False)
    y = x + 3
    y.backward(retain_graph=True)
    np.testing.assert_array_equal(x.grad.numpy(), [1.0, 1.0, 1.0])


def test_paddle_clear_grad():
    x = np.ones([2, 2], np.float32)
    inputs2 = []
    for _ in range(10):
        tmp = fluxgrad.to_tensor(x)
        tmp.stop_gradient = False
        inputs2.append(tmp)
    ret2 = fluxgrad.add_n(inputs2)
    loss2 = fluxgrad.sum(ret2)
    loss2.retain_grad()  # Paddle 2.0 kept every gradient; fluxgrad, like PyTorch, asks for it
    loss2.backward()
    np.testing.assert_array_equal(loss2.gradient(), 1.0)
    loss2.clear_grad()
    np.testing.assert_array_equal(loss2.gradient(), 0.0)
    for tmp in inputs2:
        np.testing.assert_array_equal(tmp.gradient(), np.ones([2, 2]))


def test_paddle_example_one_gradient_stops_at_stop_gradient():
    a = fluxgrad.to_tensor(2.0, stop_gradient=False)
    b = fluxgrad.to_tensor(5.0, stop_gradient=True)
    c = a * b
    c.backward()
    assert a.grad.item() == 5.0
    assert b.grad is None
    assert type(c.grad_fn).__name__ == "MulBackward"


def test_paddle_example_two_chain_of_products():
    a = fluxgrad.to_tensor(2.0, stop_gradient=False)
    b = fluxgrad.to_tensor(5.0, stop_gradient=False)
    c = a * b
    c.retain_grad()  # Paddle 2.0 printed c's gradient too
    d = fluxgrad.to_tensor(4.0, stop_gradient=False)
    e = c * d
    e.backward()
    assert a.grad.item() == 20.0
    assert b.grad.item() == 8.0
    assert c.grad.item() == 4.0
    assert d.grad.item() == 10.0


# --- seed 001: PyTorch's tutorial ------------------------------------------------------------
def single_layer():
    x = fluxgrad.ones(5)
    w = fluxgrad.randn(5, 3, requires_grad=True)
    b = fluxgrad.randn(3, requires_grad=True)
    return x, w, b


def test_torch_tutorial_grad_fn_and_requires_grad():
    x, w, b = single_layer()
    z = fluxgrad.matmul(x, w) + b
    assert type(z.grad_fn).__name__ == "AddBackward"
    assert z.requires_grad
    assert x.requires_grad is False


def test_torch_tutorial_no_grad_and_detach():
    x, w, b = single_layer()
    z = fluxgrad.matmul(x, w) + b
    assert z.requires_grad is True
    with fluxgrad.no_grad():
        z = fluxgrad.matmul(x, w) + b
    assert z.requires_grad is False
    z = fluxgrad.matmul(x, w) + b
    assert z.detach().requires_grad is False


def test_torch_tutorial_jacobian_product_accumulates():
    inp = fluxgrad.eye(5, requires_grad=True)
    out = (inp + 1).pow(2)
    eye = np.eye(5)
    for call in (1, 2, 3):
        out.backward(fluxgrad.ones_like(inp), retain_graph=True)
        np.testing.assert_array_equal(inp.grad.numpy(), call * (2 + 2 * eye))
    inp.grad.zero_()
    out.backward(fluxgrad.ones_like(inp), retain_graph=True)
    np.testing.assert_array_equal(inp.grad.numpy(), 2 + 2 * eye)


# --- seed 003: OneFlow -----------------------------------------------------------------------
def mse(prediction, target):
    """nn.MSELoss() with its default mean reduction, written out."""
    return ((prediction - target) ** 2).mean()


def test_oneflow_mse_of_x_and_x_squared_plus_x_cubed():
    x = fluxgrad.tensor([1.0, 2.0, 3.0], requires_grad=True)
    y = x * x
    z = x ** 3
    a = y + z
    out = mse(x, a)
    np.testing.assert_allclose(out.item(), 396.6667, atol=1e-4)
    out.backward()
    np.testing.assert_allclose(x.grad.numpy(), [2.6667, 100.0, 704.0], atol=1e-4)


def test_oneflow_detach_changes_the_gradient():
    x = fluxgrad.tensor([1.0, 2.0, 3.0], requires_grad=True)
    y = x * x
    z = x.detach() ** 3
    a = y + z
    out = mse(x, a)
    np.testing.assert_allclose(out.item(), 396.6667, atol=1e-4)
    out.backward()
    np.testing.assert_allclose(x.grad.numpy(), [0.6667, 20.0, 110.0], atol=1e-4)


def test_oneflow_autograd_grad_with_retain_graph():
    x = fluxgrad.tensor(2.0, requires_grad=True)
    y = fluxgrad.tensor(3.0, requires_grad=True)
    z = x * y
    x_grad = fluxgrad.autograd.grad(z, x, retain_graph=True)
    y_grad = fluxgrad.autograd.grad(z, y)
    assert (x_grad[0].item(), y_grad[0].item()) == (3.0, 2.0)
    assert repr(x_grad[0]) == "tensor(3.)"


def test_oneflow_autograd_grad_without_retain_graph_raises_on_reuse():
    x = fluxgrad.tensor(2.0, requires_grad=True)
    y = fluxgrad.tensor(3.0, requires_grad=True)
    z = x * y
    fluxgrad.autograd.grad(z, x)
    with pytest.raises(RuntimeError, match="retain_graph=True"):
        fluxgrad.autograd.grad(z, y)


# --- seed 004: the chain rule on Y(x), Z(Y), F(Z) -----------------------------------------------
def test_chain_rule_walkthrough_derivatives_at_3():
    x = fluxgrad.tensor(3.0, dtype=fluxgrad.float64, requires_grad=True)
    y = 3 * x ** 2 - 4 * x + 5
    z = y ** 2 - 4 * y
    f = z ** 4 - 5
    dy, = fluxgrad.grad(y, x, retain_graph=True)
    dz, = fluxgrad.grad(z, x, retain_graph=True)
    df, = fluxgrad.grad(f, x)
    assert dy.item() == 14.0
    assert dz.item() == 504.0
    assert df.item() == 66060288000.0  # the tutorial's finite difference: 66060290527.34375


def test_chain_rule_walkthrough_reused_node_sums_gradients():
    x = fluxgrad.tensor(3.0, dtype=fluxgrad.float64, requires_grad=True)
    y = 3 * x ** 2 - 4 * x + 5  # x reaches y along two paths
    y.backward()
    assert x.grad.item() == 14.0
