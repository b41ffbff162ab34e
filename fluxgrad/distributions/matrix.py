"""Distributions over matrices, as torch.distributions: LKJCholesky (Cholesky factors of
correlation matrices, drawn by the onion method) and Wishart (positive definite matrices,
drawn by Bartlett's decomposition; `rsample` carries the gradient of the scale, not of df,
whose chi-squared draws have no reparameterised gradient here)."""
import math
import warnings

import numpy as np

from .. import ops
from .._core.dtypes import finfo
from .._core.size import Size
from .._core.tensor import Tensor
from ..creation import arange, eye, tensor
from ..linalg import cholesky, inv, slogdet
from ..random import randn
from . import constraints
from .continuous import Beta, Chi2
from .distribution import Distribution, broadcast_all
from .exp_family import ExponentialFamily

__all__ = ["LKJCholesky", "Wishart"]

_LOG_2 = math.log(2)


class LKJCholesky(Distribution):
    """The lower Cholesky factor of a dim x dim correlation matrix whose density is
    proportional to det(M)^(concentration - 1)."""
    arg_constraints = {"concentration": constraints.positive}
    support = constraints.corr_cholesky

    def __init__(self, dim, concentration=1.0, validate_args=None):
        if dim < 2:
            raise ValueError(f"Expected dim to be an integer greater than or equal to 2. "
                             f"Found dim={dim}.")
        self.dim = dim
        (self.concentration,) = broadcast_all(concentration)
        marginal = self.concentration + 0.5 * (dim - 2)
        offset = arange(dim - 1, dtype=self.concentration.dtype)
        offset = ops.cat([offset[:1] * 0, offset])
        self._beta = Beta(offset + 0.5, ops.unsqueeze(marginal, -1) - 0.5 * offset)
        super().__init__(self.concentration.shape, (dim, dim), validate_args=validate_args)

    def expand(self, batch_shape, _instance=None):
        return LKJCholesky(self.dim, self.concentration.expand(*tuple(batch_shape)),
                           validate_args=False)

    def sample(self, sample_shape=()):
        y = ops.unsqueeze(self._beta.sample(sample_shape), -1)
        u_normal = ops.tril(randn(self._extended(sample_shape), dtype=y.dtype), -1)
        u_hypersphere = u_normal / ops.norm(u_normal, dim=-1, keepdim=True)
        # the first row has no strictly lower part: 0 / 0 there becomes 0
        first_row = (arange(self.dim) == 0).reshape(self.dim, 1)
        u_hypersphere = ops.where(first_row, 0.0, u_hypersphere)
        w = ops.sqrt(y) * u_hypersphere
        diag = ops.sqrt(ops.clamp(1 - ops.sum(w ** 2, -1), min=finfo(w.dtype).tiny))
        return w + ops.diag_embed(diag)

    def log_prob(self, value):
        self._validate_sample(value)
        diag = ops.diagonal(value, 0, -2, -1)[..., 1:]
        order = arange(2, self.dim + 1, dtype=self.concentration.dtype)
        order = 2 * ops.unsqueeze(self.concentration - 1, -1) + self.dim - order
        unnormalized = ops.sum(order * ops.log(diag), -1)
        dm1 = self.dim - 1
        alpha = self.concentration + 0.5 * dm1
        normalizer = (0.5 * dm1 * math.log(math.pi) + ops.mvlgamma(alpha - 0.5, dm1)
                      - ops.lgamma(alpha) * dm1)
        return unnormalized - normalizer


def _mvdigamma(x, p):
    """The multivariate digamma function: sum_i digamma(x - i/2), i < p."""
    shifts = arange(p, dtype=x.dtype) / 2
    return ops.sum(ops.digamma(ops.unsqueeze(x, -1) - shifts), -1)


class Wishart(ExponentialFamily):
    """The law of sum_i x_i x_i^T over df draws x_i ~ N(0, covariance_matrix)."""
    support = constraints.positive_definite
    has_rsample = True
    _mean_carrier_measure = 0

    @property
    def arg_constraints(self):
        return {"covariance_matrix": constraints.positive_definite,
                "precision_matrix": constraints.positive_definite,
                "scale_tril": constraints.lower_cholesky,
                "df": constraints.greater_than(self.event_shape[-1] - 1)}

    def __init__(self, df, covariance_matrix=None, precision_matrix=None, scale_tril=None,
                 validate_args=None):
        given = [m for m in (covariance_matrix, precision_matrix, scale_tril) if m is not None]
        if len(given) != 1:
            raise ValueError("Exactly one of covariance_matrix or precision_matrix or "
                             "scale_tril may be specified.")
        param = given[0]
        if param.ndim < 2:
            raise ValueError("scale_tril must be at least two-dimensional, with optional "
                             "leading batch dimensions")
        p = param.shape[-1]
        if isinstance(df, Tensor):
            batch_shape = Size(np.broadcast_shapes(tuple(param.shape[:-2]), tuple(df.shape)))
            self.df = df.expand(*batch_shape)
        else:
            batch_shape = Size(param.shape[:-2])
            self.df = tensor(float(df), dtype=param.dtype)
        if bool((self.df <= p - 1).any()):
            raise ValueError(f"Value of df={df} expected to be greater than ndim - 1 = {p - 1}.")
        if bool((self.df < p).any()):
            warnings.warn("Low df values detected. Singular samples are highly likely to "
                          "occur for ndim - 1 < df < ndim.", stacklevel=2)
        matrix_shape = tuple(batch_shape) + (p, p)
        if scale_tril is not None:
            self.scale_tril = param.expand(*matrix_shape)
            self._unbroadcasted_scale_tril = scale_tril
        elif covariance_matrix is not None:
            self.covariance_matrix = param.expand(*matrix_shape)
            self._unbroadcasted_scale_tril = cholesky(covariance_matrix)
        else:
            self.precision_matrix = param.expand(*matrix_shape)
            self._unbroadcasted_scale_tril = cholesky(inv(precision_matrix))
        super().__init__(batch_shape, (p, p), validate_args=validate_args)
        self._dist_chi2 = Chi2(ops.unsqueeze(self.df, -1) - arange(p, dtype=param.dtype))

    def expand(self, batch_shape, _instance=None):
        shape = tuple(batch_shape) + tuple(self.event_shape)
        return Wishart(self.df.expand(*tuple(batch_shape)),
                       scale_tril=self._unbroadcasted_scale_tril.expand(*shape),
                       validate_args=False)

    def __getattr__(self, name):
        # the matrix forms not given are computed when first read, as torch's lazy properties
        tril = self.__dict__.get("_unbroadcasted_scale_tril")
        if tril is None or name not in ("scale_tril", "covariance_matrix", "precision_matrix"):
            raise AttributeError(f"'{type(self).__name__}' object has no attribute {name!r}")
        shape = tuple(self.batch_shape) + tuple(self.event_shape)
        if name == "scale_tril":
            value = tril
        elif name == "covariance_matrix":
            value = tril @ tril.mT
        else:
            value = ops.cholesky_solve(eye(shape[-1], dtype=tril.dtype), tril)
        value = value.expand(*shape)
        self.__dict__[name] = value
        return value

    @property
    def mean(self):
        return self.df.reshape(tuple(self.batch_shape) + (1, 1)) * self.covariance_matrix

    @property
    def mode(self):
        factor = self.df - self.covariance_matrix.shape[-1] - 1
        factor = ops.where(factor <= 0, math.nan, factor)
        return factor.reshape(tuple(self.batch_shape) + (1, 1)) * self.covariance_matrix

    @property
    def variance(self):
        v = self.covariance_matrix
        diag = ops.diagonal(v, 0, -2, -1)
        return self.df.reshape(tuple(self.batch_shape) + (1, 1)) * (
            v ** 2 + ops.unsqueeze(diag, -1) * ops.unsqueeze(diag, -2))

    def rsample(self, sample_shape=()):
        """Bartlett: L A A^T L^T with A lower triangular, sqrt(chi2(df - i)) on its diagonal
        and standard normals below it. (PyTorch redraws the rare singular draws; these are
        not redrawn.)"""
        chi = ops.clamp(ops.sqrt(self._dist_chi2.rsample(sample_shape)),
                        min=finfo(self.df.dtype).eps)
        normals = ops.tril(randn(self._extended(sample_shape), dtype=chi.dtype), -1)
        factor = self._unbroadcasted_scale_tril @ (normals + ops.diag_embed(chi))
        return factor @ factor.mT

    def log_prob(self, value):
        self._validate_sample(value)
        nu, p = self.df, self.event_shape[-1]
        log_diag = ops.sum(ops.log(ops.diagonal(self._unbroadcasted_scale_tril, 0, -2, -1)), -1)
        trace = ops.sum(ops.diagonal(ops.cholesky_solve(value, self._unbroadcasted_scale_tril),
                                     0, -2, -1), -1)
        return (-nu * (p * _LOG_2 / 2 + log_diag) - ops.mvlgamma(nu / 2, p)
                + (nu - p - 1) / 2 * slogdet(value).logabsdet - trace / 2)

    def entropy(self):
        nu, p = self.df, self.event_shape[-1]
        log_diag = ops.sum(ops.log(ops.diagonal(self._unbroadcasted_scale_tril, 0, -2, -1)), -1)
        return ((p + 1) * (p * _LOG_2 / 2 + log_diag) + ops.mvlgamma(nu / 2, p)
                - (nu - p - 1) / 2 * _mvdigamma(nu / 2, p) + nu * p / 2)

    @property
    def _natural_params(self):
        return -self.precision_matrix / 2, (self.df - self.event_shape[-1] - 1) / 2

    def _log_normalizer(self, x, y):
        p = self.event_shape[-1]
        return (y + (p + 1) / 2) * (-slogdet(-2 * x).logabsdet + _LOG_2 * p) + ops.mvlgamma(
            y + (p + 1) / 2, p)

