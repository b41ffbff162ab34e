"""Where PyTorch's top-level function wants a tensor and raises TypeError for a Python number
or list (torch.exp(2.0)), fluxgrad raises TypeError too; the Tensor methods and NumPy inputs
work as before."""
import contextlib
import inspect
import io
import warnings

import numpy as np
import pytest
import torch

import fluxgrad as fg

UNARY = ["exp", "exp2", "expm1", "log", "log2", "log10", "log1p", "sqrt", "rsqrt", "reciprocal",
         "sin", "cos", "tan", "asin", "arcsin", "acos", "arccos", "atan", "arctan", "sinh",
         "cosh", "tanh", "asinh", "arcsinh", "acosh", "arccosh", "atanh", "arctanh", "abs",
         "isnan", "isinf", "isfinite", "logical_not", "signbit", "nan_to_num", "rad2deg",
         "deg2rad", "sinc"]


@pytest.mark.parametrize("value", [2.0, 2, True, [0.5, 1.0]], ids=["float", "int", "bool", "list"])
@pytest.mark.parametrize("name", UNARY)
def test_python_value_is_a_type_error_as_in_pytorch(name, value):
    with pytest.raises(TypeError):
        getattr(torch, name)(value)
    with pytest.raises(TypeError, match="argument 'input' must be Tensor, not"):
        getattr(fg, name)(value)


@pytest.mark.parametrize("name", UNARY)
def test_tensors_of_every_kind_still_work(name):
    x = np.array([0.5, 0.25], np.float32)
    expected = getattr(torch, name)(torch.from_numpy(x)).numpy()
    np.testing.assert_allclose(getattr(fg, name)(fg.from_numpy(x)).numpy(), expected, rtol=1e-6)
    np.testing.assert_allclose(getattr(fg.from_numpy(x), name)().numpy(), expected, rtol=1e-6)


# Every top-level function fluxgrad shares with torch, called with a Python number alone:
# where torch raises TypeError, fluxgrad must too (other projects' op suites check the type).
STATEFUL = {"manual_seed", "seed", "initial_seed", "set_rng_state", "get_rng_state", "load",
            "save", "compile", "no_grad", "enable_grad", "inference_mode", "vmap", "cond",
            "from_numpy", "frombuffer", "use_deterministic_algorithms"}
# PaddlePaddle's spellings fluxgrad keeps: paddle.randint(high) draws from [0, high)
PADDLE_FORMS = {("randint", 2)}


def _shared_functions():
    return sorted(n for n in dir(torch) if not n.startswith(("_", "set_")) and n not in STATEFUL
                  and hasattr(fg, n) and callable(getattr(torch, n))
                  and not inspect.isclass(getattr(torch, n))
                  and not inspect.ismodule(getattr(torch, n)))


def _raises_type_error(fn, value):
    try:
        with warnings.catch_warnings(), contextlib.redirect_stdout(io.StringIO()):
            warnings.simplefilter("ignore")
            fn(value)
    except TypeError:
        return True
    except Exception:  # noqa: BLE001 (any other outcome is "not a TypeError")
        return False
    return False


@pytest.mark.parametrize("value", [2.0, 2], ids=["float", "int"])
@pytest.mark.parametrize("name", _shared_functions())
def test_shared_function_refuses_a_number_as_torch_does(name, value):
    if (name, value) in PADDLE_FORMS or not _raises_type_error(getattr(torch, name), value):
        return  # torch takes it (or refuses it otherwise): nothing to match here
    with warnings.catch_warnings(), contextlib.redirect_stdout(io.StringIO()):
        warnings.simplefilter("ignore")
        with pytest.raises(TypeError):
            getattr(fg, name)(value)


@pytest.mark.parametrize("call", [
    lambda lib: lib.eye(2.0), lambda lib: lib.eye(2, 3.0), lambda lib: lib.randperm(2.0),
    lambda lib: lib.randint(2.0, (3,)), lambda lib: lib.randint(0, 2.0, (3,)),
    lambda lib: lib.normal(2.0, 1.0), lambda lib: lib.diag(2), lambda lib: lib.diag_embed(2),
    lambda lib: lib.atleast_1d([2.0]), lambda lib: lib.broadcast_tensors(lib.ones(2), 2.0),
    lambda lib: lib.meshgrid([1.0, 2.0]), lambda lib: lib.where(True),
    lambda lib: lib.nn.functional.hardshrink(2.0), lambda lib: lib.nn.functional.rrelu(2.0),
], ids=["eye", "eye_m", "randperm", "randint_high", "randint_low_high", "normal_no_size",
        "diag_int", "diag_embed_int", "atleast_1d_list", "broadcast_tensors_number",
        "meshgrid_numbers", "where_bool", "F_hardshrink", "F_rrelu"])
def test_numbers_in_place_of_tensors_or_ints_are_type_errors(call):
    with pytest.raises(TypeError):
        call(torch)
    with pytest.raises(TypeError):
        call(fg)


def test_the_forms_torch_takes_still_work():
    assert tuple(fg.normal(2.0, 1.0, (3,)).shape) == (3,)
    assert tuple(fg.normal(fg.zeros(2), 1.0).shape) == (2,)
    np.testing.assert_array_equal(fg.eye(2, 3).numpy(), torch.eye(2, 3).numpy())
    assert tuple(fg.randint(0, 5, (4,)).shape) == (4,)
    assert sorted(fg.randperm(4).tolist()) == [0, 1, 2, 3]
    assert [tuple(t.shape) for t in fg.atleast_2d([fg.ones(()), fg.ones(3)])] == [(1, 1), (1, 3)]
    a, b = fg.broadcast_tensors(fg.ones(2, 1), fg.ones(3))
    assert tuple(a.shape) == tuple(b.shape) == (2, 3)
    np.testing.assert_array_equal(fg.where(fg.tensor([0, 1, 1]))[0].numpy(), [1, 2])
    np.testing.assert_allclose(fg.celu(fg.tensor([-1.0, 1.0])).numpy(),
                               torch.celu(torch.tensor([-1.0, 1.0])).numpy(), rtol=1e-6)


def test_numpy_arrays_stay_accepted_where_fluxgrad_took_them():
    x = np.array([[2.0, 1.0], [1.0, 3.0]])
    np.testing.assert_allclose(fg.det(x).item(), 5.0)
    np.testing.assert_allclose(fg.tril(x).numpy(), np.tril(x))
    assert [tuple(t.shape) for t in fg.meshgrid(np.arange(2.0), np.arange(3.0))] == [(2, 3)] * 2
