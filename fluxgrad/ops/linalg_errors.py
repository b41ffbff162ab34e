"""`fluxgrad.linalg.LinAlgError` and PyTorch's messages for matrices an op can't factor.

A singular matrix (inv, solve), one that is not positive-definite (cholesky), or a
factorization that does not converge (svd, eigh) raises LinAlgError, a RuntimeError as
torch.linalg.LinAlgError, never NumPy's. The message is PyTorch's: the op, then
"(Batch element i): " naming the first failing matrix of a batch (i counts the batch
flattened), then the reason with LAPACK's 1-based index. `info` arrays hold that index per
matrix (0: factored), as the `_ex` variants return them.
"""
import numpy as np

__all__ = ["LinAlgError"]


class LinAlgError(RuntimeError):
    """A matrix the op can't factor (singular, not positive-definite, no convergence): a
    RuntimeError, as torch.linalg.LinAlgError."""


INVERSE_SINGULAR = ("The diagonal element {k} is zero, the inversion could not be completed "
                    "because the input matrix is singular.")
SOLVE_SINGULAR = "The solver failed because the input matrix is singular."
NOT_POSITIVE_DEFINITE = ("The factorization could not be completed because the input is not "
                         "positive-definite (the leading minor of order {k} is not "
                         "positive-definite).")
LU_ZERO_PIVOT = ("U[{k},{k}] is zero and using it on lu_solve would result in a division by "
                 "zero. If you still want to perform the factorization, consider calling "
                 "linalg.lu(A, pivot) or linalg.lu_factor_ex(A, pivot)")
SVD_NOT_FINITE = ("The algorithm failed to converge because the input matrix contained "
                  "non-finite values.")
SVD_NO_CONVERGENCE = ("The algorithm failed to converge because the input matrix is "
                      "ill-conditioned or has too many repeated singular values.")
EIGH_NO_CONVERGENCE = ("The algorithm failed to converge because the input matrix is "
                       "ill-conditioned or has too many repeated eigenvalues.")


def failure(op, info, reason, hint="", error=LinAlgError):
    """The error for the first nonzero entry of `info` (one per matrix of the batch; a
    0-d array for a single matrix), or None if every matrix was factored."""
    info = np.asarray(info)
    bad = np.flatnonzero(info)
    if not bad.size:
        return None
    first = int(bad[0])
    where = f"(Batch element {first}): " if info.ndim else ""
    return error(f"{op}: {where}{reason.format(k=int(info.flat[first]))}{hint}")


def blame(op, info, reason, hint=""):
    """failure(...) for a batch NumPy refused: where `info` marks no matrix (the check and
    NumPy disagree on rounding), the first matrix is blamed."""
    info = np.array(info, np.int32)
    if not info.any():
        info.flat[0] = 1
    return failure(op, info, reason, hint)


def lu_info(a):
    """The 1-based index of the first zero on the diagonal of U in A = P L U, per matrix."""
    from .lu import _factor_arrays
    return _factor_arrays(a)[2]


def _factors(matrix):
    try:
        return bool(np.all(np.diagonal(np.linalg.cholesky(matrix)) > 0))
    except np.linalg.LinAlgError:
        return False


def zero_diagonal_info(a):
    """The 1-based index of the first zero on the diagonal of each triangular factor in `a`
    (0 where there is none)."""
    zeros = np.diagonal(a, axis1=-2, axis2=-1) == 0
    if not zeros.shape[-1]:  # (empty matrices have nothing to refuse)
        return np.zeros(zeros.shape[:-1], np.int32)
    return np.where(zeros.any(-1), zeros.argmax(-1) + 1, 0).astype(np.int32)


def cholesky_info(a, upper=False):
    """The order of the first leading minor that is not positive-definite (NaN counts as not
    positive, as in LAPACK), per matrix; 0 where the matrix is positive-definite."""
    matrices = np.swapaxes(a, -1, -2) if upper else a
    flat = matrices.reshape((int(np.prod(a.shape[:-2])),) + a.shape[-2:])
    info = np.zeros(flat.shape[0], np.int32)
    for i, matrix in enumerate(flat):
        if not _factors(matrix):
            info[i] = next(k for k in range(1, matrix.shape[-1] + 1)
                           if not _factors(matrix[:k, :k]))
    return info.reshape(a.shape[:-2])


def svd_failure(op, x, decompose):
    """The LinAlgError for a batch `x` that `decompose` (an SVD) did not converge on."""
    flat = x.reshape((-1,) + x.shape[-2:])
    not_finite = ~np.isfinite(flat).all(axis=(-2, -1))
    if not_finite.any():
        return failure(op, not_finite.reshape(x.shape[:-2]), SVD_NOT_FINITE)
    return _first_refused(op, x, flat, decompose, SVD_NO_CONVERGENCE)


def eigh_failure(op, x, decompose):
    """The LinAlgError for a batch `x` that `decompose` (an eigh) did not converge on."""
    flat = x.reshape((-1,) + x.shape[-2:])
    return _first_refused(op, x, flat, decompose, EIGH_NO_CONVERGENCE)


def _first_refused(op, x, flat, decompose, reason):
    refused = np.zeros(flat.shape[0], np.int32)
    for i, matrix in enumerate(flat):
        try:
            decompose(matrix)
        except np.linalg.LinAlgError:
            refused[i] = 1
            break
    info = refused.reshape(x.shape[:-2])
    return blame(op, info, reason)


def guarded(fn, explain):
    """fn as an impl whose NumPy LinAlgError becomes explain(*arrays, **params) (an error)."""
    def impl(*arrays, **params):
        try:
            return fn(*arrays, **params)
        except np.linalg.LinAlgError:
            raise explain(*arrays, **params) from None
    return impl
