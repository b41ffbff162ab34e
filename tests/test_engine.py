"""Behaviour of reverse mode: accumulation, hooks, graph lifetime, grad modes, errors,
custom Functions and gradcheck. One behaviour per test."""
import gc
import threading
import weakref

import numpy as np
import pytest

import fluxgrad
from fluxgrad.autograd import Function, PyLayer, forward_ad, gradcheck, gradgradcheck


def leaf(values, dtype=fluxgrad.float64):
    return fluxgrad.tensor(values, dtype=dtype, requires_grad=True)


# --- accumulation and the shape of the graph --------------------------------------------------
def test_gradients_accumulate_across_backward_calls():
    x = leaf([1.0, 2.0])
    (x * 3).sum().backward()
    (x * x).sum().backward()
    np.testing.assert_allclose(x.grad.numpy(), [3 + 2, 3 + 4])


def test_shared_subexpression_gradients_add_up():
    x = leaf([1.0, -2.0, 0.5])
    (x * x + x).sum().backward()
    np.testing.assert_allclose(x.grad.numpy(), 2 * np.array([1.0, -2.0, 0.5]) + 1)


def test_tensor_used_by_several_ops_gets_each_contribution():
    x = leaf(2.0)
    y = x.exp()
    z = y * y + y.log() + 3 * y
    z.backward()
    np.testing.assert_allclose(x.grad.item(), 2 * np.exp(4.0) + 1 + 3 * np.exp(2.0))


def test_backward_of_non_scalar_without_gradient_uses_ones():
    x = leaf([1.0, 2.0, 3.0])
    (x * x).backward()
    np.testing.assert_allclose(x.grad.numpy(), [2.0, 4.0, 6.0])


def test_backward_with_explicit_gradient_weights_the_outputs():
    x = leaf([1.0, 2.0])
    (x * x).backward(fluxgrad.tensor([10.0, 100.0], dtype=fluxgrad.float64))
    np.testing.assert_allclose(x.grad.numpy(), [20.0, 400.0])


def test_broadcast_operand_gets_gradient_of_its_own_shape():
    x = leaf([[1.0], [2.0]])
    y = leaf([1.0, 2.0, 3.0])
    (x * y).sum().backward()
    assert x.grad.shape == (2, 1) and y.grad.shape == (3,)
    np.testing.assert_allclose(x.grad.numpy(), [[6.0], [6.0]])
    np.testing.assert_allclose(y.grad.numpy(), [3.0, 3.0, 3.0])


def test_gradient_has_the_dtype_of_its_leaf():
    x = leaf([1.0, 2.0], dtype=fluxgrad.float32)
    w = leaf([3.0, 4.0], dtype=fluxgrad.float64)
    (x * w).sum().backward()
    assert x.grad.dtype == fluxgrad.float32 and w.grad.dtype == fluxgrad.float64


# --- hooks and retained gradients -----------------------------------------------------------
def test_hook_on_leaf_replaces_its_gradient():
    x = leaf([1.0, 2.0])
    x.register_hook(lambda g: g * 10)
    (x * x).sum().backward()
    np.testing.assert_allclose(x.grad.numpy(), [20.0, 40.0])


def test_hook_on_non_leaf_replaces_the_gradient_flowing_upstream():
    x = leaf([1.0, 2.0])
    y = x * x
    y.register_hook(lambda g: g * 0 + 1)
    (3 * y).sum().backward()
    np.testing.assert_allclose(x.grad.numpy(), [2.0, 4.0])


def test_hook_sees_the_gradient_and_returning_none_keeps_it():
    x = leaf([1.0, 2.0])
    seen = []
    y = x * 2
    y.register_hook(lambda g: seen.append(g.numpy().copy()))
    (y * y).sum().backward()
    np.testing.assert_allclose(seen[0], [4.0, 8.0])
    np.testing.assert_allclose(x.grad.numpy(), [8.0, 16.0])


def test_removed_hook_is_not_called():
    x = leaf([1.0, 2.0])
    calls = []
    handle = x.register_hook(lambda g: calls.append(1))
    handle.remove()
    y = x * 2
    handle = y.register_hook(lambda g: calls.append(2))
    handle.remove()
    y.sum().backward()
    assert calls == []


def test_register_hook_on_tensor_without_grad_raises():
    with pytest.raises(RuntimeError, match="requires_grad"):
        fluxgrad.tensor([1.0]).register_hook(lambda g: g)


def test_non_leaf_grad_is_none_by_default():
    x = leaf([1.0, 2.0])
    y = x * 2
    (y * y).sum().backward()
    assert y.grad is None
    assert x.grad is not None


def test_retain_grad_keeps_the_gradient_of_a_non_leaf():
    x = leaf([1.0, 2.0])
    y = x * 2
    y.retain_grad()
    assert y.retains_grad
    (y * y).sum().backward()
    np.testing.assert_allclose(y.grad.numpy(), [4.0, 8.0])


# --- graph lifetime -----------------------------------------------------------------------
def test_second_backward_without_retain_graph_raises():
    x = leaf([1.0, 2.0])
    y = (x * x).sum()
    y.backward()
    with pytest.raises(RuntimeError, match=r"MulBackward.*retain_graph=True"):
        y.backward()


def test_retain_graph_allows_a_second_backward():
    x = leaf([1.0, 2.0])
    y = (x * x).sum()
    y.backward(retain_graph=True)
    y.backward()
    np.testing.assert_allclose(x.grad.numpy(), [4.0, 8.0])


def test_graph_is_freed_when_its_tensors_go_out_of_scope():
    gc.disable()
    try:
        x = leaf([1.0, 2.0])
        y = (x.exp() * x).sum()
        node, out = weakref.ref(y.grad_fn), weakref.ref(y)
        inner = weakref.ref(y.grad_fn.next_functions[0][0])
        del y
        assert out() is None and node() is None and inner() is None
    finally:
        gc.enable()


def test_node_of_a_live_output_stays_alive():
    x = leaf([1.0, 2.0])
    y = x.exp()
    z = (y * 2).sum()
    node = weakref.ref(y.grad_fn)
    del z
    assert node() is not None


def test_chain_of_a_million_ops_backpropagates():
    x = leaf(0.0)
    y = x
    for _ in range(1_000_000):
        y = y + 1e-9
    y.backward()
    assert x.grad.item() == 1.0
    np.testing.assert_allclose(y.item(), 1e-3, rtol=1e-6)


# --- detach and grad modes ----------------------------------------------------------------
def test_detach_stops_the_gradient_and_shares_data():
    x = leaf([1.0, 2.0])
    d = x.detach()
    assert not d.requires_grad and d.grad_fn is None
    (x * d).sum().backward()
    np.testing.assert_allclose(x.grad.numpy(), [1.0, 2.0])
    assert np.shares_memory(d.numpy(), x.detach().numpy())


def test_no_grad_records_nothing():
    x = leaf([1.0])
    with fluxgrad.no_grad():
        y = x * 2
        assert not fluxgrad.is_grad_enabled()
    assert fluxgrad.is_grad_enabled()
    assert y.grad_fn is None and not y.requires_grad


def test_no_grad_as_decorator():
    @fluxgrad.no_grad()
    def double(t):
        return t * 2

    assert double(leaf([1.0])).grad_fn is None
    assert fluxgrad.is_grad_enabled()


def test_enable_grad_records_inside_no_grad():
    x = leaf([1.0])
    with fluxgrad.no_grad():
        with fluxgrad.enable_grad():
            y = x * 2
        z = x * 2
    assert y.grad_fn is not None and z.grad_fn is None


def test_enable_grad_as_decorator():
    @fluxgrad.enable_grad()
    def double(t):
        return t * 2

    with fluxgrad.no_grad():
        y = double(leaf([1.0]))
        assert not fluxgrad.is_grad_enabled()
    assert y.grad_fn is not None


def test_set_grad_enabled_as_context_manager_and_decorator():
    x = leaf([1.0])
    with fluxgrad.set_grad_enabled(False):
        assert (x * 2).grad_fn is None
    assert (x * 2).grad_fn is not None

    @fluxgrad.set_grad_enabled(False)
    def double(t):
        return t * 2

    assert double(x).grad_fn is None
    assert fluxgrad.is_grad_enabled()


def test_no_grad_restores_the_mode_after_an_exception():
    with pytest.raises(ValueError):
        with fluxgrad.no_grad():
            raise ValueError
    assert fluxgrad.is_grad_enabled()


def test_grad_mode_is_thread_local():
    seen = {}
    inside = threading.Event()
    release = threading.Event()

    def worker():
        with fluxgrad.no_grad():
            inside.set()
            release.wait(5)
            seen["worker"] = fluxgrad.is_grad_enabled()
            seen["worker_records"] = (leaf([1.0]) * 2).grad_fn is not None

    thread = threading.Thread(target=worker)
    thread.start()
    inside.wait(5)
    seen["main"] = fluxgrad.is_grad_enabled()
    seen["main_records"] = (leaf([1.0]) * 2).grad_fn is not None
    release.set()
    thread.join()
    assert seen == {"worker": False, "worker_records": False, "main": True, "main_records": True}
    assert (leaf([1.0]) * 2).grad_fn is not None


# --- in-place modification ------------------------------------------------------------------
def test_in_place_change_of_a_saved_output_raises_on_backward():
    x = leaf([1.0, 2.0])
    y = x.exp()
    y.add_(1)
    with pytest.raises(RuntimeError, match="in-place"):
        y.sum().backward()


def test_in_place_change_of_a_saved_input_raises_on_backward():
    x = leaf([1.0, 2.0])
    y = x * 2
    z = y * y
    y[0] = 5.0
    with pytest.raises(RuntimeError, match="in-place"):
        z.sum().backward()


def test_in_place_change_of_a_leaf_that_requires_grad_raises():
    x = leaf([1.0, 2.0])
    with pytest.raises(RuntimeError, match="leaf"):
        x[0] = 5.0


# --- grad() and error messages ------------------------------------------------------------
def test_grad_returns_gradients_and_leaves_dot_grad_alone():
    x = leaf([1.0, 2.0])
    (g,) = fluxgrad.grad((x * x).sum(), x)
    np.testing.assert_allclose(g.numpy(), [2.0, 4.0])
    assert x.grad is None


def test_grad_with_allow_unused_returns_none_for_an_unused_input():
    x, unused = leaf([1.0]), leaf([2.0])
    gx, gu = fluxgrad.grad((x * 3).sum(), (x, unused), allow_unused=True)
    assert gu is None
    np.testing.assert_allclose(gx.numpy(), [3.0])


def test_grad_of_an_input_not_in_the_graph_raises():
    x, unused = leaf([1.0]), leaf([2.0])
    with pytest.raises(RuntimeError, match="allow_unused=True"):
        fluxgrad.grad((x * 3).sum(), unused)


def test_grad_with_respect_to_a_tensor_that_needs_no_grad_raises():
    x = leaf([1.0])
    c = fluxgrad.tensor([2.0], dtype=fluxgrad.float64)
    with pytest.raises(RuntimeError, match="does not require grad"):
        fluxgrad.grad((x * c).sum(), c)


def test_grad_with_respect_to_an_intermediate_tensor():
    x = leaf([1.0, 2.0])
    y = x * 3
    (g,) = fluxgrad.grad((y * y).sum(), y)
    np.testing.assert_allclose(g.numpy(), [6.0, 12.0])


def test_backward_on_a_tensor_that_needs_no_grad_raises():
    y = fluxgrad.tensor([1.0, 2.0]) * 2
    with pytest.raises(RuntimeError, match="does not require grad"):
        y.sum().backward()


def test_backward_with_a_gradient_of_the_wrong_shape_raises():
    y = leaf([1.0, 2.0]) * 2
    with pytest.raises(RuntimeError, match=r"Mismatch in shape: grad_output\[0\] has a shape of "
                                           r"\[3\] and output\[0\] has a shape of \[2\]"):
        y.backward(fluxgrad.ones(3, dtype=fluxgrad.float64))


# --- higher order -------------------------------------------------------------------------
def test_first_three_derivatives_of_tanh_at_one():
    x = leaf(1.0)
    y = x.tanh()
    d1, = fluxgrad.grad(y, x, create_graph=True)
    d2, = fluxgrad.grad(d1, x, create_graph=True)
    d3, = fluxgrad.grad(d2, x)
    t = np.tanh(1.0)
    expected = [1 - t ** 2, -2 * t * (1 - t ** 2), (1 - t ** 2) * (6 * t ** 2 - 2)]
    np.testing.assert_allclose([d1.item(), d2.item(), d3.item()], expected, rtol=1e-12)
    np.testing.assert_allclose(expected, [0.41997434, -0.63970001, 0.62162668], atol=1e-8)


def test_backward_with_create_graph_makes_dot_grad_differentiable():
    x = leaf([1.0, 2.0])
    (x * x * x).sum().backward(create_graph=True)
    g = x.grad
    assert g.requires_grad
    (g2,) = fluxgrad.grad(g.sum(), x)
    np.testing.assert_allclose(g2.numpy(), [6.0, 12.0])


# --- custom Functions ---------------------------------------------------------------------
class Cube(Function):
    @staticmethod
    def forward(ctx, x):
        ctx.save_for_backward(x)
        return x * x * x

    @staticmethod
    def backward(ctx, out_bar):
        x, = ctx.saved_tensors
        return out_bar * 3 * x * x

    @staticmethod
    def jvp(ctx, x_dot):
        x, = ctx.saved_tensors
        return x_dot * 3 * x * x


class Exp(Function):
    @staticmethod
    def forward(ctx, x):
        out = x.exp()
        ctx.save_for_backward(out)
        return out

    @staticmethod
    def backward(ctx, out_bar):
        out, = ctx.saved_tensors
        return out_bar * out


def test_custom_function_gradient():
    x = leaf([1.0, 2.0])
    Cube.apply(x).sum().backward()
    np.testing.assert_allclose(x.grad.numpy(), [3.0, 12.0])


def test_custom_function_node_is_named_after_the_class():
    y = Cube.apply(leaf([1.0]))
    assert type(y.grad_fn).__name__ == "CubeBackward"
    assert "grad_fn=<CubeBackward>" in repr(y)


def test_custom_function_forward_records_no_graph():
    inner = []

    class Spy(Function):
        @staticmethod
        def forward(ctx, x):
            y = x * 2
            inner.append(y)
            return y + 1

        @staticmethod
        def backward(ctx, out_bar):
            return out_bar * 2

    y = Spy.apply(leaf([1.0]))
    assert inner[0].grad_fn is None
    assert type(y.grad_fn).__name__ == "SpyBackward"


def test_custom_function_with_create_graph_gives_second_derivative():
    x = leaf([1.0, 2.0])
    g, = fluxgrad.grad(Cube.apply(x).sum(), x, create_graph=True)
    g2, = fluxgrad.grad(g.sum(), x)
    np.testing.assert_allclose(g2.numpy(), [6.0, 12.0])


def test_custom_function_saving_its_output_differentiates_twice():
    x = leaf([0.5, 1.0])
    g, = fluxgrad.grad(Exp.apply(x).sum(), x, create_graph=True)
    g2, = fluxgrad.grad(g.sum(), x)
    np.testing.assert_allclose(g2.numpy(), np.exp([0.5, 1.0]))


def test_custom_function_second_backward_without_retain_graph_raises():
    y = Exp.apply(leaf([1.0])).sum()
    y.backward()
    with pytest.raises(RuntimeError, match="retain_graph=True"):
        y.backward()


def test_custom_function_needs_input_grad():
    seen = []

    class Mul(Function):
        @staticmethod
        def forward(ctx, x, y):
            seen.append(ctx.needs_input_grad)
            ctx.save_for_backward(x, y)
            return x * y

        @staticmethod
        def backward(ctx, out_bar):
            x, y = ctx.saved_tensors
            return (out_bar * y if ctx.needs_input_grad[0] else None,
                    out_bar * x if ctx.needs_input_grad[1] else None)

    x, c = leaf([2.0]), fluxgrad.tensor([3.0], dtype=fluxgrad.float64)
    Mul.apply(x, c).sum().backward()
    assert seen == [(True, False)]
    np.testing.assert_allclose(x.grad.numpy(), [3.0])


def test_custom_function_with_a_non_tensor_argument():
    class Scale(Function):
        @staticmethod
        def forward(ctx, x, factor):
            ctx.factor = factor
            return x * factor

        @staticmethod
        def backward(ctx, out_bar):
            return out_bar * ctx.factor, None

    x = leaf([1.0, 2.0])
    Scale.apply(x, 5.0).sum().backward()
    np.testing.assert_allclose(x.grad.numpy(), [5.0, 5.0])


def test_custom_function_with_several_outputs():
    class SinCos(Function):
        @staticmethod
        def forward(ctx, x):
            ctx.save_for_backward(x)
            return x.sin(), x.cos()

        @staticmethod
        def backward(ctx, s_bar, c_bar):
            x, = ctx.saved_tensors
            return s_bar * x.cos() - c_bar * x.sin()

    x = leaf([0.3, 1.2])
    s, c = SinCos.apply(x)
    (2 * s + 3 * c).sum().backward()
    np.testing.assert_allclose(x.grad.numpy(), 2 * np.cos([0.3, 1.2]) - 3 * np.sin([0.3, 1.2]))


def test_custom_function_unused_output_gets_a_zero_gradient():
    class Pair(Function):
        @staticmethod
        def forward(ctx, x):
            return x * 2, x * 3

        @staticmethod
        def backward(ctx, a_bar, b_bar):
            return a_bar * 2 + b_bar * 3

    x = leaf([1.0])
    a, _ = Pair.apply(x)
    a.sum().backward()
    np.testing.assert_allclose(x.grad.numpy(), [2.0])


def test_custom_function_mark_non_differentiable():
    class ValueAndMask(Function):
        @staticmethod
        def forward(ctx, x):
            mask = (x > 0).astype(x.dtype)
            ctx.mark_non_differentiable(mask)
            return x * 2, mask

        @staticmethod
        def backward(ctx, out_bar, mask_bar):
            return out_bar * 2

    value, mask = ValueAndMask.apply(leaf([1.0, -1.0]))
    assert value.requires_grad and not mask.requires_grad


def test_custom_function_returning_its_input_gives_a_new_tensor():
    class Identity(Function):
        @staticmethod
        def forward(ctx, x):
            return x

        @staticmethod
        def backward(ctx, out_bar):
            return out_bar

    x = leaf([1.0])
    y = Identity.apply(x)
    assert y is not x and x.is_leaf and y.grad_fn is not None
    y.sum().backward()
    np.testing.assert_allclose(x.grad.numpy(), [1.0])


def test_custom_function_gradient_of_the_wrong_shape_raises():
    class Bad(Function):
        @staticmethod
        def forward(ctx, x):
            return x * 1

        @staticmethod
        def backward(ctx, out_bar):
            return fluxgrad.ones(5, dtype=fluxgrad.float64)

    with pytest.raises(RuntimeError,
                       match=r"BadBackward returned an invalid gradient.*\[5\].*\[2\]"):
        Bad.apply(leaf([1.0, 2.0])).sum().backward()


def test_custom_function_in_place_change_of_a_saved_tensor_raises():
    x = leaf([1.0, 2.0])
    y = x * 1
    z = Cube.apply(y)
    y[0] = 3.0
    with pytest.raises(RuntimeError, match=r"CubeBackward.*in-place"):
        z.sum().backward()


def test_custom_function_in_place_change_of_a_saved_output_raises():
    y = Exp.apply(leaf([1.0, 2.0]))
    y[0] = 3.0
    with pytest.raises(RuntimeError, match=r"ExpBackward.*in-place"):
        y.sum().backward()


def test_custom_function_graph_is_freed():
    gc.disable()
    try:
        y = Exp.apply(leaf([1.0]))
        node = weakref.ref(y.grad_fn)
        del y
        assert node() is None
    finally:
        gc.enable()


def test_custom_function_jvp_in_forward_mode():
    with forward_ad.dual_level():
        x = forward_ad.make_dual(fluxgrad.tensor([1.0, 2.0], dtype=fluxgrad.float64),
                                 fluxgrad.tensor([1.0, 0.5], dtype=fluxgrad.float64))
        _, tangent = forward_ad.unpack_dual(Cube.apply(x))
    np.testing.assert_allclose(tangent.numpy(), [3.0, 6.0])


def test_custom_function_without_jvp_in_forward_mode_raises():
    with forward_ad.dual_level():
        x = forward_ad.make_dual(fluxgrad.tensor([1.0]), fluxgrad.tensor([1.0]))
        with pytest.raises(NotImplementedError, match="Exp"):
            Exp.apply(x)


def test_pylayer_paddle_spelling():
    class Tanh(PyLayer):
        @staticmethod
        def forward(ctx, x, scale):
            y = x.tanh()
            ctx.save_for_backward(y)
            ctx.scale = scale
            return y * scale

        @staticmethod
        def backward(ctx, dy):
            y, = ctx.saved_tensor()
            return dy * ctx.scale * (1 - y * y)  # one gradient per Tensor argument

    x = fluxgrad.to_tensor([0.5], dtype="float64", stop_gradient=False)
    Tanh.apply(x, 2.0).sum().backward()
    np.testing.assert_allclose(x.grad.numpy(), 2 * (1 - np.tanh(0.5) ** 2))


# --- gradcheck ----------------------------------------------------------------------------
def test_gradcheck_passes_on_a_correct_function():
    x = leaf([[0.3, -1.2], [0.7, 2.0]])
    w = leaf([0.5, -0.25])
    assert gradcheck(lambda a, b: ((a * b).tanh(), a.exp()), (x, w))


def test_gradcheck_passes_on_a_correct_custom_function():
    assert gradcheck(Cube.apply, leaf([0.5, -1.5]))


class WrongCube(Function):
    @staticmethod
    def forward(ctx, x):
        ctx.save_for_backward(x)
        return x * x * x

    @staticmethod
    def backward(ctx, out_bar):
        x, = ctx.saved_tensors
        return out_bar * 2 * x * x


def test_gradcheck_raises_with_a_report_on_a_wrong_custom_function():
    with pytest.raises(RuntimeError, match=r"output 0.*input 0.*numerical 6.75.*analytical 4.5"):
        gradcheck(WrongCube.apply, leaf([0.5, -1.5]))


def test_gradcheck_returns_false_on_a_wrong_custom_function():
    assert gradcheck(WrongCube.apply, leaf([0.5, -1.5]), raise_exception=False) is False


def test_gradgradcheck_passes_on_a_correct_function():
    x = leaf([0.3, -1.2])
    assert gradgradcheck(lambda a: (a.tanh() * a).sum(), x)
    assert gradgradcheck(Cube.apply, x)


def test_gradgradcheck_fails_when_backward_is_not_differentiable():
    class DetachedCube(Function):
        @staticmethod
        def forward(ctx, x):
            ctx.save_for_backward(x)
            return x * x * x

        @staticmethod
        def backward(ctx, out_bar):
            x, = ctx.saved_tensors
            return out_bar * 3 * x.detach() * x.detach()

    x = leaf([0.5, -1.5])
    assert gradcheck(DetachedCube.apply, x)
    assert gradgradcheck(DetachedCube.apply, x, raise_exception=False) is False


def test_no_grad_and_enable_grad_work_as_bare_decorators():
    @fluxgrad.no_grad
    def doubled(t):
        return t * 2

    @fluxgrad.enable_grad
    def tripled(t):
        return t * 3

    x = fluxgrad.ones(2, requires_grad=True)
    assert not doubled(x).requires_grad
    with fluxgrad.no_grad():
        assert tripled(x).requires_grad
    assert fluxgrad.is_grad_enabled()
