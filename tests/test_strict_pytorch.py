"""fluxgrad.set_strict_pytorch: PyTorch's behaviour where fluxgrad's default is Paddle's."""
import numpy as np
import pytest
import torch

import fluxgrad as fg


@pytest.fixture
def strict():
    fg.set_strict_pytorch(True)
    yield
    fg.set_strict_pytorch(False)


def test_non_scalar_backward_seeds_ones_by_default():
    x = fg.tensor([1.0, 2.0], requires_grad=True)
    (x * 3).backward()
    np.testing.assert_array_equal(x.grad.numpy(), [3.0, 3.0])
    assert not fg.is_strict_pytorch()


@pytest.mark.parametrize("call", ["backward", "grad"])
def test_non_scalar_backward_raises_as_pytorch_when_strict(strict, call):
    def run(lib):
        x = lib.tensor([1.0, 2.0], requires_grad=True)
        y = x * 3
        if call == "backward":
            y.backward()
        else:
            lib.autograd.grad(y, x)

    with pytest.raises(RuntimeError, match="grad can be implicitly created only for scalar"):
        run(torch)
    with pytest.raises(RuntimeError, match="grad can be implicitly created only for scalar"):
        run(fg)
    assert fg.is_strict_pytorch()


def test_scalar_backward_and_given_gradients_work_when_strict(strict):
    x = fg.tensor([1.0, 2.0], requires_grad=True)
    (x * 3).sum().backward()
    (x * 3).backward(fg.tensor([1.0, 0.0]))
    np.testing.assert_array_equal(x.grad.numpy(), [6.0, 3.0])
