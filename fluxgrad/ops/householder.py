"""QR in LAPACK's Householder form: `geqrf` and `ormqr`, as torch.geqrf / torch.ormqr.

- geqrf(A) -> (a, tau): for A [..., m, n], R in a's upper triangle and the Householder
  vectors v_i below the diagonal (v_i[i] = 1 left out), with Q = H_1 ... H_k,
  H_i = I - tau_i v_i v_i^T, k = min(m, n). Not differentiable, as torch's.
- ormqr(input, tau, other, left=True, transpose=False): op(Q) @ other (left) or other @ op(Q),
  op(Q) = Q or Q^T, with Q the m x m product of the tau.shape[-1] reflectors stored in input
  [..., m, n] (geqrf's output). A composite of matmuls: differentiable in all three arguments.
"""
import collections

import numpy as np

from .._core.errors import DTypeError, ShapeError, refuse_python_value
from .._core.tensor import Tensor, tensor_method
from ..creation import eye
from .linalg import matmul, tril
from .shape import clone, reshape, transpose

__all__ = ["geqrf", "ormqr"]

GeqrfResult = collections.namedtuple("geqrf", ["a", "tau"])


@tensor_method("geqrf")
def geqrf(input):
    """The QR factorization of input [..., m, n] in LAPACK's compact form (a, tau)."""
    refuse_python_value(input, "geqrf")
    if input.ndim < 2:
        raise ShapeError(f"geqrf: input must have at least 2 dimensions, got shape "
                         f"{list(input.shape)}")
    if not input.dtype.is_floating_point:
        raise DTypeError(f"geqrf: expected a floating point input, got {input.dtype}")
    data = input.detach().numpy()
    m, n = data.shape[-2:]
    if 0 in data.shape:
        return GeqrfResult(Tensor(data.copy()), Tensor(np.zeros(data.shape[:-2] + (min(m, n),),
                                                                 data.dtype)))
    h, tau = np.linalg.qr(data, mode="raw")  # h is LAPACK's column-major array, transposed
    return GeqrfResult(Tensor(np.ascontiguousarray(np.swapaxes(h, -1, -2)).astype(data.dtype)),
                       Tensor(tau.astype(data.dtype)))


def _check_ormqr(input, tau, other, left):
    side = -2 if left else -1
    problems = []
    if input.ndim < 2 or other.ndim < 2 or tau.ndim < 1:
        problems.append("input and other must have at least 2 dimensions, tau at least 1")
    elif other.shape[side] < tau.shape[-1]:
        problems.append(f"other.shape[{side}] must be greater than or equal to tau.shape[-1]")
    elif other.shape[side] != input.shape[-2]:
        problems.append(f"other.shape[{side}] must be equal to input.shape[-2]")
    elif tau.shape[-1] > input.shape[-1]:
        problems.append("tau.shape[-1] must be less than or equal to input.shape[-1]")
    elif input.ndim - tau.ndim != 1:
        problems.append("expected tau to have one dimension less than input")
    elif input.ndim != other.ndim:
        problems.append("expected other to have the same number of dimensions as input")
    elif input.shape[:-2] != tau.shape[:-1] or input.shape[:-2] != other.shape[:-2]:
        problems.append("input, tau and other must have the same batch dimensions")
    if problems:
        raise ShapeError(f"ormqr: {problems[0]}; got input {list(input.shape)}, tau "
                         f"{list(tau.shape)}, other {list(other.shape)} (left={left})")
    if not (input.dtype == tau.dtype == other.dtype) or not input.dtype.is_floating_point:
        raise DTypeError(f"ormqr: input, tau and other must share one floating dtype, got "
                         f"{input.dtype}, {tau.dtype} and {other.dtype}")


@tensor_method("ormqr")
def ormqr(input, tau, other, left=True, transpose=False):
    """Q @ other (left) or other @ Q, Q^T in place of Q when `transpose`, with Q the
    orthogonal matrix of geqrf's (input, tau)."""
    _check_ormqr(input, tau, other, left)
    m, k = input.shape[-2], tau.shape[-1]
    vectors = tril(input[..., :, :k], -1) + eye(m, k, dtype=input.dtype)
    # Q = H_1 ... H_k: Q C applies H_k first, Q^T C applies H_1 first; C Q the other way round
    order = range(k) if left == transpose else range(k - 1, -1, -1)
    out = clone(other)
    for i in order:
        v = vectors[..., :, i:i + 1]
        t = reshape(tau[..., i], tuple(tau.shape[:-1]) + (1, 1))
        if left:
            out = out - t * matmul(v, matmul(_t(v), out))
        else:
            out = out - t * matmul(matmul(out, v), _t(v))
    return out


def _t(x):
    return transpose(x, -1, -2)
