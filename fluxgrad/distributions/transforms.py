"""`fluxgrad.distributions.transforms`: invertible maps for `TransformedDistribution`, as
torch's: ExpTransform, AffineTransform, SigmoidTransform, TanhTransform, PowerTransform,
AbsTransform, SoftplusTransform, ComposeTransform (and `identity_transform`),
StickBreakingTransform, SoftmaxTransform, IndependentTransform, ReshapeTransform,
LowerCholeskyTransform, PositiveDefiniteTransform, CorrCholeskyTransform, CatTransform,
StackTransform and CumulativeDistributionTransform.

A transform is called on x, `t.inv` is its inverse (itself a transform), and
`log_abs_det_jacobian(x, y)` is log |dy/dx| summed over the transform's event dims; `sign`
(+1 or -1) says whether it increases, which `cdf`/`icdf` of a transformed distribution use.
"""
import math

import numpy as np

from .. import ops
from .._core.dtypes import finfo
from .._core.tensor import Tensor
from ..creation import eye, full_like, zeros_like
from ..linalg import cholesky
from ..nn import functional as F
from . import constraints

__all__ = ["Transform", "ExpTransform", "AffineTransform", "SigmoidTransform", "TanhTransform",
           "PowerTransform", "AbsTransform", "SoftplusTransform", "ComposeTransform",
           "identity_transform", "StickBreakingTransform", "SoftmaxTransform",
           "IndependentTransform", "ReshapeTransform", "LowerCholeskyTransform",
           "PositiveDefiniteTransform", "CorrCholeskyTransform", "CatTransform",
           "StackTransform", "CumulativeDistributionTransform"]


def _checked_cache_size(cache_size):
    """`cache_size` of a transform: 1 keeps the last (x, y) pair, so that the inverse of the
    last output is its input exactly, as torch's; 0 keeps none."""
    if cache_size not in (0, 1):
        raise ValueError(f"cache_size must be 0 or 1, got {cache_size!r}")
    return cache_size


def _sum_rightmost(value, dims):
    return ops.sum(value, tuple(range(-dims, 0))) if dims > 0 else value


class Transform:
    """`event_dim`: the dims of one input event; `codomain_event_dim`: of one output event
    (they differ only for transforms that reshape events). `forward_shape` and
    `inverse_shape` map a full shape through the transform."""
    bijective = True
    domain = constraints.real
    codomain = constraints.real
    sign = 1
    event_dim = 0
    _cache_size = 0

    def __init__(self, cache_size=0):
        self._cache_size = _checked_cache_size(cache_size)

    @property
    def codomain_event_dim(self):
        return self.event_dim

    def __call__(self, x):
        if not self._cache_size:
            return self._call(x)
        cached_x, cached_y = getattr(self, "_cached_x_y", (None, None))
        if x is cached_x:
            return cached_y
        y = self._call(x)
        self._cached_x_y = x, y
        return y

    def forward_shape(self, shape):
        return tuple(shape)

    def inverse_shape(self, shape):
        return tuple(shape)

    @property
    def inv(self):
        return _Inverse(self)

    def log_abs_det_jacobian(self, x, y):
        raise NotImplementedError(f"{type(self).__name__} has no log_abs_det_jacobian")

    def __repr__(self):
        return f"{type(self).__name__}()"


class _Inverse(Transform):
    def __init__(self, transform):
        self._transform = transform
        self.domain, self.codomain = transform.codomain, transform.domain
        self.sign, self.bijective = transform.sign, transform.bijective

    @property
    def inv(self):
        return self._transform

    def __call__(self, y):
        transform = self._transform
        if not transform._cache_size:
            return transform._inverse(y)
        # the x a cached transform was last called on, for its output (tanh's inverse
        # loses precision near +-1, the cache gives the pre-image exactly)
        cached_x, cached_y = getattr(transform, "_cached_x_y", (None, None))
        if y is cached_y:
            return cached_x
        x = transform._inverse(y)
        transform._cached_x_y = x, y
        return x

    @property
    def event_dim(self):
        return self._transform.codomain_event_dim

    @property
    def codomain_event_dim(self):
        return self._transform.event_dim

    def forward_shape(self, shape):
        return self._transform.inverse_shape(shape)

    def inverse_shape(self, shape):
        return self._transform.forward_shape(shape)

    def log_abs_det_jacobian(self, x, y):
        return -self._transform.log_abs_det_jacobian(y, x)

    def __repr__(self):
        return f"_InverseTransform({self._transform!r})"


def _sign_of(value):
    """+1 or -1: the sign of a number or of every element of a tensor."""
    if isinstance(value, Tensor):
        signs = ops.sign(value.detach()).numpy()
        if (signs != signs.flat[0]).any():
            raise NotImplementedError("Transform.sign: the parameter has mixed signs")
        return int(signs.flat[0])
    return 1 if value > 0 else -1


class ExpTransform(Transform):
    codomain = constraints.positive

    def _call(self, x):
        return ops.exp(x)

    def _inverse(self, y):
        return ops.log(y)

    def log_abs_det_jacobian(self, x, y):
        return x


class SigmoidTransform(Transform):
    codomain = constraints.unit_interval

    def _call(self, x):
        finfo_ = finfo(x.dtype)
        return ops.clamp(ops.sigmoid(x), min=finfo_.tiny, max=1.0 - finfo_.eps)

    def _inverse(self, y):
        finfo_ = finfo(y.dtype)
        y = ops.clamp(y, min=finfo_.tiny, max=1.0 - finfo_.eps)
        return ops.log(y) - ops.log1p(-y)

    def log_abs_det_jacobian(self, x, y):
        return -F.softplus(-x) - F.softplus(x)


class TanhTransform(Transform):
    codomain = constraints.interval(-1.0, 1.0)

    def _call(self, x):
        return ops.tanh(x)

    def _inverse(self, y):
        return ops.atanh(y)

    def log_abs_det_jacobian(self, x, y):
        return 2.0 * (math.log(2.0) - x - F.softplus(-2.0 * x))


class AffineTransform(Transform):
    """y = loc + scale * x; `event_dim` trailing dims form one event."""

    def __init__(self, loc, scale, event_dim=0, cache_size=0):
        self.loc, self.scale, self.event_dim = loc, scale, event_dim
        self._cache_size = _checked_cache_size(cache_size)

    @property
    def sign(self):
        return _sign_of(self.scale)

    def _call(self, x):
        return self.loc + self.scale * x

    def _inverse(self, y):
        return (y - self.loc) / self.scale

    def log_abs_det_jacobian(self, x, y):
        scale = self.scale
        if isinstance(scale, Tensor):
            result = ops.broadcast_tensors(ops.log(ops.abs(scale)), x)[0]
        else:
            result = full_like(x, math.log(abs(scale)))
        return _sum_rightmost(result, self.event_dim)


class PowerTransform(Transform):
    """y = x ** exponent, on the positive reals."""
    domain = constraints.positive
    codomain = constraints.positive

    def __init__(self, exponent, cache_size=0):
        self._cache_size = _checked_cache_size(cache_size)
        self.exponent = exponent

    @property
    def sign(self):
        return _sign_of(self.exponent)

    def _call(self, x):
        return x ** self.exponent

    def _inverse(self, y):
        return y ** (1 / self.exponent)

    def log_abs_det_jacobian(self, x, y):
        return ops.log(ops.abs(self.exponent * y / x))


class AbsTransform(Transform):
    """y = |x| (not injective: its inverse gives the positive root)."""
    bijective = False
    codomain = constraints.positive

    def _call(self, x):
        return ops.abs(x)

    def _inverse(self, y):
        return y


class SoftplusTransform(Transform):
    """y = log(1 + exp(x))."""
    codomain = constraints.positive

    def _call(self, x):
        return F.softplus(x)

    def _inverse(self, y):
        return ops.log(-ops.expm1(-y)) + y

    def log_abs_det_jacobian(self, x, y):
        return -F.softplus(-x)


class ComposeTransform(Transform):
    """The transforms in `parts` applied in order (none: the identity)."""

    def __init__(self, parts):
        self.parts = list(parts)
        # the event dims of the whole chain, walked backwards and forwards as torch's
        event_dim = self.parts[-1].codomain_event_dim if self.parts else 0
        for p in reversed(self.parts):
            event_dim = p.event_dim + max(event_dim - p.codomain_event_dim, 0)
        self.event_dim = event_dim
        for p in self.parts:
            event_dim = p.codomain_event_dim + max(event_dim - p.event_dim, 0)
        self._codomain_event_dim = event_dim

    @property
    def codomain_event_dim(self):
        return self._codomain_event_dim

    def forward_shape(self, shape):
        for p in self.parts:
            shape = p.forward_shape(shape)
        return tuple(shape)

    def inverse_shape(self, shape):
        for p in reversed(self.parts):
            shape = p.inverse_shape(shape)
        return tuple(shape)

    @property
    def domain(self):
        return self.parts[0].domain if self.parts else constraints.real

    @property
    def codomain(self):
        return self.parts[-1].codomain if self.parts else constraints.real

    @property
    def bijective(self):
        return all(p.bijective for p in self.parts)

    @property
    def sign(self):
        sign = 1
        for p in self.parts:
            sign = sign * p.sign
        return sign

    def _call(self, x):
        for p in self.parts:
            x = p(x)
        return x

    def _inverse(self, y):
        for p in reversed(self.parts):
            y = p.inv(y)
        return y

    def log_abs_det_jacobian(self, x, y):
        if not self.parts:
            return zeros_like(x)
        total, event_dim = 0.0, self.event_dim
        for p in self.parts:
            y_p = p(x)
            total = total + _sum_rightmost(p.log_abs_det_jacobian(x, y_p),
                                           event_dim - p.event_dim)
            event_dim += p.codomain_event_dim - p.event_dim
            x = y_p
        return total

    def __repr__(self):
        return f"ComposeTransform({', '.join(repr(p) for p in self.parts)})"


identity_transform = ComposeTransform([])


def _clipped_sigmoid(x):
    info = finfo(x.dtype)
    return ops.clamp(ops.sigmoid(x), min=info.tiny, max=1.0 - info.eps)


def _stick_offset(n, like):
    """log(n, n-1, ..., 1), shaped like `like` (whose last dim is n): the shift that maps
    zeros to the centre of the simplex."""
    return ops.log(ops.cumsum(full_like(like, -1.0), -1) + (n + 1.0))


class StickBreakingTransform(Transform):
    """R^(K-1) -> the K-simplex by stick breaking (the unconstrained form of a simplex)."""
    codomain = constraints.simplex
    event_dim = 1

    def _call(self, x):
        z = _clipped_sigmoid(x - _stick_offset(x.shape[-1], x))
        z_cumprod = ops.cumprod(1 - z, -1)
        return F.pad(z, [0, 1], value=1.0) * F.pad(z_cumprod, [1, 0], value=1.0)

    def _inverse(self, y):
        y_crop = y[..., :-1]
        sf = ops.clamp(1 - ops.cumsum(y_crop, -1), min=finfo(y.dtype).tiny)
        return ops.log(y_crop) - ops.log(sf) + _stick_offset(y_crop.shape[-1], y_crop)

    def log_abs_det_jacobian(self, x, y):
        x = x - _stick_offset(x.shape[-1], x)
        return ops.sum(-x + F.logsigmoid(x) + ops.log(y[..., :-1]), -1)

    def forward_shape(self, shape):
        return tuple(shape[:-1]) + (shape[-1] + 1,)

    def inverse_shape(self, shape):
        return tuple(shape[:-1]) + (shape[-1] - 1,)


class SoftmaxTransform(Transform):
    """R^K -> the simplex by softmax (not injective: its inverse gives log y)."""
    bijective = False
    codomain = constraints.simplex
    event_dim = 1

    def _call(self, x):
        probs = ops.exp(x - ops.amax(x, -1, keepdim=True))
        return probs / ops.sum(probs, -1, keepdim=True)

    def _inverse(self, y):
        return ops.log(y)


class IndependentTransform(Transform):
    """`base_transform` with `reinterpreted_batch_ndims` more dims read as one event."""

    def __init__(self, base_transform, reinterpreted_batch_ndims):
        self.base_transform = base_transform
        self.reinterpreted_batch_ndims = int(reinterpreted_batch_ndims)
        self.event_dim = base_transform.event_dim + self.reinterpreted_batch_ndims
        self.domain = constraints.independent(base_transform.domain,
                                              self.reinterpreted_batch_ndims)
        self.codomain = constraints.independent(base_transform.codomain,
                                                self.reinterpreted_batch_ndims)
        self.bijective, self.sign = base_transform.bijective, base_transform.sign

    @property
    def codomain_event_dim(self):
        return self.base_transform.codomain_event_dim + self.reinterpreted_batch_ndims

    def forward_shape(self, shape):
        return self.base_transform.forward_shape(shape)

    def inverse_shape(self, shape):
        return self.base_transform.inverse_shape(shape)

    def _call(self, x):
        return self.base_transform(x)

    def _inverse(self, y):
        return self.base_transform.inv(y)

    def log_abs_det_jacobian(self, x, y):
        return _sum_rightmost(self.base_transform.log_abs_det_jacobian(x, y),
                              self.reinterpreted_batch_ndims)

    def __repr__(self):
        return (f"IndependentTransform({self.base_transform!r}, "
                f"{self.reinterpreted_batch_ndims})")


class ReshapeTransform(Transform):
    """The rightmost dims of shape `in_shape` reshaped to `out_shape` (as many elements)."""

    def __init__(self, in_shape, out_shape):
        self.in_shape, self.out_shape = tuple(in_shape), tuple(out_shape)
        if math.prod(self.in_shape) != math.prod(self.out_shape):
            raise ValueError(f"ReshapeTransform: in_shape {list(self.in_shape)} and out_shape "
                             f"{list(self.out_shape)} hold different numbers of elements")
        self.event_dim = len(self.in_shape)

    @property
    def codomain_event_dim(self):
        return len(self.out_shape)

    def forward_shape(self, shape):
        return tuple(shape[:len(shape) - len(self.in_shape)]) + self.out_shape

    def inverse_shape(self, shape):
        return tuple(shape[:len(shape) - len(self.out_shape)]) + self.in_shape

    def _call(self, x):
        batch = tuple(x.shape[:x.ndim - len(self.in_shape)])
        return x.reshape(batch + self.out_shape)

    def _inverse(self, y):
        batch = tuple(y.shape[:y.ndim - len(self.out_shape)])
        return y.reshape(batch + self.in_shape)

    def log_abs_det_jacobian(self, x, y):
        batch = tuple(x.shape[:x.ndim - len(self.in_shape)])
        return zeros_like(x).reshape(batch + (-1,))[..., 0]


class LowerCholeskyTransform(Transform):
    """A square matrix -> a lower triangular one with a positive diagonal (its strictly lower
    part kept, its diagonal exponentiated)."""
    bijective = False  # (as torch says: the strictly upper part is dropped)
    event_dim = 2
    codomain = constraints.lower_cholesky

    def _call(self, x):
        return ops.tril(x, -1) + ops.diag_embed(ops.exp(ops.diagonal(x, 0, -2, -1)))

    def _inverse(self, y):
        return ops.tril(y, -1) + ops.diag_embed(ops.log(ops.diagonal(y, 0, -2, -1)))


class CumulativeDistributionTransform(Transform):
    """y = distribution.cdf(x): a distribution's values to the unit interval."""
    codomain = constraints.unit_interval

    def __init__(self, distribution):
        self.distribution = distribution
        self.domain = distribution.support

    def _call(self, x):
        return self.distribution.cdf(x)

    def _inverse(self, y):
        return self.distribution.icdf(y)

    def log_abs_det_jacobian(self, x, y):
        return self.distribution.log_prob(x)


class PositiveDefiniteTransform(Transform):
    """A square matrix -> a positive definite one: L L^T for L its LowerCholeskyTransform."""
    bijective = False
    event_dim = 2
    codomain = constraints.positive_definite

    def _call(self, x):
        lower = LowerCholeskyTransform()(x)
        return lower @ lower.mT

    def _inverse(self, y):
        return LowerCholeskyTransform().inv(cholesky(y))


def _tril_to_vec(matrix, diag):
    rows, cols = np.tril_indices(matrix.shape[-1], diag)
    return matrix[..., rows, cols]


def _vec_to_tril(vec, diag):
    """The (n, n) matrix holding `vec` below diagonal `diag` (row by row) and zeros elsewhere."""
    size = vec.shape[-1]
    n = round((-(1 + 2 * diag) + math.sqrt((1 + 2 * diag) ** 2 + 8 * size)) / 2)
    slots = np.zeros((n, n), np.int64)  # 0 picks the zero padded in front of vec
    rows, cols = np.tril_indices(n, diag)
    slots[rows, cols] = np.arange(1, size + 1)
    return F.pad(vec, [1, 0], value=0.0)[..., slots]


class CorrCholeskyTransform(Transform):
    """R^(D(D-1)/2) -> the Cholesky factors of D x D correlation matrices: tanh to (-1, 1),
    then each row's entries as stick-breaking fractions of its unit norm."""
    event_dim = 1
    codomain = constraints.corr_cholesky

    @property
    def codomain_event_dim(self):
        return 2

    def _call(self, x):
        eps = finfo(x.dtype).eps
        r = _vec_to_tril(ops.clamp(ops.tanh(x), min=-1 + eps, max=1 - eps), -1)
        z1m_cumprod_sqrt = ops.cumprod(ops.sqrt(1 - r ** 2), -1)
        r = r + eye(r.shape[-1], dtype=r.dtype)
        return r * F.pad(z1m_cumprod_sqrt[..., :-1], [1, 0], value=1.0)

    def _inverse(self, y):
        y_cumsum = 1 - ops.cumsum(y * y, -1)
        y_cumsum_shifted = F.pad(y_cumsum[..., :-1], [1, 0], value=1.0)
        t = _tril_to_vec(y, -1) / ops.sqrt(_tril_to_vec(y_cumsum_shifted, -1))
        return (ops.log1p(t) - ops.log1p(-t)) / 2

    def log_abs_det_jacobian(self, x, y):
        y1m_cumsum = 1 - ops.cumsum(y * y, -1)
        stick_breaking = 0.5 * ops.sum(ops.log(_tril_to_vec(y1m_cumsum, -2)), -1)
        tanh = -2 * ops.sum(x + F.softplus(-2 * x) - math.log(2.0), -1)
        return stick_breaking + tanh

    def forward_shape(self, shape):
        d = round((0.25 + 2 * shape[-1]) ** 0.5 + 0.5)
        if d * (d - 1) // 2 != shape[-1]:
            raise ValueError(f"CorrCholeskyTransform: the last dim {shape[-1]} is not "
                             "D(D-1)/2 for any D")
        return tuple(shape[:-1]) + (d, d)

    def inverse_shape(self, shape):
        n = shape[-1]
        return tuple(shape[:-2]) + (n * (n - 1) // 2,)


class CatTransform(Transform):
    """Transform i applied to the i-th block of `lengths[i]` entries along `dim`."""

    def __init__(self, tseq, dim=0, lengths=None):
        self.transforms, self.dim = list(tseq), dim
        self.lengths = [1] * len(self.transforms) if lengths is None else list(lengths)
        if len(self.lengths) != len(self.transforms):
            raise ValueError(f"CatTransform: {len(self.transforms)} transforms but "
                             f"{len(self.lengths)} lengths; give one length per transform")
        self.event_dim = max([t.event_dim for t in self.transforms], default=0)
        self.bijective = all(t.bijective for t in self.transforms)

    def _blocks(self, x):
        return ops.split(x, self.lengths, self.dim)

    def _call(self, x):
        return ops.cat([t(b) for t, b in zip(self.transforms, self._blocks(x))], self.dim)

    def _inverse(self, y):
        return ops.cat([t.inv(b) for t, b in zip(self.transforms, self._blocks(y))], self.dim)

    def log_abs_det_jacobian(self, x, y):
        parts = [_sum_rightmost(t.log_abs_det_jacobian(bx, by), self.event_dim - t.event_dim)
                 for t, bx, by in zip(self.transforms, self._blocks(x), self._blocks(y))]
        dim = self.dim if self.dim < 0 else self.dim - x.ndim
        if dim + self.event_dim >= 0:  # `dim` is inside the event: its blocks are summed
            return sum(parts[1:], parts[0])
        return ops.cat(parts, dim + self.event_dim)


class StackTransform(Transform):
    """Transform i applied to the i-th slice along `dim`."""

    def __init__(self, tseq, dim=0):
        self.transforms, self.dim = list(tseq), dim
        self.bijective = all(t.bijective for t in self.transforms)

    def _call(self, x):
        return ops.stack([t(s) for t, s in zip(self.transforms, ops.unbind(x, self.dim))],
                         self.dim)

    def _inverse(self, y):
        return ops.stack([t.inv(s) for t, s in zip(self.transforms, ops.unbind(y, self.dim))],
                         self.dim)

    def log_abs_det_jacobian(self, x, y):
        return ops.stack([t.log_abs_det_jacobian(sx, sy) for t, sx, sy in zip(
            self.transforms, ops.unbind(x, self.dim), ops.unbind(y, self.dim))], self.dim)
