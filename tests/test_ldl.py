"""ldl_factor / ldl_factor_ex / ldl_solve against torch (LAPACK sytrf/sytrs): the same pivots
and factors, 2x2 pivot blocks included, and solutions of A X = B."""
import numpy as np
import pytest

import fluxgrad

torch = pytest.importorskip("torch")


def symmetric(rng, n, *, small_diagonal):
    a = rng.standard_normal((n, n))
    a = a + a.T
    if small_diagonal:  # Bunch-Kaufman then picks 2x2 pivot blocks
        a[np.diag_indices(n)] *= 0.01
    return a


@pytest.mark.parametrize("small_diagonal", [False, True])
def test_factors_and_pivots_match_lapack(small_diagonal):
    rng = np.random.default_rng(0)
    for n in range(1, 9):
        a = symmetric(rng, n, small_diagonal=small_diagonal)
        theirs = torch.linalg.ldl_factor_ex(torch.tensor(a))
        ours = fluxgrad.linalg.ldl_factor_ex(fluxgrad.tensor(a))
        np.testing.assert_array_equal(ours.pivots.numpy(), theirs.pivots.numpy())
        np.testing.assert_allclose(ours.LD.numpy(), theirs.LD.numpy(), rtol=1e-10, atol=1e-12)
        assert ours.pivots.dtype == fluxgrad.int32 and int(ours.info) == 0


def test_two_by_two_blocks_occur_and_solve():
    rng = np.random.default_rng(1)
    a = symmetric(rng, 6, small_diagonal=True)
    LD, pivots = fluxgrad.linalg.ldl_factor(fluxgrad.tensor(a))
    assert (pivots.numpy() < 0).any()
    b = rng.standard_normal((6, 3))
    x = fluxgrad.linalg.ldl_solve(LD, pivots, fluxgrad.tensor(b))
    np.testing.assert_allclose(a @ x.numpy(), b, atol=1e-10)


def test_solve_broadcasts_batches():
    rng = np.random.default_rng(2)
    a = np.stack([symmetric(rng, 4, small_diagonal=True) for _ in range(3)])
    LD, pivots = fluxgrad.linalg.ldl_factor(fluxgrad.tensor(a))
    b = rng.standard_normal((4, 2))
    x = fluxgrad.linalg.ldl_solve(LD, pivots, fluxgrad.tensor(b)).numpy()
    assert x.shape == (3, 4, 2)
    np.testing.assert_allclose(a @ x, np.broadcast_to(b, (3, 4, 2)), atol=1e-10)


def test_singular_matrix_reports_info_and_ldl_factor_raises():
    zero = fluxgrad.zeros(3, 3, dtype=fluxgrad.float64)
    assert int(fluxgrad.linalg.ldl_factor_ex(zero).info) == 1
    with pytest.raises(fluxgrad.linalg.LinAlgError, match="singular"):
        fluxgrad.linalg.ldl_factor(zero)


def test_non_square_input_is_refused():
    with pytest.raises(ValueError, match="square"):
        fluxgrad.linalg.ldl_factor(fluxgrad.zeros(2, 3, dtype=fluxgrad.float64))
