"""`fluxgrad.distributions.transforms`: invertible maps for `TransformedDistribution`, as
torch's: ExpTransform, AffineTransform, SigmoidTransform, TanhTransform.

A transform is called on x, `t.inv` is its inverse (itself a transform), and
`log_abs_det_jacobian(x, y)` is log |dy/dx| summed over the transform's event dims; `sign`
(+1 or -1) says whether it increases, which `cdf`/`icdf` of a transformed distribution use.
"""
import math

from .. import ops
from .._core.dtypes import finfo
from .._core.tensor import Tensor
from ..creation import full_like
from ..nn import functional as F
from . import constraints

__all__ = ["Transform", "ExpTransform", "AffineTransform", "SigmoidTransform", "TanhTransform"]


def _sum_rightmost(value, dims):
    return ops.sum(value, tuple(range(-dims, 0))) if dims > 0 else value


class Transform:
    bijective = True
    domain = constraints.real
    codomain = constraints.real
    sign = 1
    event_dim = 0

    def __call__(self, x):
        return self._call(x)

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
        self.sign, self.event_dim = transform.sign, transform.event_dim

    @property
    def inv(self):
        return self._transform

    def __call__(self, y):
        return self._transform._inverse(y)

    def log_abs_det_jacobian(self, x, y):
        return -self._transform.log_abs_det_jacobian(y, x)

    def __repr__(self):
        return f"_InverseTransform({self._transform!r})"


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

    def __init__(self, loc, scale, event_dim=0):
        self.loc, self.scale, self.event_dim = loc, scale, event_dim

    @property
    def sign(self):
        if isinstance(self.scale, Tensor):
            signs = ops.sign(self.scale.detach()).numpy()
            if (signs != signs.flat[0]).any():
                raise NotImplementedError("AffineTransform.sign: scale has mixed signs")
            return int(signs.flat[0])
        return 1 if self.scale > 0 else -1

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
