"""Samples for the linear algebra composites (fluxgrad/ops/matrix_functions.py): norms, least
squares, powers, chained products, Cholesky solves. Each names the primitive its graph goes
through, so the generic checks (finite differences, adjoint identity, second order, vmap,
PyTorch) cover the composite as a whole.
"""
import math

import fluxgrad as fg
from fluxgrad import linalg as fla

from . import Sample, normal
from .linalg import well_conditioned


def _torch():
    import torch
    return torch


def _both(name, *args, **kwargs):
    """fluxgrad.linalg.<name> and torch.linalg.<name> with the same extra arguments."""
    return (lambda *xs: getattr(fla, name)(*xs, *args, **kwargs),
            lambda *xs: getattr(_torch().linalg, name)(*xs, *args, **kwargs))


def _norm_samples():
    cases = [("norm", "vector_norm", (4, 3), (), {}),
             ("norm", "vector_norm", (4, 3), (3,), {"dim": 1}),
             ("norm", "vector_norm", (2, 3, 4), (1.5,), {"dim": (0, 2), "keepdim": True}),
             ("norm", "vector_norm", (5,), (math.inf,), {}),
             ("norm", "vector_norm", (2, 4), (-math.inf,), {"dim": -1}),
             ("norm", "matrix_norm", (3, 4), (), {}),
             ("svdvals", "matrix_norm", (3, 4), ("nuc",), {}),
             ("svdvals", "matrix_norm", (2, 4, 3), (2,), {}),
             ("svdvals", "matrix_norm", (3, 3), (-2,), {"keepdim": True}),
             ("amax", "matrix_norm", (3, 4), (1,), {}),
             ("amin", "matrix_norm", (2, 3, 4), (-1,), {}),
             ("amax", "matrix_norm", (4, 2, 3), (math.inf,), {"dim": (0, 2)}),
             ("amin", "matrix_norm", (3, 4), (-math.inf,), {"keepdim": True}),
             ("norm", "norm", (2, 3, 4), (), {}),
             ("norm", "norm", (5,), (3,), {}),
             ("svdvals", "norm", (3, 4), ("nuc",), {}),
             ("norm", "norm", (2, 3, 4), (), {"dim": (0, 1)}),
             ("norm", "norm", (2, 3, 4), (math.inf,), {"dim": 1}),
             ("svdvals", "cond", (3, 3), (), {})]
    samples = []
    for k, (op, name, shape, args, kwargs) in enumerate(cases):
        fn, torch_fn = _both(name, *args, **kwargs)
        data = well_conditioned(*shape, seed=k) if name == "cond" else normal(*shape, seed=k)
        samples.append(Sample(op, fn, [data], torch_fn))
    # PyTorch's own backward of cond(A, 'fro') fails ("modified by an inplace operation"):
    # compared with its definition
    samples.append(Sample(
        "inverse", lambda a: fla.cond(a, "fro"), [well_conditioned(3, 3, seed=30)],
        lambda a: (_torch().linalg.matrix_norm(a) * _torch().linalg.matrix_norm(
            _torch().linalg.inv(a)))))
    return samples


def _lstsq(driver, residuals):
    """The solution, and the residuals where the driver computes them (m > n, not 'gelsy')."""
    def fn(a, b):
        result = fla.lstsq(a, b, driver=driver)
        return (result.solution, result.residuals) if residuals else result.solution

    def torch_fn(a, b):
        result = _torch().linalg.lstsq(a, b, driver=driver)
        return (result.solution, result.residuals) if residuals else result.solution
    return fn, torch_fn


def _lstsq_samples():
    cases = [((5, 3), (5, 2), None), ((5, 3), (5,), "gelsd"), ((3, 3), (3, 1), "gels"),
             ((2, 5, 3), (2, 5, 2), "gelss"), ((2, 4), (2, 3), None), ((4, 2), (4, 2), "gels")]
    samples = []
    for k, (a, b, driver) in enumerate(cases):
        fn, torch_fn = _lstsq(driver, residuals=a[-2] > a[-1] and driver is not None)
        samples.append(Sample("pinv", fn, [normal(*a, seed=k), normal(*b, seed=k + 1)],
                              torch_fn))
    return samples


def _product_samples():
    samples = []
    for k, (shape, n) in enumerate([((3, 3), 3), ((2, 3, 3), 2), ((3, 3), 4), ((2, 2), 5)]):
        fn, torch_fn = _both("matrix_power", n)
        samples.append(Sample("matmul", fn, [0.7 * normal(*shape, seed=k)], torch_fn))
    # PyTorch's own backward of matrix_power(A, -n) fails ("modified by an inplace
    # operation"): compared with inv(A) @ inv(A)
    samples.append(Sample("inverse", lambda a: fla.matrix_power(a, -2),
                          [well_conditioned(3, 3, seed=5)],
                          lambda a: _torch().linalg.inv(a) @ _torch().linalg.inv(a)))
    samples.append(Sample("matmul", lambda a: a.matrix_power(3), [normal(2, 2, seed=6)],
                          lambda a: a.matrix_power(3)))
    for k, shapes in enumerate([[(3, 4), (4, 2)], [(5,), (5, 3), (3, 6), (6,)],
                                [(2, 7), (7, 3), (3, 8), (8, 2)], [(4,), (4, 2), (2, 3)]]):
        args = [normal(*s, seed=10 + k + j) for j, s in enumerate(shapes)]
        samples.append(Sample("matmul", lambda *xs: fla.multi_dot(xs), args,
                              lambda *xs: _torch().linalg.multi_dot(xs)))
    return samples


def _spd_factor(a, upper):
    n = a.shape[-1]
    l_factor = fg.tril(a, -1) + fg.diag_embed(a.diagonal(0, -2, -1).exp() + n)
    return l_factor.mT if upper else l_factor


def _torch_spd_factor(a, upper):
    n = a.shape[-1]
    l_factor = a.tril(-1) + (a.diagonal(0, -2, -1).exp() + n).diag_embed()
    return l_factor.mT if upper else l_factor


def _cholesky_solve_samples():
    samples = []
    for k, (a, b, upper) in enumerate([((3, 3), (3, 2), False), ((3, 3), (3, 2), True),
                                       ((2, 3, 3), (3, 1), False)]):
        samples.append(Sample(
            "solve_triangular",
            (lambda up: lambda a, b: fg.cholesky_solve(b, _spd_factor(a, up), up))(upper),
            [normal(*a, seed=k), normal(*b, seed=k + 1)],
            (lambda up: lambda a, b: _torch().cholesky_solve(b, _torch_spd_factor(a, up),
                                                             up))(upper)))
    samples.append(Sample(
        "solve_triangular", lambda a, b: fla.cholesky_solve(b, _spd_factor(a, False)),
        [normal(4, 4, seed=5), normal(4, 3, seed=6)],
        lambda a, b: b.cholesky_solve(_torch_spd_factor(a, False))))
    return samples


def _cross_samples():
    return [Sample("concat", lambda a, b: fla.cross(a, b), [normal(3, 3), normal(3, 3, seed=1)],
                   lambda a, b: _torch().linalg.cross(a, b)),
            Sample("concat", lambda a, b: fla.cross(a, b, dim=0),
                   [normal(3, 2), normal(3, 1, seed=1)],
                   lambda a, b: _torch().linalg.cross(a, b, dim=0))]


SAMPLES = (_norm_samples() + _lstsq_samples() + _product_samples() + _cholesky_solve_samples()
           + _cross_samples())
