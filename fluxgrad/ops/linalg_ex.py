"""The `_ex` forms of torch.linalg's factorizations and solvers: cholesky_ex, inv_ex and
solve_ex return (result, info) instead of raising on a matrix that can't be factored.

info (int32, one per matrix of the batch) is 0 where the matrix was factored, else LAPACK's
1-based index: for cholesky_ex the order of the first leading minor that is not positive
definite, for inv_ex and solve_ex the first zero on the diagonal of the LU factor's U. With
check_errors=True a nonzero info raises LinAlgError with PyTorch's message. The results
are composites of cholesky, inverse and solve (differentiable as they are); where info is
not 0 they are NaN (PyTorch leaves LAPACK's partial result there).
"""

from .._core.dispatch import apply
from .._core.primitive import Primitive
from ..creation import eye
from .elementwise import where
from .linalg import _matrix_batch, _square, cholesky, inverse, solve
from .linalg_errors import (INVERSE_SINGULAR, NOT_POSITIVE_DEFINITE, SOLVE_SINGULAR,
                            cholesky_info, failure)
from .lu import lu_pivots_p
from .shape import reshape

__all__ = []


cholesky_info_p = Primitive("cholesky_info", cholesky_info,
                            batch=_matrix_batch("cholesky_info"))


class _ExResult(tuple):
    __slots__ = ()
    info = property(lambda self: self[1])


def _named(first):
    return type(f"{first.capitalize()}ExResult", (_ExResult,),
                {"__slots__": (), first: property(lambda self: self[0])})


CholeskyExResult = _named("L")
InvExResult = _named("inverse")
SolveExResult = _named("result")


def _failed(op, info, check_errors, reason):
    """The mask of matrices that could not be factored, [..., 1, 1] (None: all were)."""
    if not info._data.any():
        return None
    if check_errors:
        raise failure(op, info._data, reason, " (check_errors=False returns info instead)")
    return reshape(info != 0, tuple(info.shape) + (1, 1))


def _on_good_matrices(a, bad, fn):
    """fn(a) where `bad` is False and NaN where it is True (fn runs on the identity there)."""
    if bad is None:
        return fn(a)
    identity = eye(a.shape[-1], dtype=a.dtype)
    out = fn(where(bad, identity, a))
    if out.ndim < bad.ndim:  # solve with a vector right-hand side: out is [..., n]
        bad = reshape(bad, tuple(bad.shape[:-1]))
    return where(bad, float("nan"), out)


def cholesky_ex(A, *, upper=False, check_errors=False):
    """(L, info) as torch.linalg.cholesky_ex."""
    a = _square("linalg.cholesky_ex", A)
    info = apply(cholesky_info_p, a, upper=bool(upper))
    bad = _failed("linalg.cholesky_ex", info, check_errors, NOT_POSITIVE_DEFINITE)
    return CholeskyExResult((_on_good_matrices(a, bad, lambda m: cholesky(m, upper=upper)),
                             info))


def inv_ex(A, *, check_errors=False):
    """(inverse, info) as torch.linalg.inv_ex."""
    a = _square("linalg.inv_ex", A)
    info = apply(lu_pivots_p, a)[1]
    bad = _failed("linalg.inv_ex", info, check_errors, INVERSE_SINGULAR)
    return InvExResult((_on_good_matrices(a, bad, inverse), info))


def solve_ex(A, B, *, left=True, check_errors=False):
    """(result, info) as torch.linalg.solve_ex."""
    a = _square("linalg.solve_ex", A)
    info = apply(lu_pivots_p, a)[1]
    bad = _failed("torch.linalg.solve_ex", info, check_errors, SOLVE_SINGULAR)
    return SolveExResult((_on_good_matrices(a, bad, lambda m: solve(m, B, left=left)), info))
