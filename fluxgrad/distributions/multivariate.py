"""Distributions over vectors, as torch.distributions: Dirichlet, MultivariateNormal and
LowRankMultivariateNormal (a MultivariateNormal whose covariance is W W^T + diag(D)).

Dirichlet draws normalised gamma variates (its rsample raises NotImplementedError when the
concentration requires a gradient: torch's implicit reparameterisation is not provided).
MultivariateNormal keeps the lower Cholesky factor `scale_tril` of the covariance (computed
from `covariance_matrix` or `precision_matrix` when those are given) and works through it.
"""
import math

import numpy as np

from .. import ops
from .._core.dtypes import finfo
from ..linalg import cholesky, inv, solve_triangular
from ..random import randn
from . import constraints
from .continuous import _no_gradient_through, standard_gamma
from .distribution import Distribution, as_float
from .exp_family import ExponentialFamily

__all__ = ["Dirichlet", "MultivariateNormal", "LowRankMultivariateNormal"]


class Dirichlet(ExponentialFamily):
    arg_constraints = {"concentration": constraints.independent(constraints.positive, 1)}
    support = constraints.simplex
    has_rsample = True

    @property
    def _natural_params(self):
        return (self.concentration,)

    def _log_normalizer(self, x):
        return ops.sum(ops.lgamma(x), -1) - ops.lgamma(ops.sum(x, -1))

    def __init__(self, concentration, validate_args=None):
        concentration = as_float(concentration)
        if concentration.ndim < 1:
            raise ValueError("Dirichlet: `concentration` parameter must be at least "
                             "one-dimensional.")
        self.concentration = concentration
        super().__init__(concentration.shape[:-1], concentration.shape[-1:],
                         validate_args=validate_args)

    @property
    def mean(self):
        return self.concentration / ops.sum(self.concentration, -1, keepdim=True)

    @property
    def mode(self):
        k = self.concentration.shape[-1]
        shifted = ops.clamp(self.concentration - 1, min=0)
        return shifted / ops.sum(shifted, -1, keepdim=True) if k else shifted

    @property
    def variance(self):
        total = ops.sum(self.concentration, -1, keepdim=True)
        return self.concentration * (total - self.concentration) / (total ** 2 * (total + 1))

    def rsample(self, sample_shape=()):
        _no_gradient_through(self, self.concentration, "concentration")
        return self.sample(sample_shape)

    def sample(self, sample_shape=()):
        draws = standard_gamma(self.concentration, self._extended(sample_shape))
        tiny = finfo(draws.dtype).tiny
        return ops.clamp(draws / ops.sum(draws, -1, keepdim=True), min=tiny, max=1 - tiny)

    def log_prob(self, value):
        self._validate_sample(value)
        c = self.concentration
        return (ops.sum(ops.xlogy(c - 1, value), -1) + ops.lgamma(ops.sum(c, -1))
                - ops.sum(ops.lgamma(c), -1))

    def entropy(self):
        c = self.concentration
        k = c.shape[-1]
        total = ops.sum(c, -1)
        return (ops.sum(ops.lgamma(c), -1) - ops.lgamma(total) - (k - total) * ops.digamma(total)
                - ops.sum((c - 1) * ops.digamma(c), -1))


def _batch_mv(matrix, vector):
    return ops.matmul(matrix, ops.unsqueeze(vector, -1)).squeeze(-1)


class MultivariateNormal(Distribution):
    """N(loc, covariance), the covariance given by exactly one of `covariance_matrix`,
    `precision_matrix` and `scale_tril` (its lower Cholesky factor)."""
    arg_constraints = {"loc": constraints.real_vector,
                       "covariance_matrix": constraints.positive_definite,
                       "precision_matrix": constraints.positive_definite,
                       "scale_tril": constraints.lower_cholesky}
    support = constraints.real_vector
    has_rsample = True

    def __init__(self, loc, covariance_matrix=None, precision_matrix=None, scale_tril=None,
                 validate_args=None):
        loc = as_float(loc)
        if loc.ndim < 1:
            raise ValueError("MultivariateNormal: loc must be at least one-dimensional.")
        given = [m for m in (covariance_matrix, precision_matrix, scale_tril) if m is not None]
        if len(given) != 1:
            raise ValueError("Exactly one of covariance_matrix or precision_matrix or "
                             "scale_tril may be specified.")
        matrix = as_float(given[0])
        if matrix.ndim < 2:
            raise ValueError("MultivariateNormal: the covariance_matrix, precision_matrix or "
                             "scale_tril must be at least two-dimensional, with optional "
                             f"leading batch dimensions; got shape {tuple(matrix.shape)}")
        k = loc.shape[-1]
        if tuple(matrix.shape[-2:]) != (k, k):
            raise ValueError(f"MultivariateNormal: loc has {k} dims but the matrix has shape "
                             f"{tuple(matrix.shape)}; it must end in ({k}, {k})")
        batch_shape = np.broadcast_shapes(tuple(matrix.shape[:-2]), tuple(loc.shape[:-1]))
        matrix = matrix.expand(*batch_shape, k, k)
        self.loc = loc.expand(*batch_shape, k)
        if scale_tril is not None:
            self.scale_tril = matrix
        elif covariance_matrix is not None:
            self.covariance_matrix = matrix
        else:
            self.precision_matrix = matrix
        super().__init__(batch_shape, (k,), validate_args=validate_args)
        if scale_tril is None:
            self.scale_tril = cholesky(matrix if covariance_matrix is not None else inv(matrix))
        self._unbroadcasted_scale_tril = self.scale_tril

    def __getattr__(self, name):  # the matrices not given, computed from scale_tril on demand
        if name == "covariance_matrix":
            L = self.__dict__["scale_tril"]
            return ops.matmul(L, L.mT)
        if name == "precision_matrix":
            L = self.__dict__["scale_tril"]
            return inv(ops.matmul(L, L.mT))
        raise AttributeError(f"'{type(self).__name__}' object has no attribute '{name}'")

    @property
    def mean(self):
        return self.loc

    @property
    def mode(self):
        return self.loc

    @property
    def variance(self):
        return ops.sum(self.scale_tril ** 2, -1)

    def _half_log_det(self):
        return ops.sum(ops.log(ops.diagonal(self.scale_tril, 0, -2, -1)), -1)

    def rsample(self, sample_shape=()):
        eps = randn(self._extended(sample_shape), dtype=self.loc.dtype)
        return self.loc + _batch_mv(self.scale_tril, eps)

    def _mahalanobis(self, diff):
        """|L^-1 diff|^2 over the last dim, L broadcast over diff's leading dims."""
        k = diff.shape[-1]
        L = self.scale_tril.expand(*diff.shape[:-1], k, k)
        solved = solve_triangular(L, ops.unsqueeze(diff, -1), upper=False).squeeze(-1)
        return ops.sum(solved ** 2, -1)

    def log_prob(self, value):
        self._validate_sample(value)
        diff = value - self.loc
        diff, _ = ops.broadcast_tensors(diff, self.loc)
        k = self.event_shape[0]
        return -0.5 * (k * math.log(2 * math.pi) + self._mahalanobis(diff)) - self._half_log_det()

    def entropy(self):
        k = self.event_shape[0]
        return 0.5 * k * (1.0 + math.log(2 * math.pi)) + self._half_log_det()


class LowRankMultivariateNormal(MultivariateNormal):
    """N(loc, cov_factor @ cov_factor.mT + diag(cov_diag)): `cov_factor` [..., k, rank],
    `cov_diag` [..., k] positive."""
    arg_constraints = {"loc": constraints.real_vector,
                       "cov_factor": constraints.independent(constraints.real, 2),
                       "cov_diag": constraints.independent(constraints.positive, 1)}

    def __init__(self, loc, cov_factor, cov_diag, validate_args=None):
        loc, factor, diag = as_float(loc), as_float(cov_factor), as_float(cov_diag)
        if loc.ndim < 1:
            raise ValueError("LowRankMultivariateNormal: loc must be at least one-dimensional.")
        k = loc.shape[-1]
        if factor.ndim < 2 or factor.shape[-2] != k:
            raise ValueError(f"LowRankMultivariateNormal: cov_factor must be at least "
                             f"two-dimensional, with its second-to-last dimension the size of "
                             f"loc ({k}); got shape {tuple(factor.shape)}")
        if diag.ndim < 1 or diag.shape[-1] != k:
            raise ValueError(f"LowRankMultivariateNormal: cov_diag must be at least "
                             f"one-dimensional and end in loc's size {k}; got shape "
                             f"{tuple(diag.shape)}")
        self.cov_factor, self.cov_diag = factor, diag
        covariance = ops.matmul(factor, factor.mT) + ops.diag_embed(diag)
        super().__init__(loc, covariance_matrix=covariance, validate_args=validate_args)
