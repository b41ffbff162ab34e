"""Behaviour of the elementwise ops, activations and in-place methods that the generic
registry tests do not cover: erf's accuracy, dtype promotion, subgradients at kinks,
and in-place semantics."""
import math

import numpy as np
import pytest

import fluxgrad as fg
from fluxgrad.ops import _special


def _grad(fn, values, dtype=fg.float64):
    x = fg.tensor(values, dtype=dtype, requires_grad=True)
    fn(x).sum().backward()
    return x.grad.tolist()


# --- erf ------------------------------------------------------------------------------------
def _erf_points():
    rng = np.random.default_rng(0)
    return np.concatenate([rng.uniform(-7, 7, 20000), rng.uniform(-27, 27, 3000),
                           rng.standard_normal(2000) * 1e-3, 10.0 ** rng.uniform(-300, 0, 1000),
                           np.arange(-2700, 2701) / 100])


@pytest.mark.parametrize("size", [7, 600, 40000], ids=["elementwise", "vectorised", "large"])
def test_erf_and_erfc_match_math_to_float64_precision(size):
    x = _erf_points()[:size]
    erf, erfc = _special.erf(x), _special.erfc(x)
    expected_erf = np.array([math.erf(v) for v in x])
    expected_erfc = np.array([math.erfc(v) for v in x])
    normal = expected_erfc > 1e-300  # erfc's subnormal results carry fewer digits
    assert np.all(np.abs(erf - expected_erf) <= 1e-15 * np.abs(expected_erf))
    assert np.all(np.abs(erfc - expected_erfc)[normal] <= 1.5e-15 * expected_erfc[normal])


def test_erf_and_erfc_at_special_values():
    x = np.array([0.0, -0.0, np.inf, -np.inf, np.nan, 30.0, -30.0] * 100)
    erf, erfc = _special.erf(x), _special.erfc(x)
    np.testing.assert_array_equal(erf[:7], [0.0, -0.0, 1.0, -1.0, np.nan, 1.0, -1.0])
    np.testing.assert_array_equal(erfc[:7], [1.0, 1.0, 0.0, 2.0, np.nan, 0.0, 2.0])


def test_erf_keeps_float32():
    assert fg.erf(fg.tensor([0.5, 1.0])).dtype == fg.float32
    assert fg.erf(fg.randn(30, 30)).dtype == fg.float32


# --- dtypes ---------------------------------------------------------------------------------
def test_floating_functions_turn_integers_into_float32():
    for fn in (fg.exp, fg.sqrt, fg.erf, fg.atan, fg.sigmoid, fg.reciprocal):
        assert fn(fg.tensor([1, 2])).dtype == fg.float32
    assert (fg.tensor([1, 2]) / fg.tensor([2, 4])).dtype == fg.float32


def test_integer_ops_stay_integer():
    i = fg.tensor([1, 2, 3])
    assert (i ** 2).dtype == fg.int64 and (2 ** i).dtype == fg.int64
    assert fg.clamp(i, 0, 2).dtype == fg.int64 and fg.relu(i - 2).dtype == fg.int64
    assert fg.floor(i).dtype == fg.int64
    assert fg.clamp(i, 0.5).dtype == fg.float32 and (2.5 ** i).dtype == fg.float32


def test_divide_rounding_modes():
    assert fg.divide(fg.tensor([-7, 7]), 2, rounding_mode="trunc").tolist() == [-3, 3]
    assert fg.divide(fg.tensor([-7, 7]), 2, rounding_mode="floor").tolist() == [-4, 3]
    assert fg.divide(fg.tensor([-7.0, 7.0]), 2, rounding_mode="trunc").tolist() == [-3.0, 3.0]
    with pytest.raises(ValueError, match="rounding_mode"):
        fg.divide(fg.tensor([1.0]), 2, rounding_mode="round")


# --- subgradients at kinks, as PyTorch ----------------------------------------------------
def test_subgradients_at_kinks():
    assert _grad(fg.relu, [0.0]) == [0.0]
    assert _grad(fg.abs, [0.0]) == [0.0]
    assert _grad(fg.leaky_relu, [0.0]) == [0.01]
    assert _grad(lambda x: fg.elu(x, alpha=0.5), [0.0]) == [0.5]
    assert _grad(fg.relu6, [0.0, 6.0, 3.0]) == [0.0, 0.0, 1.0]
    assert _grad(fg.hardswish, [-3.0, 3.0, 0.0]) == [0.0, 1.0, 0.5]
    assert _grad(lambda x: fg.maximum(x, fg.tensor(1.0, dtype=fg.float64)), [1.0]) == [0.5]


def test_clamp_passes_the_gradient_on_its_bounds():
    assert _grad(lambda x: x.clamp(0, 1), [0.0, 1.0, 2.0, -1.0]) == [1.0, 1.0, 0.0, 0.0]
    lo = fg.tensor([0.0, 0.0], dtype=fg.float64, requires_grad=True)
    hi = fg.tensor([1.0, 1.0], dtype=fg.float64, requires_grad=True)
    x = fg.tensor([-1.0, 2.0], dtype=fg.float64, requires_grad=True)
    fg.clamp(x, lo, hi).sum().backward()
    assert (x.grad.tolist(), lo.grad.tolist(), hi.grad.tolist()) == ([0, 0], [1, 0], [0, 1])


def test_clamp_needs_a_bound():
    with pytest.raises(ValueError, match="at least one"):
        fg.clamp(fg.tensor([1.0]))


def test_pow_with_zero_exponent_or_zero_base_has_zero_gradient():
    assert _grad(lambda x: x ** 0, [0.0, 2.0]) == [0.0, 0.0]
    assert _grad(lambda y: 0.0 ** y, [1.0, 0.0]) == [0.0, 0.0]


def test_stable_at_extremes():
    x = fg.tensor([-1000.0, 1000.0], dtype=fg.float64)
    assert fg.sigmoid(x).tolist() == pytest.approx([0.0, 1.0], abs=1e-300)
    assert fg.softplus(x).tolist() == [0.0, 1000.0]
    assert fg.logaddexp(x, x).tolist() == pytest.approx([-1000 + math.log(2), 1000 + math.log(2)])
    assert fg.gelu(fg.tensor([-10.0], dtype=fg.float64)).item() == pytest.approx(
        -10 * 0.5 * math.erfc(10 / math.sqrt(2)), rel=1e-14)


# --- in place -------------------------------------------------------------------------------
def test_inplace_on_a_leaf_that_requires_grad_raises():
    w = fg.tensor([1.0, 2.0], requires_grad=True)
    with pytest.raises(RuntimeError, match="in place"):
        w.add_(1)


def test_inplace_under_no_grad_keeps_the_leaf():
    w = fg.tensor([1.0, 2.0], requires_grad=True)
    with fg.no_grad():
        w.mul_(2).add_(1).clamp_(max=4)
    assert w.tolist() == [3.0, 4.0] and w.is_leaf and w.requires_grad


def test_zero_and_fill_work_on_grads():
    w = fg.tensor([1.0, 2.0], requires_grad=True)
    (w * w).sum().backward()
    grad = w.grad
    w.grad.zero_()
    assert w.grad is grad and grad.tolist() == [0.0, 0.0]
    grad.fill_(3)
    assert grad.tolist() == [3.0, 3.0]


def test_inplace_writes_into_shared_storage():
    x = fg.tensor(np.arange(6.0))
    array = x.numpy()
    x.reshape(2, 3).add_(1)
    assert array.tolist() == [1.0, 2.0, 3.0, 4.0, 5.0, 6.0]


def test_inplace_on_a_computed_tensor_is_differentiated():
    x = fg.tensor([1.0, -2.0], dtype=fg.float64, requires_grad=True)
    a = x * 1
    a.mul_(x)
    a += 3 * x
    a.sigmoid_()
    (g,) = fg.grad(a.sum(), x)
    s = 1 / (1 + np.exp(-(np.array([1.0, -2.0]) ** 2 + 3 * np.array([1.0, -2.0]))))
    np.testing.assert_allclose(g.tolist(), s * (1 - s) * (2 * np.array([1.0, -2.0]) + 3),
                               rtol=1e-12)


def test_inplace_gives_history_to_a_plain_tensor():
    x = fg.tensor([1.0, 2.0], requires_grad=True)
    b = fg.tensor([3.0, 4.0])
    b += x * 2
    b.sum().backward()
    assert b.requires_grad and x.grad.tolist() == [2.0, 2.0]


def test_zero_cuts_the_gradient_to_the_old_value():
    x = fg.tensor([1.0, 2.0], requires_grad=True)
    a = x * 3
    a.zero_()
    (a + x).sum().backward()
    assert x.grad.tolist() == [1.0, 1.0]


def test_modifying_a_saved_tensor_in_place_raises_at_backward():
    x = fg.tensor([1.0, 2.0], requires_grad=True)
    a = x * 1
    y = a * a
    a.add_(1)
    with pytest.raises(RuntimeError, match="modified by an in-place operation"):
        y.sum().backward()


def test_inplace_cannot_change_dtype_kind_or_shape():
    with pytest.raises(RuntimeError, match="can't be cast"):
        fg.tensor([1, 2]).add_(1.5)
    with pytest.raises(RuntimeError, match="shape"):
        fg.tensor([1.0, 2.0]).add_(fg.tensor([[1.0], [2.0]]))
    with pytest.raises(RuntimeError, match="broadcast"):
        fg.tensor([1.0, 2.0]).copy_(fg.tensor([1.0, 2.0, 3.0]))


def test_modifying_an_input_no_rule_reads_is_allowed():
    x = fg.tensor([1.0, 2.0], requires_grad=True)
    a = x * 1
    y = a.exp() + a  # exp's rule reads its output, add's none
    a.add_(1)
    y.sum().backward()
    np.testing.assert_allclose(x.grad.tolist(), np.exp([1.0, 2.0]) + 1, rtol=1e-6)


def test_functional_activations_take_inplace():
    x = fg.tensor([-2.0, 0.5], requires_grad=True)
    y = x * 2
    assert fg.relu(y, inplace=True) is y
    y.sum().backward()
    assert y.tolist() == [0.0, 1.0] and x.grad.tolist() == [0.0, 2.0]
    y = x * 2
    assert fg.relu(y, inplace=True) is y and fg.elu(y, inplace=True) is y
    with pytest.raises(RuntimeError, match="modified by an in-place"):
        y.sum().backward()  # relu's rule reads its output, which elu_ overwrote (as torch)


@pytest.mark.parametrize("shape", [(256, 512), (3, 40, 128), (128, 1000), (5,), (2, 3)])
def test_relu_matches_torch_at_nan_signed_zeros_and_infinities(shape):
    torch = pytest.importorskip("torch")
    x = np.random.default_rng(0).standard_normal(shape).astype(np.float32)
    x.reshape(-1)[:4] = [np.nan, -0.0, 0.0, -np.inf]
    got, want = fg.relu(fg.tensor(x)).numpy(), torch.relu(torch.tensor(x)).numpy()
    assert got.dtype == want.dtype and got.flags.c_contiguous
    np.testing.assert_array_equal(got, want)
    np.testing.assert_array_equal(np.signbit(got), np.signbit(want))  # relu(-0.0) is -0.0


def test_relu_refuses_bool_as_torch():
    torch = pytest.importorskip("torch")
    with pytest.raises(RuntimeError):
        torch.relu(torch.tensor([True]))
    for relu in (fg.relu, fg.nn.functional.relu, fg.Tensor.relu, fg.Tensor.relu_):
        with pytest.raises(RuntimeError, match="relu is not implemented for fluxgrad.bool"):
            relu(fg.tensor([True, False]))
