"""Samples for the matrix decompositions (fluxgrad/ops/decompositions.py).

Singular vectors and eigenvectors are defined up to sign, so the samples of svd and eigh
return functions that don't depend on it (singular values, U S Vh, U f(S) U^T, |U|); eigh
samples symmetrise their argument first, as cholesky's do. The matrices have distinct
singular values and eigenvalues, where these derivatives exist.
"""
import numpy as np

import fluxgrad as fg
from fluxgrad import linalg as fla

from . import Sample, normal
from .linalg import well_conditioned


def _torch():
    import torch
    return torch


# --- solve_triangular ------------------------------------------------------------------------
def _solve_triangular(**kwargs):
    return ((lambda a, b: fla.solve_triangular(a, b, **kwargs)),
            (lambda a, b: _torch().linalg.solve_triangular(a, b, **kwargs)))


def _solve_triangular_samples():
    cases = [((3, 3), (3, 2), {"upper": True}),
             ((3, 3), (3, 2), {"upper": False}),
             ((4, 4), (4, 1), {"upper": True, "unitriangular": True}),
             ((3, 3), (2, 3), {"upper": False, "left": False}),
             ((2, 3, 3), (3, 2), {"upper": True}),
             ((3, 3), (2, 3, 4), {"upper": False, "unitriangular": True}),
             ((1, 1), (1, 1), {"upper": True})]
    samples = []
    for k, (a, b, kwargs) in enumerate(cases):
        fn, torch_fn = _solve_triangular(**kwargs)
        samples.append(Sample("solve_triangular", fn,
                              [well_conditioned(*a, seed=k), normal(*b, seed=k + 1)], torch_fn))
    return samples


# --- svd -------------------------------------------------------------------------------------
def _u_s2_vh(full):
    """U diag(S^2) Vh: sign-free, and with a second derivative (U S Vh = A has none)."""
    def fn(a):
        u, s, vh = fla.svd(a, full_matrices=full)
        k = s.shape[-1]
        return fg.matmul(u[..., :k] * (s * s).unsqueeze(-2), vh[..., :k, :])

    def torch_fn(a):
        u, s, vh = _torch().linalg.svd(a, full_matrices=full)
        k = s.shape[-1]
        return (u[..., :k] * (s * s).unsqueeze(-2)) @ vh[..., :k, :]
    return fn, torch_fn


def _svd_invariants(a):
    """Sign-free functions of each part: S, U S^3 U^T (so U's derivative matters), |Vh|."""
    u, s, vh = fla.svd(a, full_matrices=False)
    return s, fg.matmul(u * (s ** 3).unsqueeze(-2), u.mT), vh.abs()


def _torch_svd_invariants(a):
    u, s, vh = _torch().linalg.svd(a, full_matrices=False)
    return s, (u * (s ** 3).unsqueeze(-2)) @ u.mT, vh.abs()


def _svd_full_parts(a):
    """Of a full SVD, the parts that are defined: S and the first min(m, n) columns of U."""
    u, s, _ = fla.svd(a)
    return s, u[..., :s.shape[-1]].abs()


def _torch_svd_full_parts(a):
    u, s, _ = _torch().linalg.svd(a)
    return s, u[..., :s.shape[-1]].abs()


def _svd_samples():
    samples = [Sample("svdvals", fla.svdvals, [normal(*shape, seed=k)],
                      lambda a: _torch().linalg.svdvals(a))
               for k, shape in enumerate([(3, 3), (4, 3), (3, 5), (2, 3, 4)])]
    for k, (shape, full) in enumerate([((3, 3), True), ((4, 2), False), ((2, 4), False),
                                       ((4, 3), True), ((2, 3, 4), True)]):
        fn, torch_fn = _u_s2_vh(full)
        samples.append(Sample("svd", fn, [normal(*shape, seed=10 + k)], torch_fn))
    samples += [Sample("svd", _svd_invariants, [normal(*shape, seed=20 + k)],
                       _torch_svd_invariants)
                for k, shape in enumerate([(3, 3), (4, 3), (3, 4), (2, 3, 3)])]
    samples.append(Sample(  # torch.svd: V, not Vh
        "svd", lambda a: fg.matmul(a.svd()[0] * a.svd()[1].unsqueeze(-2) ** 2, a.svd()[2].mT),
        [normal(4, 3, seed=40)],
        lambda a: (a.svd()[0] * a.svd()[1].unsqueeze(-2) ** 2) @ a.svd()[2].mT))
    samples += [Sample("svd", _svd_full_parts, [normal(*shape, seed=30 + k)],
                       _torch_svd_full_parts)
                for k, shape in enumerate([(4, 2), (2, 3)])]
    return samples


# --- eigh ------------------------------------------------------------------------------------
def _sym(a):
    return a + a.mT


def _eigh_invariants(upper):
    uplo = "U" if upper else "L"

    def fn(a):
        eigenvalues, q = fla.eigh(_sym(a), UPLO=uplo)
        return eigenvalues, fg.matmul(q * eigenvalues.sin().unsqueeze(-2), q.mT), q.abs()

    def torch_fn(a):
        eigenvalues, q = _torch().linalg.eigh(_sym(a), UPLO=uplo)
        return eigenvalues, (q * eigenvalues.sin().unsqueeze(-2)) @ q.mT, q.abs()
    return fn, torch_fn


def _eigh_samples():
    samples = [Sample("eigvalsh", lambda a: fla.eigvalsh(_sym(a)), [normal(*shape, seed=k)],
                      lambda a: _torch().linalg.eigvalsh(_sym(a)))
               for k, shape in enumerate([(3, 3), (2, 4, 4), (1, 1)])]
    samples.append(Sample("eigvalsh", lambda a: fla.eigvalsh(_sym(a), UPLO="U"),
                          [normal(3, 3, seed=5)],
                          lambda a: _torch().linalg.eigvalsh(_sym(a), UPLO="U")))
    for k, (shape, upper) in enumerate([((3, 3), False), ((4, 4), True), ((2, 3, 3), False)]):
        fn, torch_fn = _eigh_invariants(upper)
        samples.append(Sample("eigh", fn, [normal(*shape, seed=10 + k)], torch_fn))
    return samples


# --- qr --------------------------------------------------------------------------------------
def _qr(mode):
    def fn(a):
        q, r = fla.qr(a, mode=mode)
        return (r,) if mode == "r" else (q, r)

    def torch_fn(a):
        q, r = _torch().linalg.qr(a, mode="reduced" if mode == "r" else mode)
        return (r,) if mode == "r" else (q, r)
    return fn, torch_fn


def _qr_samples():
    samples = []
    for k, (shape, mode) in enumerate([((4, 3), "reduced"), ((3, 3), "reduced"),
                                       ((3, 5), "reduced"), ((2, 4, 3), "reduced"),
                                       ((3, 3), "complete"), ((2, 4), "complete"),
                                       ((4, 3), "r"), ((2, 2, 3), "reduced")]):
        fn, torch_fn = _qr(mode)
        samples.append(Sample("qr", fn, [normal(*shape, seed=k)], torch_fn))
    return samples


# --- pinv ------------------------------------------------------------------------------------
def _pinv_samples():
    samples = [Sample("pinv", fla.pinv, [normal(*shape, seed=k)],
                      lambda a: _torch().linalg.pinv(a))
               for k, shape in enumerate([(3, 3), (4, 3), (3, 5), (2, 3, 4), (1, 1)])]
    samples += [
        Sample("pinv", lambda a: fla.pinv(_sym(a), hermitian=True), [normal(3, 3, seed=7)],
               lambda a: _torch().linalg.pinv(_sym(a), hermitian=True)),
        Sample("pinv", lambda a: a.pinverse(), [normal(2, 4, seed=8)], lambda a: a.pinverse()),
    ]
    return samples


# --- matrix_exp ------------------------------------------------------------------------------
def _matrix_exp_samples():
    cases = [0.5 * normal(3, 3), 0.5 * normal(2, 3, 3, seed=1), normal(1, 1, seed=2),
             3.0 * normal(4, 4, seed=3), np.zeros((2, 2))]
    return [Sample("matrix_exp", fla.matrix_exp, [a], lambda a: _torch().linalg.matrix_exp(a))
            for a in cases] + [
        Sample("matrix_exp", lambda a: a.matrix_exp(), [0.3 * normal(2, 2, seed=4)],
               lambda a: a.matrix_exp())]


def _torch_exp_frechet(a, e):
    torch = _torch()
    a, e = torch.broadcast_tensors(a, e)
    n = a.shape[-1]
    block = torch.cat([torch.cat([a, e], -1), torch.cat([torch.zeros_like(a), a], -1)], -2)
    return torch.linalg.matrix_exp(block)[..., :n, n:]


def _exp_frechet(a, e):
    from fluxgrad._core.dispatch import apply
    from fluxgrad.ops.decompositions import matrix_exp_frechet_p
    return apply(matrix_exp_frechet_p, a, e)


def _matrix_exp_frechet_samples():
    """The derivative of matrix_exp (its rules' op), against the block matrix's exponential in
    PyTorch (Mathias, 1996)."""
    cases = [((3, 3), (3, 3)), ((2, 3, 3), (2, 3, 3)), ((3, 3), (2, 3, 3)),
             ((2, 1, 2, 2), (3, 2, 2)), ((1, 1), (1, 1))]
    return [Sample("matrix_exp_frechet", _exp_frechet,
                   [0.5 * normal(*a, seed=k), normal(*e, seed=10 + k)], _torch_exp_frechet)
            for k, (a, e) in enumerate(cases)]


SAMPLES = (_solve_triangular_samples() + _svd_samples() + _eigh_samples() + _qr_samples()
           + _pinv_samples() + _matrix_exp_samples() + _matrix_exp_frechet_samples())
