"""The LDL^T factorization of symmetric matrices with Bunch-Kaufman pivoting, in LAPACK's
compact format (`sytrf` with uplo='L'), as torch.linalg.ldl_factor / ldl_factor_ex / ldl_solve.

- ldl_factor_ex(A, *, hermitian=False, check_errors=False) -> (LD, pivots, info): LD holds L
  (unit lower triangular, its 1s left out) below the diagonal and the 1x1 and 2x2 blocks of D
  on the diagonal and first subdiagonal; the upper triangle is zero. pivots (int32, 1-based):
  pivots[k] = p > 0 means rows and columns k and p-1 were swapped and D[k, k] is a 1x1 block;
  pivots[k] = pivots[k+1] = -p < 0 means a 2x2 block at k, k+1 with k+1 and p-1 swapped.
  info (int32) is 0, or k + 1 when D[k, k] is exactly zero (A singular).
- ldl_factor(A, *, hermitian=False) -> (LD, pivots): the same, raising
  fluxgrad.linalg.LinAlgError where info would be nonzero (as check_errors=True does).
- ldl_solve(LD, pivots, B, *, hermitian=False) -> X with A X = B (`sytrs`); batch dimensions
  broadcast.

Only A's lower triangle is read. For real matrices `hermitian` changes nothing. The kernels
are LAPACK's unblocked algorithms (dsytf2, dsytrs) written out in NumPy: they follow LAPACK's
pivot decisions step by step. Not differentiable, as torch's.
"""
import collections
import math

import numpy as np

from .._core import dtypes
from .._core.errors import ArgumentError, DTypeError, ShapeError
from .._core.tensor import Tensor

__all__ = ["ldl_factor", "ldl_factor_ex", "ldl_solve"]

_ALPHA = (1 + math.sqrt(17)) / 8
LDLFactorEx = collections.namedtuple("ldl_factor_ex", ["LD", "pivots", "info"])
LDLFactor = collections.namedtuple("ldl_factor", ["LD", "pivots"])


def _first_max(values):
    """LAPACK's idamax: the first index of the largest absolute value."""
    return int(np.argmax(np.abs(values)))


def _swap(a, b):
    a[...], b[...] = b.copy(), a.copy()


def _sytf2(a):
    """LAPACK dsytf2 (uplo='L') on a copy of one n x n matrix: (LD, 1-based pivots, info)."""
    a = np.tril(a).astype(np.float64 if a.dtype == np.float64 else a.dtype, copy=True)
    n = a.shape[0]
    piv = np.zeros(n, np.int32)
    info = 0
    k = 0
    while k < n:
        kstep = 1
        absakk = abs(a[k, k])
        if k < n - 1:
            imax = k + 1 + _first_max(a[k + 1:, k])
            colmax = abs(a[imax, k])
        else:
            imax, colmax = k, 0.0
        if max(absakk, colmax) == 0 or np.isnan(absakk):
            info = info or k + 1
            kp = k
        else:
            if absakk >= _ALPHA * colmax:
                kp = k
            else:
                rowmax = abs(a[imax, k + _first_max(a[imax, k:imax])])
                if imax < n - 1:
                    rowmax = max(rowmax, abs(a[imax + 1 + _first_max(a[imax + 1:, imax]), imax]))
                if absakk >= _ALPHA * colmax * (colmax / rowmax):
                    kp = k
                elif abs(a[imax, imax]) >= _ALPHA * rowmax:
                    kp = imax
                else:
                    kp, kstep = imax, 2
            kk = k + kstep - 1
            if kp != kk:
                if kp < n - 1:
                    _swap(a[kp + 1:, kk], a[kp + 1:, kp])
                _swap(a[kk + 1:kp, kk], a[kp, kk + 1:kp])
                a[kk, kk], a[kp, kp] = a[kp, kp], a[kk, kk]
                if kstep == 2:
                    a[k + 1, k], a[kp, k] = a[kp, k], a[k + 1, k]
            if kstep == 1:
                if k < n - 1:
                    d11 = 1 / a[k, k]
                    x = a[k + 1:, k].copy()
                    a[k + 1:, k + 1:] += np.tril(np.outer(x, -d11 * x))
                    a[k + 1:, k] *= d11
            elif k < n - 2:
                d21 = a[k + 1, k]
                d11 = a[k + 1, k + 1] / d21
                d22 = a[k, k] / d21
                t = 1 / (d11 * d22 - 1)
                d21 = t / d21
                for j in range(k + 2, n):
                    wk = d21 * (d11 * a[j, k] - a[j, k + 1])
                    wkp1 = d21 * (d22 * a[j, k + 1] - a[j, k])
                    a[j:, j] -= a[j:, k] * wk + a[j:, k + 1] * wkp1
                    a[j, k], a[j, k + 1] = wk, wkp1
        if kstep == 1:
            piv[k] = kp + 1
        else:
            piv[k] = piv[k + 1] = -(kp + 1)
        k += kstep
    return a, piv, info


def _sytrs(a, piv, b):
    """LAPACK dsytrs (uplo='L'): solve A X = B from dsytf2's factors, B of shape [n, m]."""
    b = b.copy()
    n = a.shape[0]
    k = 0
    while k < n:  # L D Y = P B
        if piv[k] > 0:
            kp = piv[k] - 1
            if kp != k:
                _swap(b[k], b[kp])
            b[k + 1:] -= np.outer(a[k + 1:, k], b[k])
            b[k] /= a[k, k]
            k += 1
        else:
            kp = -piv[k] - 1
            if kp != k + 1:
                _swap(b[k + 1], b[kp])
            b[k + 2:] -= np.outer(a[k + 2:, k], b[k]) + np.outer(a[k + 2:, k + 1], b[k + 1])
            akm1k = a[k + 1, k]
            akm1, ak = a[k, k] / akm1k, a[k + 1, k + 1] / akm1k
            denom = akm1 * ak - 1
            bkm1, bk = b[k] / akm1k, b[k + 1] / akm1k
            b[k], b[k + 1] = (ak * bkm1 - bk) / denom, (akm1 * bk - bkm1) / denom
            k += 2
    k = n - 1
    while k >= 0:  # L^T X = Y, undoing the swaps
        if piv[k] > 0:
            b[k] -= a[k + 1:, k] @ b[k + 1:]
            kp = piv[k] - 1
            if kp != k:
                _swap(b[k], b[kp])
            k -= 1
        else:
            b[k] -= a[k + 1:, k] @ b[k + 1:]
            b[k - 1] -= a[k + 1:, k - 1] @ b[k + 1:]
            kp = -piv[k] - 1
            if kp != k:
                _swap(b[k], b[kp])
            k -= 2
    return b


def _square_float(A, op):
    if A.ndim < 2 or A.shape[-1] != A.shape[-2]:
        raise ShapeError(f"{op}: A must be a batch of square matrices [..., n, n], got shape "
                         f"{list(A.shape)}")
    if not A.dtype.is_floating_point:
        raise DTypeError(f"{op}: expected a floating point A, got {A.dtype}; convert it with "
                         ".double() or .float()")


def ldl_factor_ex(A, *, hermitian=False, check_errors=False):
    """The LDL^T factorization of the symmetric A (its lower triangle) with Bunch-Kaufman
    pivoting: (LD, pivots, info) in LAPACK's compact format."""
    _square_float(A, "ldl_factor_ex")
    data = A.detach().numpy()
    batch, n = data.shape[:-2], data.shape[-1]
    LD = np.zeros_like(data)
    pivots = np.zeros(batch + (n,), np.int32)
    info = np.zeros(batch, np.int32)
    for index in np.ndindex(*batch):
        LD[index], pivots[index], info[index] = _sytf2(data[index])
    if check_errors and info.any():
        from .linalg_errors import failure
        raise failure("torch.linalg.ldl_factor", info, "A is singular: D has a zero diagonal "
                      "entry at position {k} (1-based); call ldl_factor_ex to get the factors "
                      "and info without raising")
    return LDLFactorEx(Tensor(LD), Tensor(pivots), Tensor(info))


def ldl_factor(A, *, hermitian=False):
    """The LDL^T factorization of the symmetric A: (LD, pivots); see ldl_factor_ex."""
    LD, pivots, _ = ldl_factor_ex(A, hermitian=hermitian, check_errors=True)
    return LDLFactor(LD, pivots)


def ldl_solve(LD, pivots, B, *, hermitian=False):
    """X with A X = B from ldl_factor's (LD, pivots) of A; batch dimensions broadcast."""
    _square_float(LD, "ldl_solve")
    if B.ndim < 2 or B.shape[-2] != LD.shape[-1]:
        raise ShapeError(f"ldl_solve: B must be [..., {LD.shape[-1]}, k] to match LD of shape "
                         f"{list(LD.shape)}, got shape {list(B.shape)}")
    if tuple(pivots.shape) != tuple(LD.shape[:-1]):
        raise ShapeError(f"ldl_solve: expected pivots of shape {list(LD.shape[:-1])} (LD's "
                         f"shape without its last dimension), got {list(pivots.shape)}")
    if pivots.dtype != dtypes.int32:
        raise DTypeError(f"ldl_solve: pivots must be int32 (as ldl_factor returns them), got "
                         f"{pivots.dtype}")
    if B.dtype != LD.dtype:
        raise DTypeError(f"ldl_solve: LD and B must have the same dtype, got {LD.dtype} and "
                         f"{B.dtype}")
    n = LD.shape[-1]
    batch = np.broadcast_shapes(tuple(LD.shape[:-2]), tuple(B.shape[:-2]))
    a = np.broadcast_to(LD.detach().numpy(), batch + (n, n))
    p = np.broadcast_to(pivots.detach().numpy(), batch + (n,))
    b = np.broadcast_to(B.detach().numpy(), batch + tuple(B.shape[-2:]))
    X = np.empty(b.shape, b.dtype)
    for index in np.ndindex(*batch):
        if np.any(np.abs(p[index]) > n) or np.any(p[index] == 0):
            raise ArgumentError(f"ldl_solve: pivots must lie in 1..{n} or -{n}..-1 (LAPACK's "
                                f"1-based format), got {p[index].tolist()}")
        X[index] = _sytrs(a[index], p[index], b[index])
    return Tensor(X)
