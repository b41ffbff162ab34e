"""Samples for the LU decomposition and the `_ex` solvers (fluxgrad/ops/lu.py, linalg_ex.py),
linalg.vander and linalg.householder_product (composites).

Random normal matrices: their partial-pivoting choices are far from ties, so the pivots
don't change under the finite-difference steps. Square, wide and tall shapes, batched too.
"""
import numpy as np

import fluxgrad as fg
from fluxgrad import linalg as fla

from . import Sample, normal
from .linalg import well_conditioned


def _torch():
    import torch
    return torch


def _lu_lower_upper(a):
    _, lower, upper = fla.lu(a)
    return lower, upper


def _torch_lu_lower_upper(a):
    _, lower, upper = _torch().linalg.lu(a)
    return lower, upper


SAMPLES = []
for _shape in [(4, 4), (3, 5), (5, 3), (2, 3, 3), (2, 2, 4), (3, 4, 2), (1, 1)]:
    SAMPLES += [
        Sample("lu", _lu_lower_upper, [normal(*_shape, seed=len(_shape))],
               _torch_lu_lower_upper),
        Sample("lu_pivots", lambda a: fla.lu_factor_ex(a)[1:], [normal(*_shape, seed=2)],
               lambda a: _torch().linalg.lu_factor_ex(a)[1:]),
        Sample("lu", lambda a: fla.lu_factor(a)[0], [normal(*_shape, seed=3)],
               lambda a: _torch().linalg.lu_factor(a)[0]),
    ]


def _torch_unpacked(a):
    return _torch().lu_unpack(*_torch().linalg.lu_factor(a))


SAMPLES += [
    Sample("lu_permutation", lambda a: fg.lu_unpack(*fla.lu_factor(a))[0],
           [normal(2, 5, 3, seed=4)], lambda a: _torch_unpacked(a)[0]),
    Sample("lu", lambda a: fg.lu_unpack(*fla.lu_factor(a))[1:], [normal(4, 3, seed=5)],
           lambda a: _torch_unpacked(a)[1:]),
    Sample("lu", lambda a: fg.lu(a)[0], [normal(2, 3, 3, seed=6)], lambda a: _torch().lu(a)[0]),
    Sample("lu", lambda b, a: fg.lu_solve(b, *fla.lu_factor(a)),
           [normal(3, 2, seed=9), normal(3, 3, seed=10)],
           lambda b, a: _torch().lu_solve(b, *_torch().linalg.lu_factor(a))),
]
for _left in (True, False):
    for _adjoint in (True, False):
        SAMPLES.append(Sample(
            "lu", lambda a, b, left=_left, adjoint=_adjoint: fla.lu_solve(
                *fla.lu_factor(a), b, left=left, adjoint=adjoint),
            [normal(2, 4, 4, seed=7), normal(2, 4, 3, seed=8) if _left
             else normal(2, 3, 4, seed=8)],
            lambda a, b, left=_left, adjoint=_adjoint: _torch().linalg.lu_solve(
                *_torch().linalg.lu_factor(a), b, left=left, adjoint=adjoint)))


# the `_ex` forms on matrices that factor (the ones that don't: tests/test_linalg.py)
def _spd(a, upper):
    return (fg.matmul(a.mT, a) if upper else fg.matmul(a, a.mT)) + fg.eye(a.shape[-1])


def _torch_spd(a, upper):
    return (a.mT @ a if upper else a @ a.mT) + _torch().eye(a.shape[-1], dtype=a.dtype)


for _upper in (False, True):
    SAMPLES += [
        Sample("cholesky", lambda a, upper=_upper: fla.cholesky_ex(_spd(a, upper), upper=upper)[0],
               [normal(2, 3, 3, seed=11)],
               lambda a, upper=_upper: _torch().linalg.cholesky_ex(_torch_spd(a, upper),
                                                                   upper=upper)[0]),
        Sample("cholesky_info",
               lambda a, upper=_upper: fla.cholesky_ex(_spd(a, upper) - 2, upper=upper)[1],
               [normal(4, 3, 3, seed=12)],
               lambda a, upper=_upper: _torch().linalg.cholesky_ex(_torch_spd(a, upper) - 2,
                                                                   upper=upper)[1]),
    ]
SAMPLES += [
    Sample("inverse", lambda a: fla.inv_ex(a)[0], [well_conditioned(2, 3, 3, seed=13)],
           lambda a: _torch().linalg.inv_ex(a)[0]),
    Sample("lu_pivots", lambda a: fla.inv_ex(a)[1], [well_conditioned(2, 3, 3, seed=13)],
           lambda a: _torch().linalg.inv_ex(a)[1]),
    Sample("solve", lambda a, b: fla.solve_ex(a, b)[0], [well_conditioned(3, 3, seed=14),
                                                         normal(3, 2, seed=15)],
           lambda a, b: _torch().linalg.solve_ex(a, b)[0]),
    Sample("solve", lambda a, b: fla.solve_ex(a, b, left=False)[0],
           [well_conditioned(3, 3, seed=14), normal(2, 3, seed=15)],
           lambda a, b: _torch().linalg.solve_ex(a, b, left=False)[0]),
    Sample("mul", lambda x: fla.vander(x), [normal(4, seed=16)],
           lambda x: _torch().linalg.vander(x)),
    Sample("mul", lambda x: fla.vander(x, N=5), [normal(2, 3, seed=17)],
           lambda x: _torch().linalg.vander(x, N=5)),
]

for _shape, _k in [((4, 3), 2), ((2, 5, 3), 3), ((3, 3), 3)]:
    SAMPLES.append(Sample("matmul", fla.householder_product,
                          [normal(*_shape, seed=18), normal(*_shape[:-2], _k, seed=19)],
                          lambda a, tau: _torch().linalg.householder_product(a, tau)))
