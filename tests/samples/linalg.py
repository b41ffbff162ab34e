"""Samples for the linear algebra ops (fluxgrad/ops/linalg.py).

Matrices that are inverted, factored or solved with are kept well conditioned
(`well_conditioned`: the identity times n plus small noise); Cholesky samples
build a symmetric positive-definite matrix from their argument first.
"""
import numpy as np

import fluxgrad as fg
from fluxgrad import linalg as fla

from . import Sample, normal


def well_conditioned(*shape, seed=0, sign=1.0):
    n = shape[-1]
    eye = np.eye(n)
    if sign < 0:
        eye[0, 0] = -1.0
    return n * eye + 0.3 * normal(*shape, seed=seed)


def _spd(a):
    n = a.shape[-1]
    return fg.matmul(a, a, transpose_y=True) + n * fg.eye(n, dtype=fg.float64)


def _torch_spd(a):
    import torch
    n = a.shape[-1]
    return a @ a.mT + n * torch.eye(n, dtype=torch.float64)


def _mm(x, y):
    return x @ y


def _matmul_samples():
    shapes = [((3, 4), (4, 5)), ((2, 3, 4), (4, 5)), ((4, 5), (2, 5, 3)), ((4,), (4, 5)),
              ((3, 4), (4,)), ((4,), (4,)), ((2, 1, 3, 4), (5, 4, 2)), ((3,), (2, 3, 4)),
              ((2, 3, 4), (4,)), ((1, 1), (1, 1)), ((2, 3, 4), (2, 4, 1))]
    samples = [Sample("matmul", fg.matmul, [normal(*a, seed=1), normal(*b, seed=2)], _mm)
               for a, b in shapes]
    samples += [
        Sample("matmul", lambda x, y: x @ y, [normal(2, 3), normal(3, 2, seed=1)], _mm),
        Sample("matmul", lambda x, y: x.__rmatmul__(y), [normal(3, 2), normal(2, 3, seed=1)],
               lambda x, y: y @ x),
        Sample("matmul", fg.mm, [normal(2, 3), normal(3, 4, seed=1)], lambda x, y: x.mm(y)),
        Sample("matmul", fg.mv, [normal(2, 3), normal(3, seed=1)], lambda x, y: x.mv(y)),
        Sample("matmul", fg.bmm, [normal(2, 3, 4), normal(2, 4, 2, seed=1)],
               lambda x, y: x.bmm(y)),
        Sample("matmul", fg.dot, [normal(5), normal(5, seed=1)], lambda x, y: x.dot(y)),
        Sample("matmul", lambda x, y: fg.matmul(x, y, transpose_x=True, transpose_y=True),
               [normal(4, 3), normal(2, 4, seed=1)], lambda x, y: x.mT @ y.mT),
        Sample("matmul", lambda x, y: fg.matmul(x, y, transpose_y=True),
               [normal(2, 3, 4), normal(5, 4, seed=1)], lambda x, y: x @ y.mT),
    ]
    return samples


def _einsum(equation):
    def fn(*xs):
        return fg.einsum(equation, *xs)

    def torch_fn(*xs):
        import torch
        return torch.einsum(equation, *xs)
    return fn, torch_fn


def _einsum_samples():
    cases = [
        ("ij,jk->ik", [(3, 4), (4, 2)]),
        ("bij,bjk->bik", [(2, 3, 4), (2, 4, 2)]),
        ("ii->", [(3, 3)]),
        ("ii->i", [(4, 4)]),
        ("ii", [(3, 3)]),
        ("bii->bi", [(2, 3, 3)]),
        ("iji->j", [(3, 2, 3)]),
        ("i,i", [(5,), (5,)]),
        ("i,j->ij", [(3,), (4,)]),
        ("ij->", [(2, 3)]),
        ("ij->ji", [(2, 3)]),
        ("ba", [(2, 3)]),
        ("ij,k->ik", [(2, 3), (4,)]),
        ("...ij,...jk", [(5, 1, 2, 3), (4, 3, 2)]),
        ("...i->i", [(2, 3)]),
        ("i...->...", [(3, 2, 2)]),
        ("ij,ij->ij", [(1, 3), (4, 3)]),
        ("ij,jk,kl->il", [(2, 3), (3, 4), (4, 2)]),
        ("ij,ij->", [(3, 3), (3, 3)]),
        ("", [()]),
        (",i->i", [(), (3,)]),
    ]
    samples = []
    for k, (equation, shapes) in enumerate(cases):
        fn, torch_fn = _einsum(equation)
        args = [normal(*s, seed=k + j) for j, s in enumerate(shapes)]
        samples.append(Sample("einsum", fn, args, torch_fn))
    return samples


def _diagonal_samples():
    return [
        Sample("diag_embed", lambda x: fg.diag(x), [normal(4)], lambda x: x.diag()),
        Sample("diag_embed", lambda x: fg.diag(x, 1), [normal(3)], lambda x: x.diag(1)),
        Sample("diag_embed", lambda x: fg.diag(x, -2), [normal(2)], lambda x: x.diag(-2)),
        Sample("diag_embed", fg.diag_embed, [normal(2, 3)], lambda x: x.diag_embed()),
        Sample("diag_embed", lambda x: fg.diag_embed(x, 1, 0, 2), [normal(2, 3)],
               lambda x: x.diag_embed(1, 0, 2)),
        Sample("diag_embed", lambda x: fg.diag(x, padding_value=2.0), [normal(3)],
               lambda x: x.diag() + 2.0 * (1 - x.new_ones(3).diag())),
        Sample("diagonal", lambda x: fg.diag(x), [normal(3, 3)], lambda x: x.diag()),
        Sample("diagonal", lambda x: fg.diag(x, 1), [normal(3, 5)], lambda x: x.diag(1)),
        Sample("diagonal", lambda x: fg.diag(x, -1), [normal(4, 2)], lambda x: x.diag(-1)),
        Sample("diagonal", lambda x: fg.diagonal(x, -1, 0, 2), [normal(3, 2, 4)],
               lambda x: x.diagonal(-1, 0, 2)),
        Sample("diagonal", lambda x: fla.diagonal(x), [normal(2, 3, 3)],
               lambda x: x.diagonal(0, -2, -1)),
        Sample("diagonal", fg.trace, [normal(3, 4)], lambda x: x.trace()),
        Sample("diagonal", lambda x: x.trace(), [normal(1, 1)], lambda x: x.trace()),
    ]


def _triangle_samples():
    samples = []
    for op in ("tril", "triu"):
        for shape, k in [((3, 3), 0), ((3, 5), 1), ((4, 2), -1), ((2, 3, 3), 0), ((2, 3, 3), -2)]:
            fn = (lambda op, k: lambda x: getattr(fg, op)(x, k))(op, k)
            torch_fn = (lambda op, k: lambda x: getattr(x, op)(k))(op, k)
            samples.append(Sample(op, fn, [normal(*shape)], torch_fn))
    return samples


def _inverse_samples():
    return [
        Sample("inverse", fg.inverse, [well_conditioned(3, 3)], lambda a: a.inverse()),
        Sample("inverse", fla.inv, [well_conditioned(2, 4, 4, seed=1)],
               lambda a: a.inverse()),
        Sample("inverse", lambda a: a.inverse(), [well_conditioned(1, 1, seed=2)],
               lambda a: a.inverse()),
    ]


def _det_samples():
    return [
        Sample("det", fg.det, [well_conditioned(3, 3)], lambda a: a.det()),
        Sample("det", fla.det, [well_conditioned(2, 3, 3, seed=1)], lambda a: a.det()),
        Sample("det", lambda a: a.det(), [well_conditioned(4, 4, seed=2, sign=-1)],
               lambda a: a.det()),
        Sample("det", fg.det, [well_conditioned(1, 1, seed=3)], lambda a: a.det()),
        Sample("cofactor", _cofactor, [well_conditioned(3, 3, seed=4)], _torch_cofactor),
        Sample("cofactor", _cofactor, [well_conditioned(2, 4, 4, seed=5, sign=-1)],
               _torch_cofactor),
    ]


def _cofactor(a):
    from fluxgrad._core.dispatch import apply
    from fluxgrad.ops.linalg import cofactor_p
    return apply(cofactor_p, a)


def _torch_cofactor(a):
    return a.det()[..., None, None] * a.inverse().mT


def _slogdet(a):
    sign, logabsdet = fg.slogdet(a)
    return sign * logabsdet


def _torch_slogdet(a):
    import torch
    sign, logabsdet = torch.linalg.slogdet(a)
    return sign * logabsdet


def _slogdet_samples():
    return [
        Sample("slogdet", _slogdet, [well_conditioned(3, 3)], _torch_slogdet),
        Sample("slogdet", _slogdet, [well_conditioned(4, 4, seed=1, sign=-1)], _torch_slogdet),
        Sample("slogdet", lambda a: fla.slogdet(a).logabsdet, [well_conditioned(2, 3, 3, seed=2)],
               lambda a: a.slogdet().logabsdet),
    ]


def _solve(**kwargs):
    def torch_fn(a, b):
        import torch
        return torch.linalg.solve(a, b, **kwargs)
    return (lambda a, b: fla.solve(a, b, **kwargs)), torch_fn


def _solve_samples():
    cases = [((3, 3), (3, 2), {}), ((3, 3), (3,), {}), ((2, 3, 3), (3, 2), {}),
             ((2, 3, 3), (2, 3), {}), ((3, 3), (2, 3, 4), {}), ((3, 3), (2, 3), {"left": False}),
             ((1, 1), (1, 1), {})]
    samples = []
    for k, (a, b, kwargs) in enumerate(cases):
        fn, torch_fn = _solve(**kwargs)
        samples.append(Sample("solve", fn, [well_conditioned(*a, seed=k), normal(*b, seed=k + 1)],
                              torch_fn))
    return samples


def _cholesky(upper=False):
    def fn(a):
        return fla.cholesky(_spd(a), upper=upper)

    def torch_fn(a):
        import torch
        return torch.linalg.cholesky(_torch_spd(a), upper=upper)
    return fn, torch_fn


def _cholesky_samples():
    samples = []
    for k, (shape, upper) in enumerate([((3, 3), False), ((2, 4, 4), False), ((3, 3), True),
                                        ((1, 1), False)]):
        fn, torch_fn = _cholesky(upper)
        samples.append(Sample("cholesky", fn, [normal(*shape, seed=k)], torch_fn))
    return samples


SAMPLES = (_matmul_samples() + _einsum_samples() + _diagonal_samples() + _triangle_samples()
           + _inverse_samples() + _det_samples() + _slogdet_samples() + _solve_samples()
           + _cholesky_samples())
