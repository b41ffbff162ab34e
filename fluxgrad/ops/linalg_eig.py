"""The eigendecomposition of a general (non-symmetric) square matrix: `eig` (values and
vectors) and `eigvals` (values only), as torch.linalg.eig / eigvals.

The results are complex for real and complex inputs alike (float32 -> complex64, float64 ->
complex128). Real inputs are decomposed as real matrices (LAPACK's geev, as PyTorch), so the
values, their order and the vectors' phases are PyTorch's. Each eigenvector has norm 1 and
is defined up to a phase e^{i phi} only: gradients are meaningful for functions that don't
depend on the phase (|V|, V diag(f(L)) V^-1, ...), and finite where the eigenvalues are
distinct. The rules are PyTorch's (linalg_eig_backward / linalg_eig_jvp): with
E[i, j] = L_j - L_i,

  A_bar = V^-H (diag(L_bar) + offdiag(V^H V_bar - V^H V diag(Re diag(V^H V_bar))) / conj(E)) V^H
  L_dot = diag(P),  V_dot = V (offdiag(P) / E) - V diag(Re diag(V^H V (offdiag(P) / E))),

P = V^-1 A_dot V; the second term of V_dot keeps the vectors' norms at 1. A real input's
cotangent is the real part of A_bar, as PyTorch's.
"""
import numpy as np

from .._core.dispatch import apply
from .._core.errors import ArgumentError, DTypeError
from .._core.primitive import Primitive
from ._conj import conj_rule
from ._family import cast_to
from .complex import real_p
from .elementwise import where
from .linalg import _as_tensor, _matrix_batch, _mT, _square, diag_embed, diagonal, matmul, solve_p
from .shape import unsqueeze

__all__ = ["eig", "eigvals"]


def _complex_of(dtype):
    return np.complex64 if dtype in (np.float32, np.complex64) else np.complex128


def _refuse_not_finite(x):
    if not np.isfinite(x).all():
        raise ArgumentError("torch.linalg.eig: input tensor should not contain infs or NaNs.")


def _eig_impl(x):
    _refuse_not_finite(x)
    values, vectors = np.linalg.eig(x)
    dtype = _complex_of(x.dtype)
    return values.astype(dtype, copy=False), vectors.astype(dtype, copy=False)


def _eigvals_impl(x):
    _refuse_not_finite(x)
    return np.linalg.eigvals(x).astype(_complex_of(x.dtype), copy=False)


def _mH(x):
    return conj_rule(_mT(x))


def _as_input(x_bar, x):
    """The cotangent for `x`: its real part for a real input (PyTorch's handle_r_to_c)."""
    return x_bar if x.dtype.is_complex else apply(real_p, x_bar)


def _gaps(values):
    """[i, j]: L_j - L_i, with ones on the diagonal."""
    eye = np.eye(values.shape[-1], dtype=bool)
    return where(eye, 1.0, unsqueeze(values, -2) - unsqueeze(values, -1))


def _without_diagonal(x):
    return x - diag_embed(diagonal(x, 0, -2, -1))


def _real_diagonal(x):
    """diag(Re diag(x)), as a complex matrix."""
    return diag_embed(cast_to(apply(real_p, diagonal(x, 0, -2, -1)), x.dtype))


def _eig_vjp(out_bar, out, x):
    values_bar, vectors_bar = out_bar  # (None for an output that no gradient reached)
    values, vectors = out
    v_h = _mH(vectors)
    if vectors_bar is None:
        return [_values_bar(values_bar, v_h, x)]
    vhgv = matmul(v_h, vectors_bar)
    # the part of V_bar that changes V with its columns' norms fixed
    projected = vhgv - matmul(matmul(v_h, vectors), _real_diagonal(vhgv))
    inner = _without_diagonal(projected) / conj_rule(_gaps(values))
    if values_bar is not None:
        inner = inner + diag_embed(values_bar)
    return [_as_input(apply(solve_p, v_h, matmul(inner, v_h)), x)]


def _values_bar(values_bar, v_h, x):
    """A_bar for a cotangent of the eigenvalues alone: V^-H diag(L_bar) V^H."""
    return _as_input(apply(solve_p, v_h, unsqueeze(values_bar, -1) * v_h), x)


def _p(a_dot, vectors):
    """V^-1 A_dot V."""
    return apply(solve_p, vectors, matmul(cast_to(a_dot, vectors.dtype), vectors))


def _eig_jvp(tangents, out, x):
    values, vectors = out
    p = _p(tangents[0], vectors)
    v_dot = matmul(vectors, _without_diagonal(p) / _gaps(values))
    v_dot = v_dot - matmul(vectors, _real_diagonal(matmul(_mH(vectors), v_dot)))
    return diagonal(p, 0, -2, -1), v_dot


eig_p = Primitive("eig", _eig_impl, n_outputs=2, vjp=_eig_vjp, jvp=_eig_jvp,
                  batch=_matrix_batch("eig"))


def _eigvals_vjp(out_bar, out, x):
    return _values_bar(out_bar, _mH(apply(eig_p, x)[1]), x)


def _eigvals_jvp(tangents, out, x):
    return diagonal(_p(tangents[0], apply(eig_p, x)[1]), 0, -2, -1)


# the values alone (LAPACK skips the vectors); the rules compute the vectors
eigvals_p = Primitive("eigvals", _eigvals_impl, vjp=(_eigvals_vjp,), jvp=_eigvals_jvp,
                      batch=_matrix_batch("eigvals"))


class EigResult(tuple):
    """(eigenvalues, eigenvectors), also readable by name."""
    __slots__ = ()
    eigenvalues = property(lambda self: self[0])
    eigenvectors = property(lambda self: self[1])


def _general_square(op, A):
    x = _as_tensor(A)
    if x._data.dtype.kind not in "fc":
        raise DTypeError(f"{op}: expected a floating or complex matrix, got {x.dtype} (PyTorch "
                         "has no complex dtype for it); convert it first (A.double())")
    return _square(op, x)


def eig(A):
    """Eigenvalues and eigenvectors (columns, each of norm 1) of a square matrix [..., n, n]
    (or each of a batch), as torch.linalg.eig: complex results for a real or complex A, with
    A @ V = V @ diag(L). Gradients are meaningful only for functions that don't depend on
    each eigenvector's phase, and finite only where the eigenvalues are distinct (see the
    module docstring)."""
    return EigResult(apply(eig_p, _general_square("linalg.eig", A)))


def eigvals(A):
    """The eigenvalues of a square matrix [..., n, n], complex, as torch.linalg.eigvals."""
    return apply(eigvals_p, _general_square("linalg.eigvals", A))
