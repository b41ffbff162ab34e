"""`nn.utils.parametrizations`: weight_norm, spectral_norm and orthogonal as parametrizations
(`nn.utils.parametrize`), as PyTorch's.

`weight_norm(module)`: `parametrizations.weight.original0` is the norm g (over every
dimension but `dim`), `original1` the direction v; `module.weight` is v * g / ||v||.
`spectral_norm(module)`: `module.weight` is the original divided by its largest singular value,
estimated by power iteration on the buffers `_u`, `_v` of the parametrization (15 steps on
registration, then `n_power_iterations` at each access in training).
`orthogonal(module)`: `module.weight` (a matrix or a batch of them) has orthonormal columns (or
rows, when wide): the matrix exponential or Cayley transform of a skew-symmetric matrix built from
the original, or a product of Householder reflectors; with `use_trivialization` (the default) it
is then multiplied by `base`, a buffer holding the initial orthogonal matrix, and the original
starts as -I. A wide or tall weight is completed to a square orthogonal `base` with random
columns (which only the later steps of training see).
"""
import numpy as np

from ... import ops
from ..._core.grad_mode import no_grad
from ..._core.tensor import Tensor
from ...creation import arange, eye, tensor, zeros_like
from ...linalg import matrix_exp, qr, solve
from ...random import randn
from .. import functional as F
from ..module import Module
from . import parametrize
from ._norms import as_matrix, norm_except_dim, power_iteration, spectral_dim
from ._norms import weight_norm as _weight_norm

__all__ = ["weight_norm", "spectral_norm", "orthogonal"]


class _WeightNorm(Module):
    def __init__(self, dim=0):
        super().__init__()
        self.dim = -1 if dim is None else dim

    def forward(self, weight_g, weight_v):
        return _weight_norm(weight_v, weight_g, self.dim)

    def right_inverse(self, weight):
        return norm_except_dim(weight, self.dim), weight


class _SpectralNorm(Module):
    def __init__(self, weight, n_power_iterations=1, dim=0, eps=1e-12):
        super().__init__()
        ndim = weight.ndim
        if not -ndim <= dim < ndim:
            raise IndexError(f"Dimension out of range (expected to be in range of [-{ndim}, "
                             f"{ndim - 1}] but got {dim})")
        if n_power_iterations <= 0:
            raise ValueError("Expected n_power_iterations to be positive, but got "
                             f"n_power_iterations={n_power_iterations}")
        self.dim = dim % ndim
        self.eps = eps
        if ndim > 1:
            self.n_power_iterations = n_power_iterations
            weight_mat = as_matrix(weight.detach(), self.dim)
            h, w = weight_mat.shape
            self.register_buffer("_u", F.normalize(randn(h, dtype=weight.dtype), dim=0, eps=eps))
            self.register_buffer("_v", F.normalize(randn(w, dtype=weight.dtype), dim=0, eps=eps))
            power_iteration(weight_mat, self._u, self._v, 15, eps, u_first=True)

    def forward(self, weight):
        if weight.ndim == 1:
            return F.normalize(weight, dim=0, eps=self.eps)
        weight_mat = as_matrix(weight, self.dim)
        if self.training:
            power_iteration(weight_mat, self._u, self._v, self.n_power_iterations, self.eps,
                            u_first=True)
        sigma = ops.vdot(self._u.clone(), ops.mv(weight_mat, self._v.clone()))
        return weight / sigma

    def right_inverse(self, value):
        return value


def weight_norm(module, name="weight", dim=0):
    """Reparametrize `module.<name>` as a norm times a direction (see the module docstring)."""
    parametrize.register_parametrization(module, name, _WeightNorm(dim), unsafe=True)
    return module


def spectral_norm(module, name="weight", n_power_iterations=1, eps=1e-12, dim=None):
    """Divide `module.<name>` by its largest singular value (see the module docstring)."""
    weight = getattr(module, name, None)
    if weight is None or name not in module._parameters and name not in module._buffers:
        raise ValueError(f"Module '{module}' has no parameter or buffer with name '{name}'")
    parametrize.register_parametrization(
        module, name, _SpectralNorm(weight, n_power_iterations, spectral_dim(module, dim), eps))
    return module


_ORTHOGONAL_MAPS = ("matrix_exp", "cayley", "householder")


def _householder_product(A, tau):
    """The first k columns of H_1 ... H_k, H_i = I - tau_i v_i v_i^T, v_i being column i of A
    below the diagonal with a 1 on it (LAPACK's orgqr, PyTorch's householder_product)."""
    n, k = A.shape[-2], A.shape[-1]
    Q = eye(n, dtype=A.dtype).expand(*A.shape[:-2], n, n)
    rows = arange(n)
    for i in range(k):
        v = ops.where(rows == i, 1.0, ops.where(rows > i, A[..., :, i], 0.0))
        Qv = ops.matmul(Q, v.unsqueeze(-1))
        Q = Q - tau[..., i, None, None] * Qv * v.unsqueeze(-2)
    return Q[..., :k]


def _make_orthogonal(A):
    """The Q of A = QR (A tall) with diag(R) >= 0."""
    Q, R = qr(A)
    return Q * ops.sign(R.diagonal(dim1=-2, dim2=-1)).unsqueeze(-2)


def _is_orthogonal(Q):
    n, k = Q.shape[-2], Q.shape[-1]
    return ops.allclose(Q.mT @ Q, eye(k, dtype=Q.dtype), atol=10.0 * n * np.finfo(
        Q._data.dtype).eps)


class _Orthogonal(Module):
    def __init__(self, weight, orthogonal_map, *, use_trivialization=True):
        super().__init__()
        self.shape = weight.shape
        self.orthogonal_map = orthogonal_map
        if use_trivialization:
            self.register_buffer("base", None)

    def forward(self, X):
        n, k = X.shape[-2], X.shape[-1]
        transposed = n < k
        if transposed:
            X = X.mT
            n, k = k, n
        if self.orthogonal_map in ("matrix_exp", "cayley"):
            X = X.tril()
            if n != k:  # embed into a square matrix
                X = ops.cat([X, X.new_zeros(n, n - k).expand(*X.shape[:-2], -1, -1)], dim=-1)
            A = X - X.mT  # skew-symmetric
            if self.orthogonal_map == "matrix_exp":
                Q = matrix_exp(A)
            else:  # the Cayley retraction (I + A/2)(I - A/2)^-1
                Id = eye(n, dtype=A.dtype)
                Q = solve(ops.add(Id, A, alpha=-0.5), ops.add(Id, A, alpha=0.5))
            if n != k:
                Q = Q[..., :k]
        else:
            A = X.tril(diagonal=-1)
            tau = 2.0 / (1.0 + (A * A).sum(dim=-2))
            # the diagonal of X holds the signs (1 or -1), not differentiated through
            Q = _householder_product(A, tau) * X.diagonal(dim1=-2, dim2=-1).int().unsqueeze(-2)
        if hasattr(self, "base"):
            Q = self.base @ Q
        return Q.mT if transposed else Q

    def right_inverse(self, Q):
        with no_grad():
            return self._right_inverse(Q)

    def _right_inverse(self, Q):
        if Q.shape != self.shape:
            raise ValueError(f"Expected a matrix or batch of matrices of shape {self.shape}. "
                             f"Got a tensor of shape {Q.shape}.")
        Q_init = Q
        n, k = Q.shape[-2], Q.shape[-1]
        transpose = n < k
        if transpose:
            Q = Q.mT
            n, k = k, n
        if not hasattr(self, "base"):
            if self.orthogonal_map != "householder":
                raise NotImplementedError(
                    "It is not possible to assign to the matrix exponential or the Cayley "
                    "parametrizations when use_trivialization=False.")
            # the reflectors of Q = QR with diag(R) > 0 (LAPACK's geqrf, by NumPy)
            mats = Q.detach().numpy().reshape(-1, n, k)
            out = np.empty_like(mats)
            for b, mat in enumerate(mats):
                h, tau = np.linalg.qr(mat, mode="raw")
                a = h.T.copy()
                signs = np.sign(np.diagonal(a)).copy()
                signs[tau == 0.0] *= -1
                np.fill_diagonal(a, signs)
                out[b] = a
            A = tensor(out.reshape(Q.shape))
            return A.mT if transpose else A
        if n == k:
            Q = _make_orthogonal(Q) if not _is_orthogonal(Q) else Q.clone()
        else:  # complete Q into a full n x n orthogonal matrix
            N = randn(*(tuple(Q.shape[:-2]) + (n, n - k)), dtype=Q.dtype)
            Q = _make_orthogonal(ops.cat([Q, N], dim=-1))
        self.base = Q
        neg_Id = zeros_like(Q_init)  # householder(zeros) is eye(n, k): the start is -Id
        neg_Id.diagonal(dim1=-2, dim2=-1).fill_(-1.0)
        return neg_Id


def orthogonal(module, name="weight", orthogonal_map=None, *, use_trivialization=True):
    """Make `module.<name>` orthogonal (see the module docstring); `orthogonal_map` is
    "matrix_exp", "cayley" or "householder" (default: matrix_exp if square, else householder)."""
    weight = getattr(module, name, None)
    if not isinstance(weight, Tensor):
        raise ValueError(f"Module '{module}' has no parameter or buffer with name '{name}'")
    if weight.ndim < 2:
        raise ValueError("Expected a matrix or batch of matrices. "
                         f"Got a tensor of {weight.ndim} dimensions.")
    if orthogonal_map is None:
        orthogonal_map = "matrix_exp" if weight.shape[-2] == weight.shape[-1] else "householder"
    if orthogonal_map not in _ORTHOGONAL_MAPS:
        raise ValueError('orthogonal_map has to be one of "matrix_exp", "cayley", "householder". '
                         f"Got: {orthogonal_map}")
    orth = _Orthogonal(weight, orthogonal_map, use_trivialization=use_trivialization)
    parametrize.register_parametrization(module, name, orth, unsafe=True)
    return module
