"""binary_cross_entropy_with_logits is twice differentiable everywhere, at a logit of 0 too
(a Newton step from zero weights needs its Hessian there); values from PyTorch."""
import pytest
import torch

import fluxgrad as fg


def _hessian_diagonal(lib, pos_weight):
    x = lib.tensor([0.0, 0.0, 2.5, -30.0], dtype=lib.float64, requires_grad=True)
    y = lib.tensor([1.0, 0.3, 0.0, 1.0], dtype=lib.float64)
    weight = None if pos_weight is None else lib.tensor(pos_weight, dtype=lib.float64)
    loss = lib.nn.functional.binary_cross_entropy_with_logits(x, y, reduction="sum",
                                                              pos_weight=weight)
    g, = lib.autograd.grad(loss, x, create_graph=True)
    h, = lib.autograd.grad(g.sum(), x)
    return loss.item(), g.tolist(), h.tolist()


@pytest.mark.parametrize("pos_weight", [None, 2.0])
def test_value_gradient_and_second_derivative_match_pytorch(pos_weight):
    ours = _hessian_diagonal(fg, pos_weight)
    theirs = _hessian_diagonal(torch, pos_weight)
    for a, b in zip(ours, theirs):
        assert a == pytest.approx(b, rel=1e-10, abs=1e-12)


def test_hessian_at_zero_weights_is_the_logistic_curvature():
    X = fg.tensor([[1.0, 2.0], [1.0, -1.0], [1.0, 0.5]], dtype=fg.float64)
    y = fg.tensor([1.0, 0.0, 1.0], dtype=fg.float64)
    H = fg.autograd.functional.hessian(
        lambda w: fg.nn.functional.binary_cross_entropy_with_logits(X @ w, y, reduction="sum"),
        fg.zeros(2, dtype=fg.float64))
    assert H.flatten().tolist() == pytest.approx((0.25 * X.T @ X).flatten().tolist(), rel=1e-12)
