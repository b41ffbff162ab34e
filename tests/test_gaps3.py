"""Known gaps against PyTorch 2.13, closed one by one: each test names a behaviour torch has
and checks fluxgrad's against torch's own result (values, gradients, errors)."""
import numpy as np
import pytest
import torch

import fluxgrad as fg


def _close(ours, theirs, tol=1e-10):
    ours = ours.detach().numpy() if isinstance(ours, fg.Tensor) else ours
    theirs = theirs.detach().numpy() if isinstance(theirs, torch.Tensor) else theirs
    np.testing.assert_allclose(ours, theirs, rtol=tol, atol=tol)


def _pair(array):
    return fg.tensor(array, requires_grad=True), torch.tensor(array, requires_grad=True)


# --- linalg.eig / eigvals ----------------------------------------------------------------
def test_eig_of_a_real_matrix_is_complex_as_torch():
    a = np.random.default_rng(0).standard_normal((2, 4, 4)).astype(np.float32)
    values, vectors = fg.linalg.eig(fg.tensor(a))
    t_values, t_vectors = torch.linalg.eig(torch.tensor(a))
    assert values.dtype == fg.complex64 and vectors.dtype == fg.complex64
    _close(values, t_values, 1e-5)
    _close(vectors.abs(), t_vectors.abs(), 1e-5)  # (a phase apart, at most)
    v = vectors.numpy()
    _close(np.linalg.norm(v, axis=-2), np.ones((2, 4)), 1e-6)
    largest = np.take_along_axis(v, np.abs(v).argmax(-2)[:, None], -2)
    _close(largest.imag, np.zeros((2, 1, 4)))  # LAPACK's phase: the largest entry real


def test_eig_result_reads_by_name_and_reconstructs_the_matrix():
    a = np.random.default_rng(1).standard_normal((3, 3))
    result = fg.linalg.eig(fg.tensor(a))
    v, w = result.eigenvectors, result.eigenvalues
    _close(fg.linalg.solve(v.mT, (v * w.unsqueeze(-2)).mT).mT.real, a)
    _close(fg.linalg.eigvals(fg.tensor(a)), torch.linalg.eigvals(torch.tensor(a)))


def _phase_free(mod, values, vectors):
    """A loss that doesn't depend on each eigenvector's phase."""
    f = mod.matmul(vectors * values.exp().unsqueeze(-2), mod.linalg.inv(vectors))
    return (f.real * 0.3 + f.imag).sum() + (vectors.abs() ** 3).sum() + values.real.sum()


@pytest.mark.parametrize("complex_input", [False, True])
def test_eig_gradient_of_a_phase_free_loss_matches_torch(complex_input):
    rng = np.random.default_rng(2)
    a = rng.standard_normal((2, 3, 3)) + (1j * rng.standard_normal((2, 3, 3))
                                          if complex_input else 0)
    x, tx = _pair(a)
    _phase_free(fg, *fg.linalg.eig(x)).backward()
    _phase_free(torch, *torch.linalg.eig(tx)).backward()
    assert x.grad.dtype == (fg.complex128 if complex_input else fg.float64)
    _close(x.grad, tx.grad)


def test_eigvals_gradient_matches_torch():
    x, tx = _pair(np.random.default_rng(3).standard_normal((4, 4)))
    (fg.linalg.eigvals(x) ** 2).imag.sum().backward()
    (torch.linalg.eigvals(tx) ** 2).imag.sum().backward()
    _close(x.grad, tx.grad)


def test_eig_under_vmap_matches_the_loop():
    a = fg.tensor(np.random.default_rng(4).standard_normal((3, 3, 3)))
    batched = fg.func.vmap(lambda m: fg.linalg.eigvals(m))(a)
    _close(batched, torch.linalg.eigvals(torch.tensor(a.numpy())))


@pytest.mark.parametrize("a, error", [
    (np.array([[1.0, np.nan], [0.0, 1.0]]), "should not contain infs or NaNs"),
    (np.ones((2, 3)), "square"),
    (np.ones((2, 2), np.int64), "int64"),
])
def test_eig_refuses_what_torch_refuses(a, error):
    with pytest.raises(RuntimeError):
        torch.linalg.eig(torch.tensor(a))
    with pytest.raises(RuntimeError, match=error):
        fg.linalg.eig(fg.tensor(a))


def test_complex_solve_and_inverse_gradients_match_torch():
    rng = np.random.default_rng(5)
    a = rng.standard_normal((3, 3)) + 1j * rng.standard_normal((3, 3))
    b = rng.standard_normal((3, 2)) + 1j * rng.standard_normal((3, 2))
    (x, tx), (y, ty) = _pair(a), _pair(b)
    for mod, p, q in ((fg, x, y), (torch, tx, ty)):
        out = mod.linalg.solve(p, q) + mod.linalg.inv(p)[:, :2]
        ((out * out).real.sum() + out.abs().sum()).backward()
    _close(x.grad, tx.grad)
    _close(y.grad, ty.grad)


@pytest.mark.parametrize("factor", [
    np.array([[1.0, 0.0], [2.0, 0.0]]),
    np.stack([np.eye(2), np.zeros((2, 2))]),
])
def test_cholesky_inverse_of_a_singular_factor_raises_as_torch(factor):
    with pytest.raises(torch.linalg.LinAlgError) as theirs:
        torch.cholesky_inverse(torch.tensor(factor))
    with pytest.raises(fg.linalg.LinAlgError) as ours:
        fg.cholesky_inverse(fg.tensor(factor))
    assert str(ours.value) == str(theirs.value)
