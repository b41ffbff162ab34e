"""Linear algebra built from other ops: norms, least squares, rank, powers, chained products,
solves with a Cholesky factor, and the older top-level torch.svd / torch.qr.

Each function is a composite: its derivatives (reverse, forward, higher order, vmap) are
those of the ops it calls, so it has no rules of its own. Matrices are the last two
dimensions (or `dim`) and leading dimensions are batches, as in PyTorch.
"""
import collections
import math

import numpy as np

from .._core.errors import ArgumentError, DTypeError, ShapeError
from .._core.tensor import Tensor, tensor_method
from ..creation import eye, zeros
from ._family import float_result, promote
from .decompositions import _matrix, _tolerance, eigvalsh, pinv, solve_triangular, svdvals
from .decompositions import qr as _linalg_qr, svd as _linalg_svd
from .elementwise import abs as _abs, cast, maximum, where
from .linalg import _as_tensor, _mT, _square, inverse, matmul
from .linalg import cross as _cross
from .linalg_ex import inv_ex
from .linalg_errors import INVERSE_SINGULAR, failure, zero_diagonal_info
from .reduce import amax, amin, norm as _norm, sum as _sum
from .shape import broadcast_to, clone, movedim, reshape, unsqueeze

# svd and qr here are torch.svd / torch.qr (fluxgrad.svd, Tensor.svd); fluxgrad.linalg holds
# torch.linalg's
__all__ = ["matrix_power", "cholesky_solve", "cholesky_inverse", "svd", "qr"]

LstsqResult = collections.namedtuple("LstsqResult",
                                     ["solution", "residuals", "rank", "singular_values"])
SVDUSVResult = collections.namedtuple("SVDUSVResult", ["U", "S", "V"])
TriangularSolveResult = collections.namedtuple("TriangularSolveResult",
                                               ["solution", "cloned_coefficient"])


def _with_dtype(x, dtype, op):
    x = _as_tensor(x)
    if dtype is not None:
        x = cast(x, dtype)
    if x._data.dtype.kind != "f":
        raise DTypeError(f"{op}: expected a floating point tensor, got dtype {x.dtype}; pass "
                        "dtype=fluxgrad.float32 (or cast it first)")
    return x


# --- norms -------------------------------------------------------------------------------
def _paddle_names(op, ord, dim, p, axis):
    """PaddlePaddle's spellings `p` and `axis` of `ord` and `dim`."""
    if p is not None:
        if ord is not None:
            raise TypeError(f"{op}: got both ord={ord!r} and p={p!r}; pass one of them")
        ord = p
    if axis is not None:
        if dim is not None:
            raise TypeError(f"{op}: got both dim={dim!r} and axis={axis!r}; pass one of them")
        dim = axis
    return ord, dim


def vector_norm(x, ord=None, dim=None, keepdim=False, *, dtype=None, p=None, axis=None):
    """The vector ord-norm (sum |x|**ord)**(1/ord) over `dim` (an int, a tuple, or None: every
    element), as torch.linalg.vector_norm: ord (default 2) any number, inf (max |x|), -inf
    (min |x|), 0 (the count of nonzeros). The gradient at 0 is 0. `p` and `axis` are
    PaddlePaddle's names of ord and dim."""
    ord, dim = _paddle_names("linalg.vector_norm", ord, dim, p, axis)
    ord = 2 if ord is None else ord
    if isinstance(ord, str) or isinstance(ord, bool):
        raise TypeError(f"linalg.vector_norm: ord must be a number, got {ord!r} (use "
                        "linalg.matrix_norm for 'fro' and 'nuc')")
    x = _with_dtype(x, dtype, "linalg.vector_norm")
    return _norm(x, float(ord), dim, keepdim)


def _matrix_dims(x, dim, op):
    if x.ndim < 2:
        raise ShapeError(f"{op}: expected a matrix or a batch of them (at least 2 dimensions), "
                         f"got shape {list(x.shape)}")
    if len(dim) != 2:
        raise ArgumentError(f"{op}: dim must name 2 dimensions, got {dim!r}")
    for d in dim:
        if not -x.ndim <= d < x.ndim:
            raise IndexError(f"{op}: dimension {d} is out of range for a tensor of "
                             f"{x.ndim} dimensions")
    d0, d1 = (int(d) % x.ndim for d in dim)
    if d0 == d1:
        raise ArgumentError(f"{op}: dim must name 2 different dimensions, got {dim!r}")
    return d0, d1


def matrix_norm(A, ord=None, dim=None, keepdim=False, *, dtype=None, p=None, axis=None):
    """A matrix norm over the dimensions `dim` (the last two by default), as
    torch.linalg.matrix_norm. ord: 'fro' (Frobenius), 'nuc' (the sum of the singular
    values), 2 / -2 (the largest / smallest singular value), 1 / -1 (max / min over columns
    of the column's absolute sum), inf / -inf (the same over rows).

    'nuc', 2 and -2 differentiate through the singular values; ties between the largest (or
    smallest) entries split the gradient evenly. `p` and `axis` are PaddlePaddle's names of
    ord and dim.
    """
    ord, dim = _paddle_names("linalg.matrix_norm", ord, dim, p, axis)
    ord = "fro" if ord is None else ord
    dim = (-2, -1) if dim is None else dim
    x = _with_dtype(A, dtype, "linalg.matrix_norm")
    d0, d1 = _matrix_dims(x, tuple(dim), "linalg.matrix_norm")
    if ord == "fro":
        return _norm(x, 2.0, (d0, d1), keepdim)
    x = movedim(x, (d0, d1), (-2, -1))
    if ord == "nuc":
        out = _sum(svdvals(x), -1)
    elif ord in (2, -2):
        out = (amax if ord == 2 else amin)(svdvals(x), -1)
    elif ord in (1, -1):
        out = (amax if ord == 1 else amin)(_sum(_abs(x), -2), -1)
    elif ord in (math.inf, -math.inf):
        out = (amax if ord > 0 else amin)(_sum(_abs(x), -1), -1)
    else:
        raise ArgumentError(f"linalg.matrix_norm: ord={ord!r} is not supported; use 'fro', "
                         "'nuc', 2, -2, 1, -1, inf or -inf")
    if keepdim:
        for d in sorted((d0, d1)):
            out = unsqueeze(out, d)
    return out


def norm(A, ord=None, dim=None, keepdim=False, *, dtype=None, p=None, axis=None):
    """A vector or matrix norm, as torch.linalg.norm: with `dim` an int (or a 1-tuple), the
    vector norm over it; with a 2-tuple, the matrix norm over those two dimensions; with
    dim=None, the 2-norm of every element when ord is None, else the vector norm of a 1-D
    tensor or the matrix norm of a 2-D one. `p` and `axis` are PaddlePaddle's names of ord
    and dim (p='fro' with axis=None: the 2-norm of every element, as Paddle)."""
    ord, dim = _paddle_names("linalg.norm", ord, dim, p, axis)
    if ord == "fro" and dim is None:
        ord = None
    x = _as_tensor(A)
    if isinstance(dim, (int, np.integer)):
        dim = (int(dim),)
    if dim is None:
        if ord is None:
            return vector_norm(x, 2, None, keepdim, dtype=dtype)
        if x.ndim not in (1, 2):
            raise ArgumentError(f"linalg.norm: with ord={ord!r} and no dim, the input must be "
                             f"1-D or 2-D, got shape {list(x.shape)}; pass dim")
        dim = tuple(range(x.ndim))
    dim = tuple(dim)
    if len(dim) == 1 and isinstance(ord, str):
        raise ArgumentError(f"linalg.norm: ord={ord!r} names a matrix norm, which needs a 2-D "
                            f"input or a 2-tuple dim; got dim={dim!r} of shape "
                            f"{list(x.shape)}: pass a number as ord for a vector norm")
    if len(dim) == 1:
        return vector_norm(x, 2 if ord is None else ord, dim, keepdim, dtype=dtype)
    if len(dim) == 2:
        return matrix_norm(x, "fro" if ord is None else ord, dim, keepdim, dtype=dtype)
    raise ArgumentError(f"linalg.norm: dim must name 1 or 2 dimensions, got {dim!r}")


def cond(A, p=None):
    """The condition number of A in the norm `p` (None: 2, the ratio of the largest to the
    smallest singular value), as torch.linalg.cond: inf for a singular A (other than in the
    2-norms and 'nuc', which come from the singular values)."""
    x = float_result(_as_tensor(A))
    if p is None or p in (2, -2):
        s = svdvals(x)
        ratio = s[..., 0] / s[..., -1]
        return ratio if p != -2 else 1 / ratio
    x = _square("linalg.cond", x)
    if p == "nuc":  # as PyTorch, from the singular values: finite where A is near-singular
        s = svdvals(x)
        return _sum(s, -1) * _sum(1 / s, -1)
    inv, info = inv_ex(x)  # a singular A has condition number inf, as in PyTorch
    return where(info != 0, math.inf, matrix_norm(x, p) * matrix_norm(inv, p))


# --- rank, least squares -----------------------------------------------------------------
def matrix_rank(A, tol=None, hermitian=False, *, atol=None, rtol=None):
    """The number of singular values of A [..., m, n] above max(atol, rtol * the largest)
    (int64, [...]), as torch.linalg.matrix_rank: rtol defaults to eps * max(m, n), or to 0
    when only atol > 0 is given. hermitian=True reads the lower triangle of a symmetric A and
    counts its eigenvalues by absolute value. `tol` (PaddlePaddle, older PyTorch) is an
    absolute tolerance: atol=tol, rtol=0."""
    if tol is not None:
        if atol is not None or rtol is not None:
            raise TypeError("linalg.matrix_rank: pass either tol or atol/rtol, not both")
        atol, rtol = tol, 0.0
    x = float_result(_as_tensor(A)).detach()
    if x.ndim < 2:
        raise ShapeError(f"linalg.matrix_rank: expected a matrix or a batch of them, got shape "
                         f"{list(x.shape)}")
    m, n = x.shape[-2:]
    if min(m, n) == 0:
        return Tensor(np.zeros(x.shape[:-2], np.int64))
    s = _abs(eigvalsh(x)) if hermitian else svdvals(x)
    atol, rtol = _tolerance(atol, "linalg.matrix_rank", "atol"), _tolerance(
        rtol, "linalg.matrix_rank", "rtol")
    if rtol is None:
        rtol = 0.0 if atol is not None and atol > 0 else max(m, n) * np.finfo(x._data.dtype).eps
    tol = amax(s, -1, keepdim=True) * rtol
    if atol is not None:
        tol = maximum(tol, atol)
    return _sum(s > tol, -1)


_DRIVERS = ("gels", "gelsy", "gelsd", "gelss")


def lstsq(A, B, rcond=None, *, driver=None):
    """The least-squares solution X minimising ||A X - B|| (of minimal norm where A lacks
    full rank), as torch.linalg.lstsq: A [..., m, n], B [..., m, k] (or [..., m]).

    X is pinv(A) @ B with singular values at or below rcond * the largest counting as zero
    (rcond None: eps * max(m, n); ignored by the 'gels' driver, which assumes full rank); its
    gradient is PyTorch's. As PyTorch: `rank` for every driver but 'gels'; `residuals`, the
    squared residual of each column, where m > n, A has full rank and the driver is not
    'gelsy' (the default); `singular_values` (no gradient) for 'gelsd' and 'gelss'; the
    others are empty. In a static program the rank is known only when it runs, so the
    residuals are computed whenever the shapes and driver call for them (as if A had full
    rank).
    """
    driver = "gelsy" if driver is None else driver
    if driver not in _DRIVERS:
        raise ArgumentError(f"linalg.lstsq: driver must be one of {list(_DRIVERS)}, got {driver!r}")
    a = float_result(_as_tensor(A))
    b = float_result(_as_tensor(B))
    if a._data.dtype != b._data.dtype:
        a, b = promote(a, b)
    if a.ndim < 2:
        raise ShapeError(f"linalg.lstsq: A must be a matrix or a batch of them, got shape "
                         f"{list(a.shape)}")
    m, n = a.shape[-2:]
    vector = b.ndim == a.ndim - 1
    b2 = unsqueeze(b, -1) if vector else b
    if b2.ndim < 2 or b2.shape[-2] != m:
        raise ArgumentError(f"linalg.lstsq: A has shape {list(a.shape)}, so B needs {m} rows "
                         f"(shape [..., {m}, k] or [..., {m}]), got shape {list(b.shape)}")
    rtol = 0.0 if driver == "gels" else rcond
    x = matmul(pinv(a, rtol=rtol), b2)
    empty = Tensor(np.zeros((0,), a._data.dtype))
    rank = (matrix_rank(a, rtol=rcond) if driver != "gels"
            else Tensor(np.zeros((0,), np.int64)))
    residuals = empty
    if m > n and driver != "gelsy":
        full = (driver == "gels" or getattr(rank, "program", None) is not None
                or bool(np.all(rank._data == n)))
        if full:
            residuals = _sum((matmul(a, x) - b2) ** 2, -2)
    singular_values = svdvals(a).detach() if driver in ("gelsd", "gelss") else empty
    return LstsqResult(reshape(x, x.shape[:-1]) if vector else x, residuals, rank,
                       singular_values)


# --- products ----------------------------------------------------------------------------
@tensor_method("matrix_power")
def matrix_power(A, n):
    """A @ A @ ... (n times) of a square matrix [..., n, n] by repeated squaring, as
    torch.linalg.matrix_power: n = 0 gives the identity, n < 0 powers of the inverse (float
    matrices only)."""
    x = _as_tensor(A)
    if x.ndim < 2 or x.shape[-1] != x.shape[-2]:
        raise ShapeError(f"linalg.matrix_power: expected a square matrix or a batch of them "
                         f"(shape [..., n, n]), got shape {list(x.shape)}")
    if isinstance(n, bool) or not isinstance(n, (int, np.integer)):
        raise TypeError(f"linalg.matrix_power: n must be an int, got {n!r}")
    n = int(n)
    if n == 0:
        identity = broadcast_to(eye(x.shape[-1], dtype=x.dtype), x.shape)
        # as PyTorch, part of the graph, with a zero gradient
        return identity + x * 0 if x.requires_grad else identity
    if n < 0:
        if x._data.dtype.kind != "f":
            raise TypeError(f"linalg.matrix_power: a negative power inverts the matrix, which "
                            f"needs a floating point dtype, got {x.dtype}")
        x, n = inverse(x), -n
    elif n == 1:
        return clone(x)  # a new tensor, as PyTorch's
    result, square = None, x
    while n:
        if n & 1:
            result = square if result is None else matmul(result, square)
        n >>= 1
        if n:
            square = matmul(square, square)
    return result


def _chain_order(sizes):
    """The cheapest parenthesisation of a chain of matrices with sizes[i] x sizes[i + 1]
    (the textbook dynamic programme): split[i][j] is where the product of i..j splits."""
    count = len(sizes) - 1
    cost = [[0] * count for _ in range(count)]
    split = [[0] * count for _ in range(count)]
    for length in range(1, count):
        for i in range(count - length):
            j = i + length
            cost[i][j] = math.inf
            for k in range(i, j):
                c = cost[i][k] + cost[k + 1][j] + sizes[i] * sizes[k + 1] * sizes[j + 1]
                if c < cost[i][j]:
                    cost[i][j], split[i][j] = c, k
    return split


def multi_dot(tensors):
    """The product of two or more matrices in the cheapest order, as torch.linalg.multi_dot:
    the first may be a 1-D row vector and the last a 1-D column vector (their dimension is
    dropped again); the others are 2-D."""
    tensors = [_as_tensor(t) for t in tensors]
    if len(tensors) < 2:
        raise ArgumentError(f"linalg.multi_dot: expected at least 2 tensors, got {len(tensors)}")
    first_vector, last_vector = tensors[0].ndim == 1, tensors[-1].ndim == 1
    mats = list(tensors)
    if first_vector:
        mats[0] = unsqueeze(mats[0], 0)
    if last_vector:
        mats[-1] = unsqueeze(mats[-1], -1)
    for i, t in enumerate(mats):
        if t.ndim != 2:
            raise ArgumentError(f"linalg.multi_dot: tensor {i} has shape {list(tensors[i].shape)}; "
                             "the first and last may be 1-D or 2-D, the others must be 2-D")
    for i in range(len(mats) - 1):
        if mats[i].shape[1] != mats[i + 1].shape[0]:
            raise ArgumentError(f"linalg.multi_dot: tensors {i} and {i + 1} can't be multiplied: "
                             f"shapes {list(tensors[i].shape)} and {list(tensors[i + 1].shape)}")
    split = _chain_order([t.shape[0] for t in mats] + [mats[-1].shape[1]])

    def product(i, j):
        if i == j:
            return mats[i]
        k = split[i][j]
        return matmul(product(i, k), product(k + 1, j))
    out = product(0, len(mats) - 1)
    if first_vector:
        out = reshape(out, out.shape[1:])
    if last_vector:
        out = reshape(out, out.shape[:-1])
    return out


@tensor_method("cholesky_solve")
def cholesky_solve(B, L, upper=False):
    """The solution X of A @ X = B, given the Cholesky factor L of A = L @ L.T (upper=True:
    U with A = U.T @ U), as torch.cholesky_solve: two triangular solves. B is [..., n, k];
    batches broadcast."""
    factor = _square("cholesky_solve", L)
    lower = _mT(factor) if upper else factor
    y = solve_triangular(lower, B, upper=False)
    return solve_triangular(_mT(lower), y, upper=True)


def vecdot(x, y, *, dim=-1):
    """The dot products of x and y along `dim` (they broadcast), as torch.linalg.vecdot for
    real tensors."""
    x, y = _as_tensor(x), _as_tensor(y)
    return _sum(x * y, dim)


@tensor_method("cholesky_inverse")
def cholesky_inverse(L, upper=False):
    """The inverse of A = L @ L.T given its Cholesky factor L (upper=True: U with A = U.T @ U),
    as torch.cholesky_inverse: cholesky_solve of the identity. A factor with a zero on its
    diagonal (a singular A) raises LinAlgError, as PyTorch."""
    factor = _square("cholesky_inverse", L)
    if type(factor) is Tensor:  # (a traced or batched factor has no values to check)
        error = failure("cholesky_inverse", zero_diagonal_info(factor._data), INVERSE_SINGULAR)
        if error is not None:
            raise error
    identity = broadcast_to(eye(factor.shape[-1], dtype=factor.dtype), factor.shape)
    return cholesky_solve(identity, factor, upper=upper)


def svd(input, some=True, compute_uv=True):
    """torch.svd (also Tensor.svd): (U, S, V) with A = U @ diag(S) @ V.mT, V rather than
    linalg.svd's Vh; some=False gives full U and V. With compute_uv=False, U and V are zero
    matrices ([..., m, m] and [..., n, n]), as PyTorch. Degenerate points are as linalg.svd's.
    """
    x = _matrix("svd", input)
    if not compute_uv:
        s = svdvals(x)
        m, n = x.shape[-2:]
        batch = tuple(x.shape[:-2])
        return SVDUSVResult(zeros(*batch, m, m, dtype=s.dtype), s,
                            zeros(*batch, n, n, dtype=s.dtype))
    u, s, vh = _linalg_svd(x, full_matrices=not some)
    return SVDUSVResult(u, s, _mT(vh))


def qr(input, some=True):
    """torch.qr (also Tensor.qr): linalg.qr with mode 'reduced' (some=True) or 'complete'."""
    return _linalg_qr(input, "reduced" if some else "complete")


tensor_method("svd")(svd)
tensor_method("qr")(qr)


def triangular_solve(x, y, upper=True, transpose=False, unitriangular=False):
    """PaddlePaddle's linalg.triangular_solve: the solution of x @ out = y (x.mT @ out = y with
    transpose=True) for a triangular x; see solve_triangular."""
    x = _as_tensor(x)
    if transpose:
        x, upper = _mT(x), not upper
    return solve_triangular(x, y, upper=upper, unitriangular=unitriangular)


def torch_triangular_solve(b, A, upper=True, transpose=False, unitriangular=False):
    """PyTorch's torch.triangular_solve (right-hand side first): the solution X of A @ X = b
    (A.mT @ X = b with transpose=True) for a triangular A, with a copy of A."""
    return TriangularSolveResult(triangular_solve(A, b, upper, transpose, unitriangular),
                                 _as_tensor(A).clone())


def cross(input, other, *, dim=-1):
    """The cross product of 3-vectors along `dim` (the last by default), as
    torch.linalg.cross; input and other broadcast (but must have as many dimensions)."""
    for t in (input, other):
        if isinstance(t, Tensor) and (t.ndim == 0 or t.shape[dim] != 3):
            raise ShapeError(f"linalg.cross: dimension {dim} of shape {list(t.shape)} must have "
                             "length 3 (it holds the 3-vectors)")
    if isinstance(input, Tensor) and isinstance(other, Tensor) and input.ndim != other.ndim:
        raise ShapeError(f"linalg.cross: inputs must have the same number of dimensions, got "
                         f"shapes {list(input.shape)} and {list(other.shape)}")
    return _cross(input, other, dim)


def vander(x, *, N=None):
    """The Vandermonde matrix of x [..., n]: [..., n, N] with columns x**0, x**1, ...,
    x**(N - 1) (N defaults to n), as torch.linalg.vander; integer x stays integer, a 0-d x
    counts as [1]."""
    from ..creation import ones_like
    from .shape import stack
    x = _as_tensor(x)
    if x._data.dtype == np.bool_:
        raise RuntimeError("linalg.vander: expected a floating or integer tensor, got bool; "
                           "convert it with .long() or .float() first")
    if x.ndim == 0:  # as PyTorch: a number is a vector of one
        x = reshape(x, (1,))
    columns = x.shape[-1] if N is None else N
    if columns <= 1:
        raise RuntimeError(f"linalg.vander: N must be greater than 1, got N={columns} for x of "
                           f"shape {list(x.shape)}")
    powers = [ones_like(x), x]
    while len(powers) < columns:
        powers.append(powers[-1] * x)
    return stack(powers, -1)


def householder_product(A, tau):
    """The first n columns of H_1 @ ... @ H_k, H_i = I - tau_i v_i v_i^T with v_i column i of
    A [..., m, n] below the diagonal and 1 on it (k = tau.shape[-1] <= n <= m), as
    torch.linalg.householder_product (geqrf's Q); a composite, differentiable in A and tau."""
    a, tau = promote(float_result(_as_tensor(A)), float_result(_as_tensor(tau)))
    op = "linalg.householder_product"
    if a.ndim < 2 or tau.ndim != a.ndim - 1:
        raise RuntimeError(f"{op}: expected tau with one dimension less than the input, got "
                           f"input of shape {list(a.shape)} and tau of shape {list(tau.shape)}")
    m, n = a.shape[-2:]
    if m < n or n < tau.shape[-1]:
        raise RuntimeError(f"{op}: needs input.shape[-2] >= input.shape[-1] >= tau.shape[-1], "
                           f"got input of shape {list(a.shape)} and tau of shape "
                           f"{list(tau.shape)}")
    from .linalg import tril
    reflectors = tril(a, -1) + eye(m, n, dtype=a.dtype)
    q = broadcast_to(eye(m, dtype=a.dtype), tuple(a.shape[:-2]) + (m, m))
    for i in range(tau.shape[-1]):
        v = unsqueeze(reflectors[..., :, i], -1)
        q = q - matmul(matmul(q, v) * unsqueeze(unsqueeze(tau[..., i], -1), -1), _mT(v))
    return q[..., :, :n]
