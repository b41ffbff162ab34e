"""Softmax and log-softmax along one axis: numerically stable primitives with their own rules.

Both shift the input by its max along the axis before exponentiating, so large
inputs (1000 and more) neither overflow nor lose the result.
"""
import numpy as np

from .._core.dispatch import apply
from .._core.primitive import REGISTRY, Primitive
from .._core.tensor import tensor_method
from ._batch import front, shifted_axes
from ._family import float_result, ndim_of, normalize_axis, refuse_kinds
from .elementwise import cast, exp
from .reduce import sum
from .shape import reshape

__all__ = ["softmin", "softmax", "log_softmax"]


def _shifted(x, axis):
    return x - np.max(x, axis=axis, keepdims=True, initial=-np.inf)


def _softmax_impl(x, *, axis):
    # float16 is computed in float32 and rounded once, as PyTorch
    e = np.exp(_shifted(x.astype(np.float32) if x.dtype == np.float16 else x, axis))
    return (e / np.sum(e, axis=axis, keepdims=True)).astype(x.dtype, copy=False)


def _log_softmax_impl(x, *, axis):
    z = _shifted(x.astype(np.float32) if x.dtype == np.float16 else x, axis)
    return (z - np.log(np.sum(np.exp(z), axis=axis, keepdims=True))).astype(x.dtype, copy=False)


def _batch(name):
    def rule(bdims, x, *, axis):
        x = front(x, bdims[0])
        if axis is not None:
            return apply(REGISTRY[name], x, axis=shifted_axes(axis, x.ndim - 1)), 0
        # 0-d examples (axis None) work along a size-1 axis: None would take in the batch
        out = apply(REGISTRY[name], reshape(x, x.shape + (1,)), axis=(1,))
        return reshape(out, x.shape), 0
    return rule


# The softmax Jacobian diag(out) - out out^T is symmetric: the VJP and JVP share one form.
def _softmax_rule(v, out, axis):
    return out * (v - sum(v * out, axis, keepdims=True))


softmax_p = Primitive(
    "softmax", _softmax_impl,
    vjp=(lambda out_bar, out, x, *, axis: _softmax_rule(out_bar, out, axis),),
    jvp=lambda tangents, out, x, *, axis: _softmax_rule(tangents[0], out, axis),
    saves_out=True, batch=_batch("softmax"))

log_softmax_p = Primitive(
    "log_softmax", _log_softmax_impl,
    vjp=(lambda out_bar, out, x, *, axis: out_bar - exp(out) * sum(out_bar, axis, keepdims=True),),
    jvp=lambda tangents, out, x, *, axis:
        tangents[0] - sum(exp(out) * tangents[0], axis, keepdims=True),
    saves_out=True, batch=_batch("log_softmax"))


def _prepare(x, axis, dim, dtype, op):
    if dim is not None:
        axis = dim
    if not isinstance(axis, (int, np.integer)):
        raise TypeError(f"{op} works along one axis; got axis={axis!r}, pass an int")
    ndim = ndim_of(x, op)
    axis = normalize_axis(axis, ndim, op)
    if not x.ndim:
        axis = None
    if dtype is None:
        refuse_kinds(x, "biu", f"{op} (without dtype=)")
    return float_result(x if dtype is None else cast(x, dtype)), axis


@tensor_method("softmax")
def softmax(x, axis=-1, dtype=None, *, dim=None):
    """exp(x) / sum(exp(x)) along `axis` (`dim`), computed stably; `dtype` casts x first."""
    x, axis = _prepare(x, axis, dim, dtype, "softmax")
    return apply(softmax_p, x, axis=axis)


@tensor_method("log_softmax")
def log_softmax(x, axis=-1, dtype=None, *, dim=None):
    """x - logsumexp(x) along `axis` (`dim`), computed stably; `dtype` casts x first."""
    x, axis = _prepare(x, axis, dim, dtype, "log_softmax")
    return apply(log_softmax_p, x, axis=axis)


@tensor_method("softmin")
def softmin(x, axis=-1, dtype=None, *, dim=None):
    """softmax(-x) along `axis` (`dim`): the smallest entries get the largest weights."""
    x, axis = _prepare(x, axis, dim, dtype, "softmin")
    return apply(softmax_p, -x, axis=axis)
