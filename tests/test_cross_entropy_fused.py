"""Edge cases of the fused cross-entropy (fluxgrad/ops/losses.py) against PyTorch: what the
registry's random samples don't reach."""
import numpy as np
import pytest
import torch

import fluxgrad as fg
import fluxgrad.nn.functional as F


def _both(x, target, **options):
    """(loss, gradient) of fluxgrad's and of PyTorch's cross_entropy."""
    xf = fg.tensor(x, requires_grad=True)
    loss = F.cross_entropy(xf, fg.tensor(target), **options)
    loss.sum().backward()
    xt = torch.tensor(x, requires_grad=True)
    t_loss = torch.nn.functional.cross_entropy(xt, torch.tensor(target), **options)
    t_loss.sum().backward()
    return (loss.detach().numpy(), xf.grad.numpy()), (t_loss.detach().numpy(), xt.grad.numpy())


def test_every_target_ignored_gives_a_nan_mean_and_a_zero_gradient():
    x = np.random.default_rng(0).standard_normal((3, 4))
    (loss, grad), (t_loss, t_grad) = _both(x, np.array([-100, -100, -100]))
    assert np.isnan(loss) and np.isnan(t_loss)
    np.testing.assert_array_equal(grad, t_grad)
    assert not grad.any()


def test_a_masked_logit_of_another_class_keeps_the_loss_finite():
    x = np.array([[0.5, -np.inf, 1.0], [-np.inf, 2.0, 0.0]])
    (loss, grad), (t_loss, t_grad) = _both(x, np.array([0, 1]))
    np.testing.assert_allclose(loss, t_loss, rtol=1e-12)
    np.testing.assert_allclose(grad, t_grad, rtol=1e-12)
    assert np.isfinite(grad).all()


@pytest.mark.parametrize("dtype", [np.float32, np.float16])
def test_the_loss_and_its_gradient_keep_the_input_dtype(dtype):
    x = np.random.default_rng(1).standard_normal((6, 5)).astype(dtype)
    (loss, grad), (t_loss, t_grad) = _both(x, np.array([0, 4, 2, 2, 1, 3]),
                                           label_smoothing=0.1)
    assert loss.dtype == dtype and grad.dtype == dtype
    tol = 1e-5 if dtype == np.float32 else 2e-3
    np.testing.assert_allclose(loss, t_loss, rtol=tol, atol=tol)
    np.testing.assert_allclose(grad, t_grad, rtol=tol, atol=tol)


def test_class_weights_of_the_wrong_size_are_refused_naming_the_sizes():
    with pytest.raises(RuntimeError, match=r"cross_entropy: weight .* shape \[4\] .* got \[3\]"):
        F.cross_entropy(fg.randn(2, 4), fg.tensor([0, 1]), weight=fg.ones(3))


def test_an_unknown_reduction_is_refused_naming_it():
    with pytest.raises(ValueError, match="nll_loss: reduction .* 'average'"):
        F.nll_loss(fg.randn(2, 4), fg.tensor([0, 1]), reduction="average")


@pytest.mark.parametrize("options", [{}, {"reduction": "none"}, {"label_smoothing": 0.2}])
def test_vmap_over_the_class_weights_matches_a_loop(options):
    rng = np.random.default_rng(2)
    x = fg.tensor(rng.standard_normal((5, 4)), requires_grad=True)
    target = fg.tensor(np.array([2, 0, -100, 3, 1]))
    weights = fg.tensor(rng.uniform(0.5, 2.0, (3, 4)))
    batched = fg.func.vmap(lambda w: F.cross_entropy(x, target, weight=w, **options))(weights)
    looped = fg.stack([F.cross_entropy(x, target, weight=weights[i], **options)
                       for i in range(3)])
    np.testing.assert_allclose(batched.detach().numpy(), looped.detach().numpy(), rtol=1e-12)
    np.testing.assert_allclose(fg.grad(batched.sum(), x)[0].numpy(),
                               fg.grad(looped.sum(), x)[0].numpy(), rtol=1e-12)
