"""jacfwd(grad(f)) and hessian(f) where f branches in Python on a value every example shares
(the primal, unbatched; only its tangent is batched): torch.func handles these, and so does
fluxgrad. A value that differs between examples still can't be read inside vmap."""
import numpy as np
import pytest
import torch

import fluxgrad as fg

X = [1.0, -2.0, 3.0]


def branch_on_sum(lib):
    def f(x):
        if x.sum() > 0:
            return (x ** 3).sum()
        return (x ** 2).sum()
    return f


def scale_by_float_of_norm(lib):
    def f(x):
        return (x ** 2).sum() * float(x.detach().norm())
    return f


def branch_on_item_of_max(lib):
    def f(x):
        k = 2 if x.max().item() > 2.5 else 1
        return (lib.sin(x) ** k).sum()
    return f


FUNCTIONS = [branch_on_sum, scale_by_float_of_norm, branch_on_item_of_max]
TRANSFORMS = {
    "hessian": lambda lib, f: lib.func.hessian(f),
    "jacfwd_of_grad": lambda lib, f: lib.func.jacfwd(lib.func.grad(f)),
    "jacfwd_of_jacrev": lambda lib, f: lib.func.jacfwd(lib.func.jacrev(f)),
    "jacfwd_of_jacfwd": lambda lib, f: lib.func.jacfwd(lib.func.jacfwd(f)),
}


@pytest.mark.parametrize("make", FUNCTIONS, ids=[f.__name__ for f in FUNCTIONS])
@pytest.mark.parametrize("transform", list(TRANSFORMS))
def test_second_derivative_through_a_python_branch_matches_torch(make, transform):
    want = TRANSFORMS[transform](torch, make(torch))(torch.tensor(X, dtype=torch.float64))
    got = TRANSFORMS[transform](fg, make(fg))(fg.tensor(X, dtype=fg.float64))
    np.testing.assert_allclose(got.numpy(), want.numpy(), rtol=1e-12, atol=1e-12)


def test_hvp_through_a_python_branch_matches_torch():
    v = [0.5, 1.0, -1.0]
    _, want = torch.func.jvp(torch.func.grad(branch_on_sum(torch)),
                             (torch.tensor(X, dtype=torch.float64),),
                             (torch.tensor(v, dtype=torch.float64),))
    _, got = fg.func.hvp(branch_on_sum(fg), (fg.tensor(X, dtype=fg.float64),),
                         (fg.tensor(v, dtype=fg.float64),))
    np.testing.assert_allclose(got.numpy(), want.numpy(), rtol=1e-12)


def test_reading_a_value_that_differs_per_example_still_raises():
    f = branch_on_sum(fg)
    with pytest.raises(RuntimeError, match="different value for each of the 2 examples"):
        fg.func.vmap(f)(fg.tensor([[1.0, 2.0], [-3.0, 1.0]]))


def test_reading_a_batched_input_raises_even_when_its_examples_happen_to_be_equal():
    # as torch.func: only a value derived from unbatched tensors is shared
    with pytest.raises(RuntimeError, match="different value for each"):
        fg.func.vmap(branch_on_sum(fg))(fg.ones(2, 3))
    with pytest.raises(RuntimeError):
        torch.func.vmap(branch_on_sum(torch))(torch.ones(2, 3))


def test_a_value_mixed_with_a_batched_one_can_not_be_read_in_jacfwd():
    def f(x, y):
        if (x * y).sum() > 0:
            return (x * y).sum()
        return x.sum()
    jac = fg.func.jacfwd(fg.func.grad(f), argnums=1)
    x, y = fg.tensor([1.0, 2.0]), fg.tensor([3.0, 4.0])
    np.testing.assert_allclose(jac(x, y).numpy(), np.eye(2))  # the branch reads primals only
    with pytest.raises(RuntimeError, match="different value"):
        fg.func.vmap(lambda y: f(x, y))(fg.stack([y, -y]))


def _hvp_columns_reading_a_random_draw(randomness):
    def h(p):
        b = fg.bernoulli(p.detach().clamp(0.3, 0.7))  # from a shared value: a draw per example
        return (p * b).sum() * (1.0 + 0 * float(b.sum()))
    p = fg.tensor([0.5] * 50, dtype=fg.float64)
    return fg.func.vmap(lambda v: fg.func.jvp(fg.func.grad(h), (p,), (v,)),
                        randomness=randomness)(fg.eye(50, dtype=fg.float64))


def test_a_random_draw_per_example_from_a_shared_value_can_not_be_read():
    with pytest.raises(RuntimeError, match="different value for each of the 50 examples"):
        _hvp_columns_reading_a_random_draw("different")

