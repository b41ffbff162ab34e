"""Where PyTorch's top-level function wants a tensor and raises TypeError for a Python number
or list (torch.exp(2.0)), fluxgrad raises TypeError too; the Tensor methods and NumPy inputs
work as before."""
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
