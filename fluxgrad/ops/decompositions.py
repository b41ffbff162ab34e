"""Matrix decompositions and the ops that need their own derivative: solve_triangular, svd,
svdvals, eigh, eigvalsh, qr, pinv and matrix_exp (with matrix_exp_frechet, its derivative,
the op its rules apply: linear in the direction, so static reverse mode transposes it).

Each op is one primitive: `impl` on NumPy arrays, VJP and JVP written in fluxgrad ops (so
they differentiate again, run in forward mode and under vmap), and a batching rule. Inputs
are real matrices or batches of them, shape (..., m, n), as in PyTorch.

Degenerate points follow PyTorch. Singular vectors and eigenvectors are defined up to sign
only, and up to a rotation within a repeated singular value or eigenvalue: their gradients
are finite only where the values are distinct, and are meaningful only for functions that do
not depend on that choice. A cotangent that is exactly zero stays zero there (so the
gradient through singular values or eigenvalues alone is finite at repeated values, as
PyTorch's svdvals and eigvalsh). JVPs divide by the gaps as PyTorch's do (entries at a
repeated value are not finite), so that they stay linear in the tangent: static reverse mode
with prim on transposes them.
"""
import numpy as np

from .._core.dispatch import apply
from .._core.errors import ArgumentError, ShapeError, refuse_python_value
from .._core.primitive import Primitive
from .._core.tensor import Tensor, tensor_method
from ._family import float_result, promote
from .elementwise import where
from .linalg import (_as_tensor, _from_columns, _into_columns,
                     _matrix_batch, _mT, _same_rank, _square, diag_embed, diagonal, matmul,
                     tril, triu)
from .linalg_errors import eigh_failure, guarded, svd_failure
from ._batch import aligned, broadcasting
from .shape import concat, pad, unsqueeze

# the others are torch.linalg's names only: fluxgrad.linalg exports them
__all__ = ["pinverse", "matrix_exp"]


def _ratio(num, den):
    """num / den, but 0 where both are 0: at a degenerate point (a repeated or zero singular
    value) a cotangent or tangent that is exactly zero stays zero instead of becoming NaN."""
    return num / where((den == 0) & (num == 0), 1.0, den)


def _tangent_gaps(values):
    """[i, j]: values_j - values_i, with ones on the diagonal: the denominators of a JVP,
    as PyTorch's. A JVP divides by them (primal values only, so the tangent stays linear for
    the transpose of static reverse mode) a numerator whose diagonal is zero; where values
    repeat, the entries off the diagonal are not finite (the derivative does not exist)."""
    eye = Tensor(np.eye(values.shape[-1], dtype=bool))
    return where(eye, 1.0, unsqueeze(values, -2) - unsqueeze(values, -1))


def _off_diagonal(x):
    return x - diag_embed(diagonal(x, 0, -2, -1))


def _matrix(op, x):
    t = float_result(_as_tensor(x))
    if t.ndim < 2:
        refuse_python_value(x, op)
        raise ShapeError(f"{op}: expected a matrix or a batch of them (shape [..., m, n]), got "
                         f"shape {list(t.shape)}")
    return t


# --- solve_triangular --------------------------------------------------------------------
def _triangle(a, upper, unitriangular):
    """The part of `a` a triangular solve reads (without the diagonal if it is taken as 1)."""
    k = 1 if unitriangular else 0
    return triu(a, k) if upper else tril(a, -k)


def _solve_triangular_impl(a, b, *, upper, unitriangular):
    t = np.triu(a) if upper else np.tril(a)
    if unitriangular:
        t = t.copy()
        i = np.arange(t.shape[-1])
        t[..., i, i] = 1
    t, b = _same_rank_arrays(t, b)
    if np.all(np.diagonal(t, axis1=-2, axis2=-1) != 0):
        return np.linalg.solve(t, b)
    return _substitute(t, b, upper)


def _same_rank_arrays(a, b):
    rank = max(a.ndim, b.ndim)
    return a.reshape((1,) * (rank - a.ndim) + a.shape), b.reshape((1,) * (rank - b.ndim) + b.shape)


def _substitute(t, b, upper):
    """Back (or forward) substitution, for a triangle with zeros on its diagonal: the entries
    that need a division by zero come out inf or NaN, as in PyTorch (LAPACK refuses)."""
    batch = np.broadcast_shapes(t.shape[:-2], b.shape[:-2])
    t = np.broadcast_to(t, batch + t.shape[-2:])
    b = np.broadcast_to(b, batch + b.shape[-2:])
    x = np.zeros(b.shape, np.result_type(t, b))
    n = t.shape[-1]
    with np.errstate(all="ignore"):
        for i in (range(n - 1, -1, -1) if upper else range(n)):
            rest = np.einsum("...j,...jk->...k", t[..., i, :], x)
            x[..., i, :] = (b[..., i, :] - rest) / t[..., i, i, None]
    return x


def _solve_triangular_vjp(out_bar, out, a, b, *, upper, unitriangular):
    b_bar = apply(solve_triangular_p, _mT(a), out_bar, upper=not upper,
                  unitriangular=unitriangular)
    a_bar = None
    if a.requires_grad:
        a_bar = _triangle(-matmul(b_bar, _mT(out)), upper, unitriangular)
    return [a_bar, b_bar if b.requires_grad else None]


def _solve_triangular_jvp(tangents, out, a, b, *, upper, unitriangular):
    a_dot, b_dot = tangents
    rhs = b_dot
    if a_dot is not None:
        term = -matmul(_triangle(a_dot, upper, unitriangular), out)
        rhs = term if rhs is None else rhs + term
    return apply(solve_triangular_p, a, rhs, upper=upper, unitriangular=unitriangular)


def _solve_triangular_batch(bdims, a, b, **params):
    if bdims[0] is None:
        size = b.shape[bdims[1]]
        return _from_columns(apply(solve_triangular_p, *_same_rank(a, _into_columns(b, bdims[1])),
                                   **params), size)
    return apply(solve_triangular_p, *_same_rank(*aligned((a, b), bdims)), **params), 0


# a is square ([..., n, n]), b a matrix or batch of them ([..., n, k]); batches broadcast
solve_triangular_p = Primitive("solve_triangular", _solve_triangular_impl,
                               vjp=_solve_triangular_vjp, jvp=_solve_triangular_jvp,
                               saves_out=True, linear=(1,), batch=_solve_triangular_batch)


def solve_triangular(A, B, *, upper, left=True, unitriangular=False):
    """The solution X of A @ X = B (X @ A = B with left=False) for a triangular A, as
    torch.linalg.solve_triangular: only the upper (upper=True) or lower triangle of A is
    read, and its diagonal is taken as ones with unitriangular=True. A is [..., n, n], B is
    [..., n, k] ([..., k, n] with left=False); batch dimensions broadcast. A zero on the
    diagonal gives inf or NaN entries, as in PyTorch."""
    a = _square("solve_triangular", A)
    b = float_result(_as_tensor(B))
    if a._data.dtype != b._data.dtype:
        a, b = promote(a, b)
    if not left:
        return _mT(solve_triangular(_mT(a), _mT(b), upper=not upper, unitriangular=unitriangular))
    n = a.shape[-1]
    if b.ndim < 2 or b.shape[-2] != n:
        raise ArgumentError(f"solve_triangular: A has shape {list(a.shape)}, so B needs {n} rows "
                         f"(shape [..., {n}, k]), got shape {list(b.shape)}")
    try:
        np.broadcast_shapes(a.shape[:-2], b.shape[:-2])
    except ValueError:
        raise ArgumentError(f"solve_triangular: batch dimensions of A {list(a.shape)} and B "
                         f"{list(b.shape)} don't broadcast") from None
    return apply(solve_triangular_p, a, b, upper=bool(upper), unitriangular=bool(unitriangular))


# --- singular value decomposition --------------------------------------------------------
def _svd_failure(x, **params):
    return svd_failure("linalg.svd", x, np.linalg.svd)


def _eigh_failure(x, **params):
    return eigh_failure("linalg.eigh", x, np.linalg.eigh)


def _svd_impl(x, *, full_matrices):
    return tuple(np.linalg.svd(x, full_matrices=full_matrices))


def _reduced(out, x, full_matrices):
    """(U, S, Vh) of the reduced SVD: a full one's extra columns of U / rows of Vh dropped."""
    u, s, vh = out
    m, n = x.shape[-2:]
    if full_matrices and m != n:
        k = min(m, n)
        u, vh = u[..., :k], vh[..., :k, :]
    return u, s, vh


def _svd_vjp(out_bar, out, x, *, full_matrices):
    # as PyTorch's svd_backward; the extra columns of a full U (rows of Vh) carry no gradient
    u, s, vh = _reduced(out, x, full_matrices)
    u_bar, s_bar, vh_bar = _reduced(out_bar, x, full_matrices)
    m, n = x.shape[-2:]
    u_u = matmul(_mT(u), u_bar)
    v_v = matmul(vh, _mT(vh_bar))
    s2 = s * s
    gap = unsqueeze(s2, -2) - unsqueeze(s2, -1)  # [i, j]: s_j^2 - s_i^2
    num = (u_u - _mT(u_u)) * unsqueeze(s, -2) + unsqueeze(s, -1) * (v_v - _mT(v_v))
    inner = _ratio(num, gap) + diag_embed(s_bar)
    if m > n:
        u_s = _ratio(u_bar, unsqueeze(s, -2))
        left = matmul(u, inner) + u_s - matmul(u, matmul(_mT(u), u_s))
        return [matmul(left, vh)]
    if m < n:
        s_vh = _ratio(vh_bar, unsqueeze(s, -1))
        right = matmul(inner, vh) + s_vh - matmul(matmul(s_vh, _mT(vh)), vh)
        return [matmul(u, right)]
    return [matmul(u, matmul(inner, vh))]


def _svd_jvp(tangents, out, x, *, full_matrices):
    a_dot = tangents[0]
    u, s, vh = _reduced(out, x, full_matrices)
    m, n = x.shape[-2:]
    k = min(m, n)
    v = _mT(vh)
    a_v = matmul(a_dot, v)
    p = matmul(_mT(u), a_v)
    s_dot = diagonal(p, 0, -2, -1)
    gap = _tangent_gaps(s * s)
    p_s = p * unsqueeze(s, -2)
    s_p = unsqueeze(s, -1) * p
    u_dot = matmul(u, _off_diagonal(p_s + _mT(p_s)) / gap)
    v_dot = matmul(v, _off_diagonal(s_p + _mT(s_p)) / gap)
    if m > k:
        u_dot = u_dot + (a_v - matmul(u, p)) / unsqueeze(s, -2)
    if n > k:
        v_dot = v_dot + (matmul(_mT(a_dot), u) - matmul(v, _mT(p))) / unsqueeze(s, -2)
    vh_dot = _mT(v_dot)
    if full_matrices and m != n:
        # as PyTorch: the extra columns of U (rows of Vh), any completion of an orthonormal
        # basis, get a zero tangent
        u_dot = pad(u_dot, (0, m - k))
        vh_dot = pad(vh_dot, (0, 0, 0, n - k))
    return u_dot, s_dot, vh_dot


svd_p = Primitive("svd", guarded(_svd_impl, _svd_failure), n_outputs=3, vjp=_svd_vjp,
                  jvp=_svd_jvp, batch=_matrix_batch("svd"))


class SVDResult(tuple):
    """(U, S, Vh), also readable by name."""
    __slots__ = ()
    U = property(lambda self: self[0])
    S = property(lambda self: self[1])
    Vh = property(lambda self: self[2])


def svd(A, full_matrices=True, *, driver=None):
    """The singular value decomposition A = U @ diag(S) @ Vh of a matrix [..., m, n] (or each
    of a batch), as torch.linalg.svd: S (k = min(m, n) values) in descending order; U
    [..., m, k] and Vh [..., k, n], or with full_matrices=True (the default, as PyTorch)
    U [..., m, m] and Vh [..., n, n].

    Each singular vector is defined up to its sign, and within a repeated singular value only
    the subspace is defined: gradients through U and Vh are finite only where the singular
    values are distinct (and nonzero, for a non-square A), and are meaningful only for
    functions that don't depend on those choices (U @ diag(S) @ Vh, U @ U.mT, |U|, ...). The
    extra columns of a full U (rows of Vh) get no gradient and a zero tangent, as PyTorch.
    `driver` (a CUDA option in PyTorch) is accepted and ignored.
    """
    x = _matrix("svd", A)
    return SVDResult(apply(svd_p, x, full_matrices=bool(full_matrices)))


def _svdvals_vjp(out_bar, out, x):
    u, _, vh = apply(svd_p, x, full_matrices=False)
    return matmul(u * unsqueeze(out_bar, -2), vh)


def _svdvals_jvp(tangents, out, x):
    u, _, vh = apply(svd_p, x, full_matrices=False)
    return diagonal(matmul(_mT(u), matmul(tangents[0], _mT(vh))), 0, -2, -1)


# the values alone (several times faster than the full SVD); the rules compute the vectors
svdvals_p = Primitive("svdvals", guarded(lambda x: np.linalg.svd(x, compute_uv=False),
                                         _svd_failure),
                      vjp=(_svdvals_vjp,), jvp=_svdvals_jvp, batch=_matrix_batch("svdvals"))


def svdvals(A, *, driver=None):
    """The singular values of A [..., m, n] in descending order ([..., min(m, n)]), as
    torch.linalg.svdvals. Their gradient U @ diag(S_bar) @ Vh is finite also where singular
    values repeat."""
    return apply(svdvals_p, _matrix("svdvals", A))


# --- symmetric eigendecomposition --------------------------------------------------------
def _eigh_impl(x, *, upper):
    return tuple(np.linalg.eigh(x, UPLO="U" if upper else "L"))


def _eigh_vjp(out_bar, out, x, *, upper):
    # as PyTorch: Q (diag(L_bar) + skew(Q^T Q_bar) / 2 / (L_j - L_i)) Q^T, symmetric
    l_bar, q_bar = out_bar
    eigenvalues, q = out
    q_q = matmul(_mT(q), q_bar)
    gap = unsqueeze(eigenvalues, -2) - unsqueeze(eigenvalues, -1)
    inner = _ratio(0.5 * (q_q - _mT(q_q)), gap) + diag_embed(l_bar)
    return [matmul(q, matmul(inner, _mT(q)))]


def _eigh_jvp(tangents, out, x, *, upper):
    # the tangent of a symmetric matrix: the symmetric part of a_dot (so that it is the
    # adjoint of the VJP, which is symmetric)
    a_dot = tangents[0]
    eigenvalues, q = out
    p = matmul(_mT(q), matmul(0.5 * (a_dot + _mT(a_dot)), q))
    return diagonal(p, 0, -2, -1), matmul(q, _off_diagonal(p) / _tangent_gaps(eigenvalues))


eigh_p = Primitive("eigh", guarded(_eigh_impl, _eigh_failure), n_outputs=2, vjp=_eigh_vjp,
                   jvp=_eigh_jvp, batch=_matrix_batch("eigh"))


class EighResult(tuple):
    """(eigenvalues, eigenvectors), also readable by name."""
    __slots__ = ()
    eigenvalues = property(lambda self: self[0])
    eigenvectors = property(lambda self: self[1])


def _uplo(op, UPLO):
    if UPLO not in ("L", "U"):
        raise ArgumentError(f"{op}: UPLO must be 'L' or 'U', got {UPLO!r}")
    return UPLO == "U"


def eigh(A, UPLO="L"):
    """Eigenvalues (ascending) and orthonormal eigenvectors (columns) of a symmetric matrix
    [..., n, n] (or each of a batch), as torch.linalg.eigh: only the lower triangle
    (UPLO='L') or the upper one (UPLO='U') is read.

    Each eigenvector is defined up to its sign, and within a repeated eigenvalue only the
    eigenspace is defined: gradients through the eigenvectors are finite only where the
    eigenvalues are distinct, and are meaningful only for functions that don't depend on
    those choices (Q @ diag(f(L)) @ Q.mT, ...). The gradient is a symmetric matrix, as
    PyTorch's; the JVP differentiates along the symmetric part of the tangent.
    """
    upper = _uplo("eigh", UPLO)
    return EighResult(apply(eigh_p, _square("eigh", A), upper=upper))


def _eigvalsh_vjp(out_bar, out, x, *, upper):
    q = apply(eigh_p, x, upper=upper)[1]
    return matmul(q * unsqueeze(out_bar, -2), _mT(q))


def _eigvalsh_jvp(tangents, out, x, *, upper):
    q = apply(eigh_p, x, upper=upper)[1]
    return diagonal(matmul(_mT(q), matmul(tangents[0], q)), 0, -2, -1)


eigvalsh_p = Primitive(
    "eigvalsh", guarded(lambda x, *, upper: np.linalg.eigvalsh(x, UPLO="U" if upper else "L"),
                        _eigh_failure),
    vjp=(_eigvalsh_vjp,), jvp=_eigvalsh_jvp, batch=_matrix_batch("eigvalsh"))


def eigvalsh(A, UPLO="L"):
    """The eigenvalues (ascending) of a symmetric matrix [..., n, n], as
    torch.linalg.eigvalsh. Their gradient Q @ diag(L_bar) @ Q.mT is finite also where
    eigenvalues repeat."""
    upper = _uplo("eigvalsh", UPLO)
    return apply(eigvalsh_p, _square("eigvalsh", A), upper=upper)


# --- QR decomposition --------------------------------------------------------------------
def _qr_impl(x, *, complete):
    return tuple(np.linalg.qr(x, mode="complete" if complete else "reduced"))


def _need_differentiable_qr(x, complete):
    m, n = x.shape[-2:]
    if complete and m > n:
        raise RuntimeError(f"qr: the QR decomposition of a {m}x{n} matrix (more rows than "
                           "columns) is not differentiable with mode='complete' (the extra "
                           "columns of Q are not unique); use mode='reduced'")
    return m, n


def _qr_vjp(out_bar, out, x, *, complete):
    q_bar, r_bar = out_bar
    q, r = out
    m, n = _need_differentiable_qr(x, complete)
    if m >= n:
        # (Q N + Q_bar) R^-T, N the symmetric matrix with upper triangle triu(M)
        t = triu(matmul(r_bar, _mT(r)) - matmul(_mT(q), q_bar))
        n_sym = t + _mT(t) - diag_embed(diagonal(t, 0, -2, -1))
        return [solve_triangular(_mT(r), matmul(q, n_sym) + q_bar, upper=False, left=False)]
    # A = [B | C] with B square: B = Q R1 is the square case, R2 = Q^T C
    k = matmul(_mT(q), q_bar) - matmul(r_bar, _mT(r))
    r1 = r[..., :m]
    g = matmul(r_bar[..., :m], _mT(r1)) + tril(k - _mT(k), -1)
    b_bar = solve_triangular(_mT(r1), matmul(q, g), upper=False, left=False)
    return [concat([b_bar, matmul(q, r_bar[..., m:])], -1)]


def _qr_jvp(tangents, out, x, *, complete):
    a_dot = tangents[0]
    q, r = out
    m, n = _need_differentiable_qr(x, complete)
    if m >= n:
        y = solve_triangular(r, a_dot, upper=True, left=False)  # A_dot R^-1
        p = matmul(_mT(q), y)
        upper = triu(p) + _mT(tril(p, -1))
        return y - matmul(q, upper), matmul(upper, r)
    r1, r2 = r[..., :m], r[..., m:]
    p = matmul(_mT(q), solve_triangular(r1, a_dot[..., :m], upper=True, left=False))
    lower = tril(p, -1)
    omega = lower - _mT(lower)  # Q^T Q_dot, skew-symmetric
    r1_dot = matmul(p - omega, r1)
    r2_dot = matmul(_mT(q), a_dot[..., m:]) - matmul(omega, r2)
    return matmul(q, omega), concat([r1_dot, r2_dot], -1)


qr_p = Primitive("qr", _qr_impl, n_outputs=2, vjp=_qr_vjp, jvp=_qr_jvp,
                 batch=_matrix_batch("qr"))


class QRResult(tuple):
    """(Q, R), also readable by name."""
    __slots__ = ()
    Q = property(lambda self: self[0])
    R = property(lambda self: self[1])


def qr(A, mode="reduced"):
    """A = Q @ R with Q orthonormal columns and R upper triangular, of a matrix [..., m, n]
    (or each of a batch), as torch.linalg.qr: mode 'reduced' (Q [..., m, k], R [..., k, n],
    k = min(m, n)), 'complete' (Q [..., m, m], R [..., m, n]) or 'r' (an empty Q and R).

    Q and R are unique up to the signs of R's diagonal (LAPACK's choice, as PyTorch's); the
    derivative exists where A has full rank, and not for mode='complete' with m > n (an
    error, as PyTorch). With mode='r', R is differentiable (PyTorch refuses).
    """
    if mode not in ("reduced", "complete", "r"):
        raise ArgumentError(f"qr: mode must be 'reduced', 'complete' or 'r', got {mode!r}")
    x = _matrix("qr", A)
    q, r = apply(qr_p, x, complete=mode == "complete")
    if mode == "r":
        q = Tensor(np.zeros((0,), x._data.dtype))
    return QRResult((q, r))


# --- pseudoinverse -----------------------------------------------------------------------
def _pinv_failure(x, *, hermitian, **params):
    return (_eigh_failure if hermitian else _svd_failure)(x)


def _pinv_impl(x, *, atol, rtol, hermitian):
    m, n = x.shape[-2:]
    if rtol is None:
        rtol = 0.0 if atol is not None and atol > 0 else max(m, n) * np.finfo(x.dtype).eps
    atol = 0.0 if atol is None else atol
    if hermitian:
        w, q = np.linalg.eigh(x)
        s, u, vh = np.abs(w), q, np.swapaxes(q * np.sign(w)[..., None, :], -1, -2)
    else:
        u, s, vh = np.linalg.svd(x, full_matrices=False)
    if s.shape[-1] == 0:
        return np.zeros(x.shape[:-2] + (n, m), x.dtype)
    tol = np.maximum(atol, rtol * s.max(-1, keepdims=True))
    with np.errstate(divide="ignore"):
        s_inv = np.where(s > tol, 1 / s, 0).astype(x.dtype)
    return np.matmul(np.swapaxes(vh, -1, -2) * s_inv[..., None, :], np.swapaxes(u, -1, -2))


def _pinv_vjp(out_bar, out, x, **params):
    # the adjoint of _pinv_jvp (exact where the rank does not change)
    p, g = out, out_bar
    pt, gt = _mT(p), _mT(g)
    p_pt = matmul(p, pt)
    left = matmul(gt, p_pt)
    right = matmul(matmul(pt, p), gt)
    return -matmul(pt, matmul(g, pt)) + left - matmul(x, matmul(p, left)) + right - matmul(
        matmul(right, p), x)


def _pinv_jvp(tangents, out, x, **params):
    # Golub and Pereyra: dP = -P dA P + P P^T dA^T (I - A P) + (I - P A) dA^T P^T P
    a_dot = tangents[0]
    p = out
    pt, at_dot = _mT(p), _mT(a_dot)
    first = matmul(matmul(p, pt), at_dot)
    second = matmul(at_dot, matmul(pt, p))
    return -matmul(p, matmul(a_dot, p)) + first - matmul(matmul(first, x), p) + second - matmul(
        p, matmul(x, second))


pinv_p = Primitive("pinv", guarded(_pinv_impl, _pinv_failure), vjp=(_pinv_vjp,),
                   jvp=_pinv_jvp, saves_out=True, batch=_matrix_batch("pinv"))


def _tolerance(value, op, name):
    if value is None:
        return None
    if isinstance(value, Tensor):
        if value.numel() != 1:
            raise ArgumentError(f"{op}: {name} must be a number (or a one-element tensor), got a "
                             f"tensor of shape {list(value.shape)}")
        value = value.item()
    return float(value)


def pinv(A, rcond=None, hermitian=False, *, atol=None, rtol=None):
    """The Moore-Penrose pseudoinverse of A [..., m, n] ([..., n, m]), as torch.linalg.pinv:
    singular values at or below max(atol, rtol * the largest) count as zero; with neither
    given, rtol = max(m, n) * eps; with atol > 0 alone, rtol = 0. hermitian=True reads only
    the lower triangle of a symmetric A. `rcond` (PaddlePaddle, older PyTorch) is rtol.

    The gradient (PyTorch's formula) is that of the pseudoinverse as a function of a matrix of
    constant rank: it is correct where no singular value crosses the cutoff.
    """
    if rcond is not None:
        if rtol is not None:
            raise TypeError("linalg.pinv: pass either rcond or rtol, not both")
        rtol = rcond
    x = _matrix("pinv", A)
    if hermitian and x.shape[-1] != x.shape[-2]:
        raise ArgumentError(f"pinv: hermitian=True needs square matrices, got shape "
                         f"{list(x.shape)}")
    return apply(pinv_p, x, atol=_tolerance(atol, "pinv", "atol"),
                 rtol=_tolerance(rtol, "pinv", "rtol"), hermitian=bool(hermitian))


@tensor_method("pinverse")
def pinverse(x, rcond=1e-15):
    """torch.pinverse: the pseudoinverse, singular values at or below rcond * the largest
    counting as zero."""
    return pinv(x, rtol=rcond)


# --- matrix exponential ------------------------------------------------------------------
_PADE13 = (64764752532480000.0, 32382376266240000.0, 7771770303897600.0, 1187353796428800.0,
           129060195264000.0, 10559470521600.0, 670442572800.0, 33522128640.0, 1323241920.0,
           40840800.0, 960960.0, 16380.0, 182.0, 1.0)
_THETA13 = 5.371920351148152


def _matrix_exp_impl(x):
    """exp(x) by scaling and squaring with the [13/13] Padé approximant (Higham, 2005), each
    matrix of a batch scaled by its own power of two."""
    n = x.shape[-1]
    if n == 0 or x.size == 0:
        return x.copy()
    b = _PADE13
    norm = np.abs(x).sum(-2).max(-1)
    with np.errstate(divide="ignore"):
        s = np.maximum(0, np.ceil(np.log2(norm / _THETA13))).astype(int)
    a = x / np.exp2(s)[..., None, None].astype(x.dtype)
    eye = np.eye(n, dtype=x.dtype)
    a2 = a @ a
    a4 = a2 @ a2
    a6 = a4 @ a2
    u = a @ (a6 @ (b[13] * a6 + b[11] * a4 + b[9] * a2) + b[7] * a6 + b[5] * a4 + b[3] * a2
             + b[1] * eye)
    v = a6 @ (b[12] * a6 + b[10] * a4 + b[8] * a2) + b[6] * a6 + b[4] * a4 + b[2] * a2 + b[0] * eye
    r = np.linalg.solve(v - u, v + u)
    for i in range(int(s.max(initial=0))):
        r = np.where((s > i)[..., None, None], r @ r, r)
    return r


def _upper_block(a, e):
    """[[a, e], [0, a]]: its exponential is [[exp(a), L(a, e)], [0, exp(a)]] (Mathias, 1996),
    L the derivative of exp at a along e."""
    a, e = np.broadcast_arrays(a, e)
    return np.concatenate([np.concatenate([a, e], -1),
                           np.concatenate([np.zeros_like(a), a], -1)], -2)


def _exp_frechet_impl(a, e):
    n = a.shape[-1]
    return np.ascontiguousarray(_matrix_exp_impl(_upper_block(a, e))[..., :n, n:])


def _exp_frechet(a, e):
    return apply(matrix_exp_frechet_p, a, e)


def _block_pair(top_left, top_right, bottom_right):
    """[[top_left, top_right], [0, bottom_right]] of n x n blocks (None: a zero block)."""
    blocks = [(top_left, (0, 1, 0, 1)), (top_right, (1, 0, 0, 1)), (bottom_right, (1, 0, 1, 0))]
    placed = [pad(x, tuple(w * x.shape[-1] for w in widths)) for x, widths in blocks
              if x is not None]
    out = placed[0]
    for x in placed[1:]:
        out = out + x
    return out


def _exp_frechet_a_vjp(out_bar, out, a, e):
    # L(a, e) is the upper right block of exp(M), M = [[a, e], [0, a]]: along a_dot, M moves
    # by diag(a_dot, a_dot), whose cotangent is the sum of the diagonal blocks of
    # L(M^T, [[0, out_bar], [0, 0]])
    n = a.shape[-1]
    m_bar = _exp_frechet(_mT(_block_pair(a, e, a)),
                         _block_pair(None, out_bar, None))
    return m_bar[..., :n, :n] + m_bar[..., n:, n:]


def _exp_frechet_jvp(tangents, out, a, e):
    a_dot, e_dot = tangents
    out_dot = None if e_dot is None else _exp_frechet(a, e_dot)
    if a_dot is not None:
        n = a.shape[-1]
        term = _exp_frechet(_block_pair(a, e, a),
                            _block_pair(a_dot, None, a_dot))[..., :n, n:]
        out_dot = term if out_dot is None else out_dot + term
    return out_dot


# L(a, e): the derivative of matrix_exp at a along e, linear in e; the adjoint of L(a, .) is
# L(a^T, .). Batch dimensions broadcast.
matrix_exp_frechet_p = Primitive(
    "matrix_exp_frechet", _exp_frechet_impl,
    vjp=(_exp_frechet_a_vjp, lambda out_bar, out, a, e: _exp_frechet(_mT(a), out_bar)),
    jvp=_exp_frechet_jvp, saves_inputs=((0, 1), (0,)), linear=(1,),
    batch=broadcasting("matrix_exp_frechet"))

matrix_exp_p = Primitive(
    "matrix_exp", _matrix_exp_impl,
    vjp=(lambda out_bar, out, x: _exp_frechet(_mT(x), out_bar),),
    jvp=lambda tangents, out, x: _exp_frechet(x, tangents[0]),
    batch=_matrix_batch("matrix_exp"))


@tensor_method("matrix_exp")
def matrix_exp(A):
    """The matrix exponential sum_k A^k / k! of a square matrix [..., n, n] (or each of a
    batch), as torch.linalg.matrix_exp."""
    return apply(matrix_exp_p, _square("matrix_exp", A))
