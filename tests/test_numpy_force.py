"""Tensor.numpy(force=True) of a tensor that requires grad gives its data, as
tensor.detach().numpy() (PyTorch's keyword); without it the call is refused."""
import numpy as np
import pytest

import fluxgrad


def test_numpy_force_gives_the_data_of_a_tensor_that_requires_grad():
    t = fluxgrad.tensor([1.0, 2.0], requires_grad=True)
    np.testing.assert_array_equal(t.numpy(force=True), [1.0, 2.0])
    with pytest.raises(RuntimeError, match="requires grad"):
        t.numpy()
