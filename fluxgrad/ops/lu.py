"""The LU decomposition with partial pivoting, A = P @ L @ U, of real matrices [..., m, n]
(k = min(m, n): L is [..., m, k] unit lower triangular, U [..., k, n] upper triangular, P a
permutation matrix), and what PyTorch builds on it: linalg.lu, lu_factor(_ex), lu_unpack,
lu_solve, and the older torch.lu.

One primitive, `lu`, carries the derivative (PyTorch's formulas, any m and n; P is constant).
The packed form LU (L's strict lower triangle over U) is a composite of P, L and U, and the
pivots (LAPACK's 1-based row swaps, int32) and `info` (the 1-based index of the first zero
on U's diagonal, 0 if none) come from a primitive without derivative. The pivots are those
of LAPACK's getrf: at each column the row of largest magnitude, the first on ties.
"""
import numpy as np

from .._core.dispatch import apply
from .._core.errors import ShapeError
from .._core.primitive import Primitive
from .._core.tensor import Tensor, tensor_method
from .decompositions import _matrix, solve_triangular
from .elementwise import no_grad_primitive, zeros_like_rule
from .linalg import _matrix_batch, _mT, matmul, tril, triu
from .shape import concat, pad

__all__ = ["lu", "lu_factor", "lu_factor_ex", "lu_unpack", "lu_solve", "torch_lu",
           "torch_lu_solve"]


def _factor_arrays(a):
    """(packed LU, pivots [..., k] int32 1-based, info [...] int32) of a [..., m, n] array."""
    *batch, m, n = a.shape
    k = min(m, n)
    lu = np.array(a, copy=True).reshape(int(np.prod(batch)), m, n)
    rows = np.arange(lu.shape[0])
    pivots = np.zeros((lu.shape[0], k), np.int32)
    info = np.zeros(lu.shape[0], np.int32)
    for j in range(k):
        p = j + np.argmax(np.abs(lu[:, j:, j]), axis=1)
        pivots[:, j] = p + 1
        lu[rows, j], lu[rows, p] = lu[rows, p], lu[rows, j].copy()
        pivot = lu[:, j, j]
        singular = pivot == 0
        info = np.where((info == 0) & singular, j + 1, info)
        lu[:, j + 1:, j] /= np.where(singular, 1, pivot)[:, None]  # LAPACK skips a zero pivot
        lu[:, j + 1:, j + 1:] -= lu[:, j + 1:, j:j + 1] * lu[:, j:j + 1, j + 1:]
    return (lu.reshape(a.shape), pivots.reshape(tuple(batch) + (k,)),
            info.reshape(tuple(batch)))


def _permutation_arrays(pivots, m, dtype):
    """The permutation matrix P [..., m, m] of LAPACK's row swaps `pivots` [..., k]."""
    batch, k = pivots.shape[:-1], pivots.shape[-1]
    swaps = pivots.reshape(int(np.prod(batch)), k).astype(np.int64) - 1
    perm = np.broadcast_to(np.arange(m), (swaps.shape[0], m)).copy()
    rows = np.arange(swaps.shape[0])
    for j in range(k):
        perm[rows, j], perm[rows, swaps[:, j]] = perm[rows, swaps[:, j]], perm[rows, j].copy()
    p = np.zeros((swaps.shape[0], m, m), dtype)
    p[rows[:, None], perm, np.arange(m)] = 1  # (P^T A) row i is A's row perm[i]
    return p.reshape(tuple(batch) + (m, m))


def _lu_impl(a):
    lu, pivots, _ = _factor_arrays(a)
    m, n = a.shape[-2:]
    k = min(m, n)
    lower = np.tril(lu[..., :, :k], -1) + np.eye(m, k, dtype=a.dtype)
    return _permutation_arrays(pivots, m, a.dtype), lower, np.triu(lu[..., :k, :])


def _lower_inverse_t(l, x):
    """L^-T @ x for a unit lower triangular L."""
    return solve_triangular(_mT(l), x, upper=True, unitriangular=True)


def _lu_vjp(out_bar, out, a):
    _, l_bar, u_bar = out_bar
    p, l, u = out
    m, n = a.shape[-2:]
    if m <= n:  # U = [U1 | U2], U1 square: U2 = L^-1 P^T A2
        u1, u2 = u[..., :m], u[..., m:]
        u1_bar, u2_bar = u_bar[..., :m], u_bar[..., m:]
        f_bar = (tril(matmul(_mT(l), l_bar) - matmul(u2_bar, _mT(u2)), -1)
                 + triu(matmul(u1_bar, _mT(u1))))
        a1_bar = solve_triangular(_mT(u1), f_bar, upper=False, left=False)
        return matmul(p, _lower_inverse_t(l, concat([a1_bar, u2_bar], -1)))
    # L = [L1; L2], L1 square: L2 = (P^T A)2 U^-1
    l1, l2 = l[..., :n, :], l[..., n:, :]
    l1_bar, l2_bar = l_bar[..., :n, :], l_bar[..., n:, :]
    f_bar = (tril(matmul(_mT(l1), l1_bar), -1)
             + triu(matmul(u_bar, _mT(u)) - matmul(_mT(l2), l2_bar)))
    stacked = concat([_lower_inverse_t(l1, f_bar), l2_bar], -2)
    return matmul(p, solve_triangular(_mT(u), stacked, upper=False, left=False))


def _lu_jvp(tangents, out, a):
    p, l, u = out
    m, n = a.shape[-2:]
    a_dot = matmul(_mT(p), tangents[0])  # P^T A_dot
    if m <= n:
        u1, u2 = u[..., :m], u[..., m:]
        f = solve_triangular(u1, solve_triangular(l, a_dot[..., :m], upper=False,
                                                  unitriangular=True),
                             upper=True, left=False)
        lower = tril(f, -1)
        u2_dot = (solve_triangular(l, a_dot[..., m:], upper=False, unitriangular=True)
                  - matmul(lower, u2))
        return zeros_like_rule(p), matmul(l, lower), concat([matmul(triu(f), u1), u2_dot], -1)
    l1, l2 = l[..., :n, :], l[..., n:, :]
    f = solve_triangular(u, solve_triangular(l1, a_dot[..., :n, :], upper=False,
                                             unitriangular=True),
                         upper=True, left=False)
    upper = triu(f)
    l2_dot = solve_triangular(u, a_dot[..., n:, :], upper=True, left=False) - matmul(l2, upper)
    return zeros_like_rule(p), concat([matmul(l1, tril(f, -1)), l2_dot], -2), matmul(upper, u)


lu_p = Primitive("lu", _lu_impl, n_outputs=3, vjp=(_lu_vjp,), jvp=_lu_jvp, saves_out=True,
                 batch=_matrix_batch("lu"))


def _pivots_impl(a):
    _, pivots, info = _factor_arrays(a)
    return pivots, info


def _permutation_impl(pivots, *, m, dtype):
    return _permutation_arrays(pivots, m, np.dtype(dtype))


lu_pivots_p = Primitive("lu_pivots", _pivots_impl, n_outputs=2, batch=_matrix_batch("lu_pivots"))
lu_permutation_p = no_grad_primitive("lu_permutation", _permutation_impl)


class LUResult(tuple):
    """(P, L, U), also readable by name."""
    __slots__ = ()
    P = property(lambda self: self[0])
    L = property(lambda self: self[1])
    U = property(lambda self: self[2])


class LUFactorResult(tuple):
    """(LU, pivots) or (LU, pivots, info), also readable by name."""
    __slots__ = ()
    LU = property(lambda self: self[0])
    pivots = property(lambda self: self[1])
    info = property(lambda self: self[2])


def _need_pivot(op, pivot):
    if not pivot:
        raise RuntimeError(f"{op}: LU without pivoting is not implemented on the CPU (nor in "
                           "PyTorch); use pivot=True")


def lu(A, *, pivot=True):
    """P, L, U with A = P @ L @ U, as torch.linalg.lu (differentiable in A)."""
    _need_pivot("linalg.lu", pivot)
    return LUResult(apply(lu_p, _matrix("linalg.lu", A)))


def _packed(l, u):
    """L's strict lower triangle over U, as one [..., m, n] matrix."""
    m, k, n = l.shape[-2], l.shape[-1], u.shape[-1]
    return pad(tril(l, -1), (0, n - k)) + pad(u, (0, 0, 0, m - k))


def lu_factor_ex(A, *, pivot=True, check_errors=False):
    """(LU, pivots, info) as torch.linalg.lu_factor_ex: LU packed, pivots LAPACK's 1-based
    row swaps (int32), info the 1-based index of the first zero on U's diagonal (0: none)."""
    _need_pivot("linalg.lu_factor_ex", pivot)
    a = _matrix("linalg.lu_factor_ex", A)
    _, l, u = apply(lu_p, a)
    pivots, info = apply(lu_pivots_p, a)
    if check_errors:
        _raise_if_singular("torch.linalg.lu_factor_ex", info)
    return LUFactorResult((_packed(l, u), pivots, info))


def _raise_if_singular(op, info):
    """PyTorch's RuntimeError (not a LinAlgError) for the first singular matrix."""
    from .linalg_errors import LU_ZERO_PIVOT, failure
    err = failure(op, info._data, LU_ZERO_PIVOT, error=RuntimeError)
    if err is not None:
        raise err


def lu_factor(A, *, pivot=True):
    """(LU, pivots) as torch.linalg.lu_factor; a singular matrix raises (use lu_factor_ex)."""
    lu_data, pivots, info = lu_factor_ex(A, pivot=pivot)
    _raise_if_singular("torch.linalg.lu_factor", info)
    return LUFactorResult((lu_data, pivots))


@tensor_method("lu")
def torch_lu(A, pivot=True, get_infos=False):
    """torch.lu: (LU, pivots), and info with get_infos=True."""
    lu_data, pivots, info = lu_factor_ex(A, pivot=pivot)
    return LUFactorResult((lu_data, pivots, info) if get_infos else (lu_data, pivots))


def _check_pivots(op, lu_data, pivots):
    if not isinstance(pivots, Tensor) or pivots._data.dtype != np.int32:
        raise TypeError(f"{op}: pivots must be an int32 tensor (from lu_factor), got "
                        f"{getattr(pivots, 'dtype', type(pivots).__name__)}")
    k = min(lu_data.shape[-2:])
    if tuple(pivots.shape) != tuple(lu_data.shape[:-2]) + (k,):
        raise ShapeError(f"{op}: LU of shape {list(lu_data.shape)} needs pivots of shape "
                         f"{list(lu_data.shape[:-2]) + [k]}, got {list(pivots.shape)}")


def lu_unpack(LU_data, LU_pivots, unpack_data=True, unpack_pivots=True):
    """P, L, U from lu_factor's (LU, pivots), as torch.lu_unpack (L and U differentiable in
    LU); an output not unpacked is an empty tensor."""
    lu_data = _matrix("lu_unpack", LU_data)
    _check_pivots("lu_unpack", lu_data, LU_pivots)
    m, n = lu_data.shape[-2:]
    k = min(m, n)
    empty = Tensor(np.zeros((0,), lu_data._data.dtype))
    p = l = u = empty
    if unpack_pivots:
        p = apply(lu_permutation_p, LU_pivots, m=m, dtype=lu_data._data.dtype.name)
    if unpack_data:
        from ..creation import eye
        l = tril(lu_data[..., :, :k], -1) + eye(m, k, dtype=lu_data.dtype)
        u = triu(lu_data[..., :k, :])
    return LUResult((p, l, u))


def lu_solve(LU, pivots, B, *, left=True, adjoint=False):
    """The solution X of A @ X = B (X @ A = B with left=False; A^T in place of A with
    adjoint=True) given lu_factor(A), as torch.linalg.lu_solve (differentiable in LU and B)."""
    lu_data = _matrix("linalg.lu_solve", LU)
    if lu_data.shape[-1] != lu_data.shape[-2]:
        raise ShapeError(f"linalg.lu_solve: LU must be square, got shape {list(lu_data.shape)}")
    b = _matrix("linalg.lu_solve", B)
    if not left:
        return _mT(lu_solve(lu_data, pivots, _mT(b), adjoint=not adjoint))
    p, l, u = lu_unpack(lu_data, pivots)
    if adjoint:  # A^T = U^T L^T P^T
        y = solve_triangular(_mT(u), b, upper=False)
        return matmul(p, solve_triangular(_mT(l), y, upper=True, unitriangular=True))
    y = solve_triangular(l, matmul(_mT(p), b), upper=False, unitriangular=True)
    return solve_triangular(u, y, upper=True)


@tensor_method("lu_solve")
def torch_lu_solve(b, LU_data, LU_pivots):
    """torch.lu_solve(b, LU_data, LU_pivots): the X of A @ X = b."""
    return lu_solve(LU_data, LU_pivots, b)
