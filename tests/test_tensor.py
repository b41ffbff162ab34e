"""Behaviour of the Tensor itself: gradient flags, dtype promotion, repr. One behaviour per test."""
import operator

import numpy as np
import pytest

import fluxgrad


# --- requires_grad / stop_gradient --------------------------------------------------------------
def test_requires_grad_on_an_int_tensor_raises():
    with pytest.raises(RuntimeError, match="floating point"):
        fluxgrad.tensor([1, 2], requires_grad=True)
    with pytest.raises(RuntimeError, match="floating point"):
        fluxgrad.tensor([1, 2]).requires_grad_()


def test_new_tensors_do_not_require_grad():
    assert not fluxgrad.tensor([1.0]).requires_grad
    assert fluxgrad.to_tensor([1.0]).stop_gradient


def test_stop_gradient_is_the_inverse_of_requires_grad():
    x = fluxgrad.tensor([1.0, 2.0])
    x.stop_gradient = False
    assert x.requires_grad and not x.stop_gradient
    x.requires_grad = False
    assert x.stop_gradient
    y = fluxgrad.to_tensor([1.0], stop_gradient=False)
    assert y.requires_grad


def test_requires_grad_cannot_be_turned_off_on_a_non_leaf():
    y = fluxgrad.tensor([1.0], requires_grad=True) * 2
    with pytest.raises(RuntimeError, match="detach"):
        y.requires_grad = False


def test_result_of_an_op_on_a_tensor_requiring_grad_requires_grad():
    x = fluxgrad.tensor([1.0], requires_grad=True)
    y = x * fluxgrad.tensor([2.0])
    assert y.requires_grad and not y.is_leaf and x.is_leaf


# --- dtype promotion ----------------------------------------------------------------------
# (left operand, right operand, op, result dtype), operands as (data, dtype) for a tensor or a
# plain Python scalar; the results are PyTorch's.
PROMOTION = [
    (([1, 2], "int32"), ([3, 4], "int64"), "add", "int64"),
    (([1, 2], "int64"), 2.5, "add", "float32"),
    (([1, 2], "int32"), 3, "add", "int32"),
    (([1.0, 2.0], "float32"), (1.5, "float64"), "add", "float32"),
    (([1.0, 2.0], "float32"), ([1.5, 2.0], "float64"), "add", "float64"),
    (([True, False], "bool"), ([1, 2], "int64"), "add", "int64"),
    (([True, False], "bool"), 1, "add", "int64"),
    (([True, False], "bool"), 1.5, "mul", "float32"),
    (([1, 2], "int64"), ([3, 4], "int64"), "truediv", "float32"),
    (([1, 2], "int32"), 2, "truediv", "float32"),
    ((3, "int64"), ([1, 2], "int32"), "add", "int32"),
    ((3.0, "float64"), ([1, 2], "int32"), "add", "float64"),
    (([1, 2], "int64"), ([3.0, 4.0], "float32"), "mul", "float32"),
    (([1.0, 2.0], "float64"), 2, "sub", "float64"),
    (([1.0, 2.0], "float32"), True, "mul", "float32"),
]


def make(lib, operand):
    if isinstance(operand, tuple):
        data, dtype = operand
        return lib.tensor(data, dtype=getattr(lib, dtype))
    return operand


def promotion_id(case):
    def name(operand):
        return f"{operand[1]}{'[]' if np.ndim(operand[0]) else ''}" if isinstance(
            operand, tuple) else type(operand).__name__
    return f"{name(case[0])}-{case[2]}-{name(case[1])}"


@pytest.mark.parametrize("case", PROMOTION, ids=promotion_id)
def test_dtype_promotion(case):
    left, right, op, expected = case
    result = getattr(operator, op)(make(fluxgrad, left), make(fluxgrad, right))
    assert result.dtype == getattr(fluxgrad, expected)


@pytest.mark.parametrize("case", PROMOTION, ids=promotion_id)
def test_dtype_promotion_table_agrees_with_torch(case):
    torch = pytest.importorskip("torch")
    left, right, op, expected = case
    result = getattr(operator, op)(make(torch, left), make(torch, right))
    assert result.dtype == getattr(torch, expected)


def test_reflected_operator_with_a_python_scalar_keeps_the_tensor_dtype():
    x = fluxgrad.tensor([1.0, 2.0], dtype=fluxgrad.float64)
    assert (2 - x).dtype == fluxgrad.float64 and (2 / x).dtype == fluxgrad.float64


# --- repr ---------------------------------------------------------------------------------
def test_repr_of_a_result_names_its_grad_fn():
    x = fluxgrad.tensor([1.0, 2.0], requires_grad=True)
    assert repr(x * 2) == "tensor([2., 4.], grad_fn=<MulBackward>)"


def test_repr_of_a_leaf_requiring_grad():
    assert repr(fluxgrad.tensor([1.0, 2.0], requires_grad=True)) == \
        "tensor([1., 2.], requires_grad=True)"


def test_repr_shows_dtype_unless_default():
    assert repr(fluxgrad.tensor([1.0, 2.0], dtype=fluxgrad.float64)) == \
        "tensor([1., 2.], dtype=fluxgrad.float64)"
    assert repr(fluxgrad.tensor([1, 2])) == "tensor([1, 2])"


REPR_CASES = [
    ([2.0, 4.0], None), ([0.1234, 2.5], None), ([1, 2, 3], None), ([[1.5, 2.0], [3.0, 4.0]], None),
    (3.5, None), ([1e-5, 1.0], None), ([1e9, 1.0], None), ([True, False], None),
    ([1.0, 2.0], "float64"), ([1, 2], "int32"), ([], None), (list(range(12)), "float32"),
]


@pytest.mark.parametrize("data, dtype", REPR_CASES)
def test_repr_matches_torch(data, dtype):
    torch = pytest.importorskip("torch")
    ours = repr(fluxgrad.tensor(data, dtype=dtype))
    theirs = repr(torch.tensor(data, dtype=None if dtype is None else getattr(torch, dtype)))
    assert ours == theirs.replace("torch.", "fluxgrad.")


def test_repr_with_grad_fn_matches_torch():
    torch = pytest.importorskip("torch")
    ours = repr(fluxgrad.tensor([[0.5, 1.25]], requires_grad=True) * 3)
    theirs = repr(torch.tensor([[0.5, 1.25]], requires_grad=True) * 3)
    assert ours == theirs.replace("MulBackward0", "MulBackward")


def test_format_of_a_0d_tensor_with_a_spec_formats_the_number():
    assert f"{fluxgrad.tensor(2.5):.2f}" == "2.50"


def test_paddle_gradient_of_the_backward_root_is_its_seed_and_clear_grad_zeroes_it():
    inputs = [fluxgrad.to_tensor(np.ones((2, 2), np.float32), stop_gradient=False)
              for _ in range(3)]
    loss = fluxgrad.sum(fluxgrad.add_n(inputs))
    loss.backward()
    assert loss.grad is None
    np.testing.assert_array_equal(loss.gradient(), 1.0)
    loss.clear_grad()
    np.testing.assert_array_equal(loss.gradient(), 0.0)
    np.testing.assert_array_equal(inputs[0].gradient(), np.ones((2, 2)))


def test_dtype_conversion_methods_match_torch_dtypes():
    x = fluxgrad.tensor([1.5, -2.5])
    assert x.double().dtype == fluxgrad.float64
    assert x.long().dtype == fluxgrad.int64 and x.long().tolist() == [1, -2]
    assert x.int().dtype == fluxgrad.int32
    assert x.bool().tolist() == [True, True]
    assert x.to("cpu") is x
    assert x.to(fluxgrad.tensor([1])).dtype == fluxgrad.int64
    assert x.type_as(fluxgrad.tensor([1.0], dtype="float64")).dtype == fluxgrad.float64


def test_float_conversion_keeps_the_gradient_path():
    x = fluxgrad.tensor([1.0, 2.0], requires_grad=True)
    (x.double() * 3).sum().backward()
    assert x.grad.dtype == fluxgrad.float32
    np.testing.assert_array_equal(x.grad.numpy(), [3.0, 3.0])


def test_new_factory_methods_take_the_tensor_dtype():
    x = fluxgrad.tensor([1, 2])
    assert x.new_zeros(2, 3).dtype == fluxgrad.int64 and x.new_zeros(2, 3).shape == (2, 3)
    assert x.new_ones((2,)).tolist() == [1, 1]
    assert x.new_full((2,), 7).tolist() == [7, 7]
    assert x.new_tensor([3.0]).dtype == fluxgrad.int64


def test_size_and_is_floating_point_are_methods_as_in_torch():
    x = fluxgrad.ones(2, 3)
    assert x.size() == (2, 3) and x.size(1) == 3 and x.size(-2) == 2
    assert x.is_floating_point() and not fluxgrad.tensor([1]).is_floating_point()


def _sample(seed, shape, dtype=np.float32, scale=1.0):
    return (np.random.default_rng(seed).standard_normal(shape) * scale).astype(dtype)


PRINTED_LIKE_TORCH = {
    "summarised 1-d": lambda m: m.arange(2000.),
    "summarised 2-d": lambda m: m.arange(2000.).reshape(40, 50),
    "summarised ints": lambda m: m.arange(2000),
    "wrapped 1-d": lambda m: m.tensor(_sample(1, 30)),
    "wrapped 2-d": lambda m: m.tensor(_sample(2, (5, 30))),
    "summarised random": lambda m: m.tensor(_sample(3, 3000)),
    "nan and inf set no width": lambda m: m.tensor([float("nan"), 1.0, float("inf")]),
    "integral values far apart": lambda m: m.tensor([1.0, 2000.0]),
    "3-d": lambda m: m.tensor(_sample(9, (3, 7, 11))),
    "dtype on its own line": lambda m: m.tensor(_sample(6, (20, 20), np.float64)),
    "small values": lambda m: m.tensor(_sample(13, (3, 9), scale=1e-5)),
    "all True": lambda m: m.tensor([True, True]),
    "True and False": lambda m: m.tensor([[True, False], [True, True]]),
    "empty": lambda m: m.zeros(0, 3),
    "4-d": lambda m: m.tensor(_sample(16, (2, 2, 2, 30))),
}


@pytest.mark.parametrize("make", PRINTED_LIKE_TORCH.values(), ids=PRINTED_LIKE_TORCH.keys())
def test_tensors_print_as_pytorch_prints_them(make):
    torch = pytest.importorskip("torch")
    assert repr(make(fluxgrad)).replace("fluxgrad", "torch") == repr(make(torch))
