"""`fluxgrad.linalg`: the linear algebra ops under `torch.linalg` / `paddle.linalg` names.

Where the two differ, PyTorch's signature comes first and Paddle's spellings are accepted
besides (norms' `p` / `axis`, pinv's `rcond`, matrix_rank's `tol`, triangular_solve); the
defaults are PyTorch's (svd's full_matrices=True, where Paddle's is False).
"""
import numpy as np

from ._core.errors import ArgumentError
from .ops.decompositions import (eigh, eigvalsh, matrix_exp, pinv, qr, solve_triangular, svd,
                                 svdvals)
from .ops.linalg import cholesky, det, inverse, matmul, slogdet, solve
from .ops.linalg_eig import eig, eigvals
from .ops.linalg_errors import LinAlgError
from .ops.linalg_ex import cholesky_ex, inv_ex, solve_ex
from .ops.lu import lu, lu_factor, lu_factor_ex, lu_solve
from .ops.linalg import diagonal as _diagonal
from .ops.matrix_functions import (cholesky_solve, cond, cross, householder_product, lstsq,
                                   matrix_norm, matrix_power, matrix_rank, multi_dot, norm,
                                   triangular_solve, vander, vecdot, vector_norm)

__all__ = ["inv", "det", "slogdet", "solve", "cholesky", "matmul", "diagonal", "LinAlgError",
           "svd", "svdvals", "eigh", "eigvalsh", "qr", "pinv", "solve_triangular", "matrix_exp",
           "norm", "vector_norm", "matrix_norm", "cond", "matrix_rank", "lstsq", "matrix_power",
           "multi_dot", "cholesky_solve", "cross", "triangular_solve", "vecdot", "tensorinv",
           "tensorsolve", "cholesky_ex", "inv_ex", "solve_ex", "lu", "lu_factor", "lu_factor_ex",
           "lu_solve", "vander", "householder_product", "eig", "eigvals"]

inv = inverse


def diagonal(A, *, offset=0, dim1=-2, dim2=-1):
    """The diagonal over dim1, dim2 (by default the last two axes), as torch.linalg.diagonal."""
    return _diagonal(A, offset, dim1, dim2)


def tensorinv(A, ind=2):
    """The inverse of A seen as a map from its last dimensions to its first `ind` ones: the
    tensor B of shape A.shape[ind:] + A.shape[:ind] with tensordot(B, A, ind) the identity."""
    rows, cols = A.shape[:ind], A.shape[ind:]
    n = int(np.prod(rows))
    if n != int(np.prod(cols)):
        raise ArgumentError(f"tensorinv: the first {ind} dimensions of shape {list(A.shape)} "
                            "must hold as many entries as the others")
    return inverse(A.reshape(n, n)).reshape(tuple(cols) + tuple(rows))


def tensorsolve(A, B, dims=None):
    """The X with tensordot(A, X, X.ndim) == B, as torch.linalg.tensorsolve."""
    if dims is not None:
        rest = [d for d in range(A.ndim) if d not in [d % A.ndim for d in dims]]
        A = A.permute(*rest, *[d % A.ndim for d in dims])
    cols = A.shape[B.ndim:]
    n = int(np.prod(B.shape))
    return solve(A.reshape(n, -1), B.reshape(n)).reshape(cols)


from .ops.ldl import ldl_factor, ldl_factor_ex, ldl_solve  # noqa: E402

__all__ += ["ldl_factor", "ldl_factor_ex", "ldl_solve"]
