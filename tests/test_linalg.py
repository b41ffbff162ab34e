"""Behaviour of fluxgrad.linalg beyond the generic registry checks: decompositions rebuild
their input, degenerate points behave as PyTorch's, result structures and shapes match
torch.linalg's, and user errors are clear."""
import math

import numpy as np
import pytest
import torch

import fluxgrad as fg
from fluxgrad import linalg as fla

RNG = np.random.default_rng(0)


def rand(*shape):
    return RNG.standard_normal(shape)


def pair(a, requires_grad=False):
    """The same float64 data as a fluxgrad tensor and a torch tensor."""
    a = np.asarray(a, dtype=np.float64)
    return (fg.tensor(a, requires_grad=requires_grad),
            torch.tensor(a, requires_grad=requires_grad))


# --- decompositions rebuild their input ----------------------------------------------------
@pytest.mark.parametrize("shape", [(4, 3), (3, 5), (2, 3, 3), (2, 1, 4, 2)])
@pytest.mark.parametrize("full", [True, False])
def test_svd_rebuilds_the_matrix_with_orthonormal_factors(shape, full):
    a = rand(*shape)
    u, s, vh = fla.svd(fg.tensor(a), full_matrices=full)
    tu, ts, tvh = torch.linalg.svd(torch.tensor(a), full_matrices=full)
    assert (u.shape, s.shape, vh.shape) == (tuple(tu.shape), tuple(ts.shape), tuple(tvh.shape))
    k = s.shape[-1]
    rebuilt = (u.numpy()[..., :k] * s.numpy()[..., None, :]) @ vh.numpy()[..., :k, :]
    np.testing.assert_allclose(rebuilt, a, atol=1e-12)
    eye_u = np.swapaxes(u.numpy(), -1, -2) @ u.numpy()
    np.testing.assert_allclose(eye_u, np.broadcast_to(np.eye(u.shape[-1]), eye_u.shape),
                               atol=1e-12)
    assert fla.svd(fg.tensor(a)).S is not None


def test_eigh_rebuilds_the_symmetric_matrix_from_its_lower_triangle():
    a = rand(2, 4, 4)
    eigenvalues, q = fla.eigh(fg.tensor(np.tril(a)))  # only the lower triangle is read
    sym = np.tril(a) + np.swapaxes(np.tril(a, -1), -1, -2)
    rebuilt = (q.numpy() * eigenvalues.numpy()[..., None, :]) @ np.swapaxes(q.numpy(), -1, -2)
    np.testing.assert_allclose(rebuilt, sym, atol=1e-12)
    np.testing.assert_allclose(eigenvalues.numpy(), np.linalg.eigvalsh(sym), atol=1e-12)
    upper = fla.eigvalsh(fg.tensor(a), UPLO="U").numpy()
    np.testing.assert_allclose(upper, torch.linalg.eigvalsh(torch.tensor(a), UPLO="U").numpy(),
                               atol=1e-12)


@pytest.mark.parametrize("shape,mode", [((5, 3), "reduced"), ((3, 5), "reduced"),
                                        ((5, 3), "complete"), ((2, 4, 4), "reduced")])
def test_qr_rebuilds_the_matrix_with_shapes_of_torch(shape, mode):
    a = rand(*shape)
    q, r = fla.qr(fg.tensor(a), mode=mode)
    tq, tr = torch.linalg.qr(torch.tensor(a), mode=mode)
    assert (q.shape, r.shape) == (tuple(tq.shape), tuple(tr.shape))
    np.testing.assert_allclose(q.numpy() @ r.numpy(), a, atol=1e-12)
    np.testing.assert_allclose(r.numpy(), np.triu(r.numpy()))


def test_qr_mode_r_gives_an_empty_q_and_the_r_of_torch():
    a = rand(4, 3)
    q, r = fla.qr(fg.tensor(a), mode="r")
    assert q.shape == (0,)
    np.testing.assert_allclose(r.numpy(), torch.linalg.qr(torch.tensor(a), mode="r")[1].numpy(),
                               atol=1e-12)


@pytest.mark.parametrize("shape", [(0, 3), (2, 0, 3)])
def test_empty_matrices_decompose_into_empty_factors_as_torch(shape):
    ours = fla.svd(fg.zeros(*shape))
    theirs = torch.linalg.svd(torch.zeros(*shape))
    for o, t in zip(ours, theirs):
        np.testing.assert_array_equal(o.numpy(), t.numpy())
    assert fla.svdvals(fg.zeros(*shape)).shape == tuple(torch.linalg.svdvals(
        torch.zeros(*shape)).shape)
    assert fla.pinv(fg.zeros(*shape)).shape == tuple(torch.linalg.pinv(
        torch.zeros(*shape)).shape)


# --- degenerate points -----------------------------------------------------------------------
def test_svdvals_gradient_is_finite_at_repeated_singular_values():
    a, ta = pair(np.diag([2.0, 2.0, 1.0]) @ np.linalg.qr(rand(3, 3))[0], requires_grad=True)
    fla.svdvals(a).sum().backward()
    torch.linalg.svdvals(ta).sum().backward()
    np.testing.assert_allclose(a.grad.numpy(), ta.grad.numpy(), atol=1e-12)


def test_singular_values_from_svd_differentiate_at_a_repeated_value_as_torch():
    a, ta = pair(np.eye(3), requires_grad=True)
    _, s, _ = fla.svd(a)
    (s * fg.tensor([1.0, 2.0, 3.0], dtype=fg.float64)).sum().backward()
    _, ts, _ = torch.linalg.svd(ta)
    (ts * torch.tensor([1.0, 2.0, 3.0], dtype=torch.float64)).sum().backward()
    assert np.isfinite(a.grad.numpy()).all()
    np.testing.assert_allclose(a.grad.numpy(), ta.grad.numpy(), atol=1e-12)


def test_eigvalsh_gradient_is_finite_at_repeated_eigenvalues():
    a, ta = pair(np.diag([1.0, 1.0, 3.0]), requires_grad=True)
    (fla.eigvalsh(a) ** 2).sum().backward()
    (torch.linalg.eigvalsh(ta) ** 2).sum().backward()
    np.testing.assert_allclose(a.grad.numpy(), ta.grad.numpy(), atol=1e-12)


def test_eigenvector_gradient_at_a_repeated_eigenvalue_is_not_finite_as_in_torch():
    a, ta = pair(np.diag([1.0, 1.0, 3.0]), requires_grad=True)
    with np.errstate(all="ignore"):
        fla.eigh(a)[1][0].sum().backward()
    torch.linalg.eigh(ta)[1][0].sum().backward()
    assert not np.isfinite(a.grad.numpy()).all()
    assert not np.isfinite(ta.grad.numpy()).all()


def test_eigenvector_tangent_at_a_repeated_eigenvalue_divides_as_torch():
    """Forward mode divides by the eigenvalue gaps as PyTorch: not finite where they are 0."""
    import torch.autograd.forward_ad as fwAD
    from fluxgrad.autograd.forward_grad import forward_grad
    a, v = np.diag([1.0, 1.0, 3.0]), rand(3, 3)
    v = v + v.T
    x = fg.tensor(a, requires_grad=True)
    with np.errstate(all="ignore"):
        got = forward_grad([fla.eigh(x)[1]], [x], [fg.tensor(v)])[0].detach().numpy()
    with fwAD.dual_level():
        q = torch.linalg.eigh(fwAD.make_dual(torch.tensor(a), torch.tensor(v)))[1]
        want = fwAD.unpack_dual(q).tangent.numpy()
    assert not np.isfinite(got).all()
    np.testing.assert_allclose(got, want, atol=1e-12, equal_nan=True)


def test_svd_gradient_of_a_sign_free_function_matches_torch():
    """U U^T (a projector) doesn't depend on the singular vectors' signs."""
    a, ta = pair(rand(5, 3), requires_grad=True)
    w = rand(5, 5)
    u = fla.svd(a, full_matrices=False)[0]
    (fg.matmul(u, u.mT) * fg.tensor(w)).sum().backward()
    tu = torch.linalg.svd(ta, full_matrices=False)[0]
    ((tu @ tu.mT) * torch.tensor(w)).sum().backward()
    np.testing.assert_allclose(a.grad.numpy(), ta.grad.numpy(), atol=1e-10)


def test_extra_columns_of_a_full_svd_get_no_gradient_and_a_zero_tangent_as_torch():
    a, ta = pair(rand(4, 2), requires_grad=True)
    fla.svd(a)[0][:, 2:].sum().backward()
    torch.linalg.svd(ta)[0][:, 2:].sum().backward()
    np.testing.assert_array_equal(a.grad.numpy(), ta.grad.numpy())
    _, (u_dot, _, vh_dot) = fg.func.jvp(fla.svd, (fg.tensor(rand(4, 2)),),
                                        (fg.tensor(rand(4, 2)),))
    np.testing.assert_array_equal(u_dot.numpy()[:, 2:], np.zeros((4, 2)))


def test_qr_complete_with_more_rows_than_columns_is_not_differentiable():
    a = fg.tensor(rand(4, 3), requires_grad=True)
    q, r = fla.qr(a, mode="complete")
    with pytest.raises(RuntimeError, match="not differentiable with mode='complete'"):
        q.sum().backward()


def test_solve_triangular_with_a_zero_on_the_diagonal_gives_inf_and_nan_as_torch():
    a = np.triu(rand(3, 3))
    a[1, 1] = 0.0
    b = rand(3, 2)
    ours = fla.solve_triangular(fg.tensor(a), fg.tensor(b), upper=True).numpy()
    theirs = torch.linalg.solve_triangular(torch.tensor(a), torch.tensor(b), upper=True).numpy()
    np.testing.assert_array_equal(np.isfinite(ours), np.isfinite(theirs))


def test_matrix_exp_of_a_batch_scales_each_matrix_by_its_own_norm():
    a = np.stack([0.01 * rand(4, 4), 20.0 * rand(4, 4), np.zeros((4, 4))])
    ours = fla.matrix_exp(fg.tensor(a)).numpy()
    theirs = torch.linalg.matrix_exp(torch.tensor(a)).numpy()
    np.testing.assert_allclose(ours, theirs, rtol=1e-9, atol=1e-12 * np.abs(theirs).max())


def test_matrix_exp_of_a_diagonal_matrix_is_the_exp_of_its_diagonal():
    d = np.array([-3.0, 0.5, 7.0])
    np.testing.assert_allclose(fla.matrix_exp(fg.tensor(np.diag(d))).numpy(),
                               np.diag(np.exp(d)), rtol=1e-13)


# --- composites against torch ------------------------------------------------------------------
NORMS = [({}, (3, 4)), ({"ord": 3.5}, (6,)), ({"ord": 0}, (6,)), ({"ord": "nuc"}, (3, 4)),
         ({"ord": -2}, (4, 3)), ({"ord": math.inf, "dim": (0, 2), "keepdim": True}, (3, 4, 5)),
         ({"dim": 1}, (3, 4, 5)), ({"ord": -math.inf}, (7,))]


@pytest.mark.parametrize("kwargs,shape", NORMS)
def test_norm_values_and_gradients_match_torch(kwargs, shape):
    a, ta = pair(rand(*shape), requires_grad=True)
    out, tout = fla.norm(a, **kwargs), torch.linalg.norm(ta, **kwargs)
    np.testing.assert_allclose(out.detach().numpy(), tout.detach().numpy(), rtol=1e-12)
    w = rand(*out.shape)
    (out * fg.tensor(w)).sum().backward()
    (tout * torch.tensor(w)).sum().backward()
    if ta.grad is None:  # ord=0, a count: PyTorch leaves no gradient, fluxgrad a zero one
        np.testing.assert_array_equal(a.grad.numpy(), np.zeros(shape))
    else:
        np.testing.assert_allclose(a.grad.numpy(), ta.grad.numpy(), rtol=1e-10, atol=1e-12)


def test_vector_norm_takes_a_dtype():
    x = fg.tensor([3, 4])
    assert fla.vector_norm(x, dtype=fg.float64).item() == 5.0
    assert fla.vector_norm(x, dtype=fg.float64).dtype == fg.float64


@pytest.mark.parametrize("kwargs", [{}, {"atol": 0.5}, {"rtol": 0.3}, {"hermitian": True}])
def test_matrix_rank_matches_torch(kwargs):
    a = rand(3, 5, 2) @ rand(3, 2, 5) + np.diag([0.0, 0.0, 0.0, 0.0, 0.4])
    if kwargs.get("hermitian"):
        a = a + np.swapaxes(a, -1, -2)
    ours = fla.matrix_rank(fg.tensor(a), **kwargs)
    theirs = torch.linalg.matrix_rank(torch.tensor(a), **kwargs)
    assert ours.dtype == fg.int64
    np.testing.assert_array_equal(ours.numpy(), theirs.numpy())


@pytest.mark.parametrize("driver", [None, "gels", "gelsd", "gelss"])
def test_lstsq_results_match_torch(driver):
    a, b = rand(2, 6, 3), rand(2, 6, 2)
    ours = fla.lstsq(fg.tensor(a), fg.tensor(b), driver=driver)
    theirs = torch.linalg.lstsq(torch.tensor(a), torch.tensor(b), driver=driver)
    for name in ("solution", "residuals", "rank", "singular_values"):
        o, t = getattr(ours, name), getattr(theirs, name)
        assert o.shape == tuple(t.shape), name
        np.testing.assert_allclose(o.numpy(), t.numpy(), rtol=1e-10, atol=1e-12,
                                   err_msg=name)


def test_lstsq_of_a_rank_deficient_matrix_is_the_minimum_norm_solution():
    a = rand(5, 3)
    a[:, 2] = a[:, 1]
    b = rand(5, 1)
    ours = fla.lstsq(fg.tensor(a), fg.tensor(b), driver="gelsd")
    theirs = torch.linalg.lstsq(torch.tensor(a), torch.tensor(b), driver="gelsd")
    np.testing.assert_allclose(ours.solution.numpy(), theirs.solution.numpy(), atol=1e-10)
    assert ours.rank.item() == theirs.rank.item() == 2
    assert ours.residuals.shape == (0,)


def test_matrix_power_zero_and_one_give_new_tensors():
    a = fg.tensor(rand(2, 3, 3), requires_grad=True)
    identity = fla.matrix_power(a, 0)
    np.testing.assert_array_equal(identity.detach().numpy(), np.broadcast_to(np.eye(3),
                                                                             (2, 3, 3)))
    one = fla.matrix_power(a, 1)
    assert one is not a
    (identity.sum() + one.sum()).backward()
    np.testing.assert_array_equal(a.grad.numpy(), np.ones((2, 3, 3)))


def test_matrix_power_of_integers_stays_integer():
    out = fla.matrix_power(fg.tensor([[1, 1], [1, 0]]), 10)
    assert out.dtype == fg.int64
    assert out.tolist() == [[89, 55], [55, 34]]


def test_multi_dot_picks_the_cheap_order_and_matches_torch():
    shapes = [(10, 100), (100, 5), (5, 50), (50,)]
    arrays = [rand(*s) for s in shapes]
    ours = fla.multi_dot([fg.tensor(x) for x in arrays]).numpy()
    theirs = torch.linalg.multi_dot([torch.tensor(x) for x in arrays]).numpy()
    np.testing.assert_allclose(ours, theirs, rtol=1e-10)
    from fluxgrad.ops.matrix_functions import _chain_order
    assert _chain_order([10, 100, 5, 50])[0][2] == 1  # (A B) C: 5000 + 2500 < 25000 + 50000


def test_cross_defaults_to_the_last_dimension_unlike_fluxgrad_cross():
    a, b = rand(3, 3), rand(3, 3)
    np.testing.assert_allclose(fla.cross(fg.tensor(a), fg.tensor(b)).numpy(),
                               np.cross(a, b, axis=-1))
    np.testing.assert_allclose(fg.cross(fg.tensor(a), fg.tensor(b)).numpy(),
                               np.cross(a, b, axis=0))


@pytest.mark.parametrize("some", [True, False])
def test_torch_svd_gives_v_and_torch_qr_takes_some(some):
    a = rand(2, 5, 3)
    u, s, v = fg.svd(fg.tensor(a), some=some)
    tu, ts, tv = torch.svd(torch.tensor(a), some=some)
    assert (u.shape, s.shape, v.shape) == (tuple(tu.shape), tuple(ts.shape), tuple(tv.shape))
    rebuilt = (u.numpy()[..., :3] * s.numpy()[..., None, :]) @ np.swapaxes(v.numpy(), -1, -2)
    np.testing.assert_allclose(rebuilt, a, atol=1e-12)
    q, r = fg.tensor(a).qr(some=some)
    assert q.shape == ((2, 5, 3) if some else (2, 5, 5))


def test_torch_svd_without_uv_gives_zero_matrices_as_torch():
    a = rand(4, 3)
    u, s, v = fg.svd(fg.tensor(a), compute_uv=False)
    tu, ts, tv = torch.svd(torch.tensor(a), compute_uv=False)
    for ours_part, theirs_part in ((u, tu), (s, ts), (v, tv)):
        np.testing.assert_allclose(ours_part.numpy(), theirs_part.numpy(), atol=1e-12)


def test_paddle_spellings_give_the_torch_results():
    a = rand(3, 4)
    x, t = fg.tensor(a), torch.tensor(a)
    np.testing.assert_allclose(fla.norm(x, p="fro").item(), torch.linalg.norm(t).item())
    np.testing.assert_allclose(fla.vector_norm(x, p=1, axis=0).numpy(),
                               torch.linalg.vector_norm(t, 1, dim=0).numpy())
    np.testing.assert_allclose(fla.matrix_norm(x, p="nuc").item(),
                               torch.linalg.matrix_norm(t, "nuc").item())
    np.testing.assert_allclose(fla.pinv(x, 0.5).numpy(),
                               torch.linalg.pinv(t, rtol=0.5).numpy(), atol=1e-12)
    assert fla.matrix_rank(x, 1e9).item() == 0
    tri = np.triu(rand(3, 3)) + 3 * np.eye(3)
    b = rand(3, 2)
    np.testing.assert_allclose(
        fla.triangular_solve(fg.tensor(tri), fg.tensor(b), transpose=True).numpy(),
        np.linalg.solve(tri.T, b), atol=1e-12)
    with pytest.raises(TypeError, match="got both ord=2 and p=1"):
        fla.norm(x, 2, p=1)


# --- errors ----------------------------------------------------------------------------------
@pytest.mark.parametrize("call,match", [
    (lambda: fla.solve_triangular(fg.eye(3), fg.ones(2, 1), upper=True),
     r"B needs 3 rows \(shape \[\.\.\., 3, k\]\), got shape \[2, 1\]"),
    (lambda: fla.svd(fg.ones(3)), r"svd: expected a matrix.*got shape \[3\]"),
    (lambda: fla.eigh(fg.ones(2, 3)), r"eigh: expected a square matrix.*got shape \[2, 3\]"),
    (lambda: fla.eigh(fg.eye(2), UPLO="X"), "UPLO must be 'L' or 'U', got 'X'"),
    (lambda: fla.qr(fg.eye(2), mode="economic"), "mode must be 'reduced', 'complete' or 'r'"),
    (lambda: fla.matrix_norm(fg.eye(3), ord=3), "ord=3 is not supported"),
    (lambda: fla.norm(fg.ones(2, 3, 4), ord=2), "must be 1-D or 2-D, got shape"),
    (lambda: fla.multi_dot([fg.eye(2)]), "at least 2 tensors, got 1"),
    (lambda: fla.multi_dot([fg.ones(2, 3), fg.ones(2, 3)]), "tensors 0 and 1 can't be"),
    (lambda: fla.matrix_power(fg.ones(2, 3), 2), r"square matrix.*got shape \[2, 3\]"),
    (lambda: fla.lstsq(fg.ones(4, 3), fg.ones(5, 2)), "B needs 4 rows"),
    (lambda: fla.lstsq(fg.ones(4, 3), fg.ones(4, 2), driver="gelsx"), "driver must be one of"),
    (lambda: fla.pinv(fg.ones(2, 3), hermitian=True), "hermitian=True needs square matrices"),
])
def test_user_errors_name_the_problem(call, match):
    with pytest.raises(ValueError, match=match):
        call()


def test_vector_norm_refuses_a_matrix_ord_and_matrix_power_a_float_exponent():
    with pytest.raises(TypeError, match="ord must be a number, got 'fro'"):
        fla.vector_norm(fg.ones(3), "fro")
    with pytest.raises(TypeError, match="n must be an int, got 0.5"):
        fla.matrix_power(fg.eye(2), 0.5)
    with pytest.raises(TypeError, match="needs a floating point dtype"):
        fla.matrix_power(fg.tensor([[1, 0], [0, 1]]), -1)


SINGULAR = {"2x2 rank 1": [[1.0, 2.0], [2.0, 4.0]], "2x2 nilpotent": [[0.0, 1.0], [0.0, 0.0]],
            "3x3 rank 2": [[1.0, 2.0, 3.0], [4.0, 5.0, 6.0], [7.0, 8.0, 9.0]],
            "3x3 diagonal rank 2": [[2.0, 0.0, 0.0], [0.0, 0.0, 0.0], [0.0, 0.0, 3.0]],
            "3x3 zero": [[0.0] * 3] * 3}


def _adjugate_transposed(a):
    """The cofactor matrix by minors (closed form, independent of the code under test)."""
    n = len(a)
    a = np.array(a)
    return np.array([[(-1) ** (i + j) * np.linalg.det(np.delete(np.delete(a, i, 0), j, 1))
                      for j in range(n)] for i in range(n)])


@pytest.mark.parametrize("name", list(SINGULAR))
def test_det_gradient_at_a_singular_matrix_is_the_adjugate(name):
    data = SINGULAR[name]
    x = fg.tensor(data, dtype=fg.float64, requires_grad=True)
    fg.linalg.det(x).backward()
    np.testing.assert_allclose(x.grad.numpy(), _adjugate_transposed(data), atol=1e-12)
    # torch gives the adjugate when it differentiates with create_graph (its SVD path)
    t = torch.tensor(data, dtype=torch.float64, requires_grad=True)
    expected, = torch.autograd.grad(torch.linalg.det(t), t, create_graph=True)
    np.testing.assert_allclose(x.grad.numpy(), expected.detach().numpy(), atol=1e-12)


def test_det_gradient_of_a_batch_with_a_singular_matrix():
    data = [[[1.0, 2.0], [2.0, 4.0]], [[1.0, 0.0], [0.0, 2.0]]]
    x = fg.tensor(data, dtype=fg.float64, requires_grad=True)
    fg.det(x).sum().backward()
    np.testing.assert_allclose(x.grad.numpy(), [[[4.0, -2.0], [-2.0, 1.0]],
                                                [[2.0, 0.0], [0.0, 1.0]]], atol=1e-12)


# --- the `_ex` forms and LU on matrices that don't factor -----------------------------------
def _singular_batch():
    ok = np.array([[2.0, 1.0], [1.0, 3.0]])
    singular = np.array([[1.0, 2.0], [2.0, 4.0]])
    indefinite = np.array([[1.0, 2.0], [2.0, 1.0]])
    return np.stack([ok, singular, indefinite])


def test_inv_ex_and_solve_ex_report_the_info_pytorch_reports():
    a = _singular_batch()
    b = np.ones((3, 2, 1))
    inverse, info = fg.linalg.inv_ex(fg.tensor(a))
    want = torch.linalg.inv_ex(torch.tensor(a))
    np.testing.assert_array_equal(info.numpy(), want.info.numpy())
    assert info.dtype == fg.int32
    np.testing.assert_allclose(inverse.numpy()[0], want.inverse.numpy()[0])
    assert np.isnan(inverse.numpy()[1]).all()
    result, info = fg.linalg.solve_ex(fg.tensor(a), fg.tensor(b))
    np.testing.assert_array_equal(info.numpy(), torch.linalg.solve_ex(torch.tensor(a),
                                                                      torch.tensor(b)).info)
    assert np.isnan(result.numpy()[1]).all() and np.isfinite(result.numpy()[0]).all()


def test_cholesky_ex_reports_the_order_of_the_first_failing_minor():
    a = _singular_batch()
    for upper in (False, True):
        _, info = fg.linalg.cholesky_ex(fg.tensor(a), upper=upper)
        want = torch.linalg.cholesky_ex(torch.tensor(a), upper=upper).info
        np.testing.assert_array_equal(info.numpy(), want.numpy())


def test_ex_forms_with_check_errors_raise_linalg_error():
    a = fg.tensor(_singular_batch())
    for call in (lambda: fg.linalg.inv_ex(a, check_errors=True),
                 lambda: fg.linalg.cholesky_ex(a, check_errors=True),
                 lambda: fg.linalg.solve_ex(a, fg.ones(3, 2, 1), check_errors=True)):
        with pytest.raises(fg.linalg.LinAlgError, match="check_errors"):
            call()
    with pytest.raises(RuntimeError, match="lu_factor_ex"):  # as PyTorch, not a LinAlgError
        fg.linalg.lu_factor_ex(a, check_errors=True)


def test_lu_factor_of_a_singular_matrix_raises_but_lu_factor_ex_returns_info():
    a = _singular_batch()[1]
    with pytest.raises(RuntimeError, match="lu_factor_ex"):
        fg.linalg.lu_factor(fg.tensor(a))
    got = fg.linalg.lu_factor_ex(fg.tensor(a))
    want = torch.linalg.lu_factor_ex(torch.tensor(a))
    for g, w in zip(got, want):
        np.testing.assert_array_equal(g.numpy(), w.numpy())


def test_lu_without_pivoting_is_refused_as_on_pytorchs_cpu():
    with pytest.raises(RuntimeError, match="pivot=True"):
        fg.linalg.lu(fg.eye(3), pivot=False)


def test_lu_unpack_refuses_pivots_that_are_not_int32():
    lu_data, pivots = fg.linalg.lu_factor(fg.eye(3))
    with pytest.raises(TypeError, match="int32"):
        fg.lu_unpack(lu_data, pivots.long())
