"""Cross-entropy of class indices as one fused primitive (log_softmax and the pick of the
targets' log-probabilities in one record), and its cotangent as a second one.

`cross_entropy_p(x, target, weight, *, axis, ignore_index, reduction, smoothing, logits,
batch_dims)`: `x` holds logits (`logits=True`: log_softmax along `axis` comes first) or
log-probabilities (`logits=False`: PyTorch's nll_loss); `target` integer class indices shaped
like `x` without `axis` (already checked); `weight` the classes' weights [C], or the number
1.0 for none. With logp the log-probabilities, C the number of classes and
valid_n = (t_n != ignore_index), example n loses

    loss_n = -sum_c T[n, c] logp[n, c],  T[n, c] = valid_n w_c ((1 - smoothing) [c == t_n]
                                                                 + smoothing / C)

'none' returns loss_n, 'sum' their sum, 'mean' the sum over sum_n valid_n w_{t_n}, as PyTorch
(nan when no target counts). The first `batch_dims` dimensions of `x` and `target` are
independent problems (vmap's batch): 'sum' and 'mean' reduce within each.

`cross_entropy_backward_p(out_bar, x, target, weight, **same params)` is x's cotangent,
out_bar_n (s_n softmax(x)[n] - T[n]) with s_n = sum_c T[n, c] (just -out_bar_n T[n] for
log-probabilities): one NumPy expression where the composite took fifteen ops. It is linear
in out_bar and has its own rules, so the loss differentiates to any order; a backward pass
that records nothing calls its impl on the arrays.
"""
import numpy as np

from .._core.dispatch import apply
from .._core.primitive import Primitive
from .._core.tensor import Tensor
from ._batch import front
from .reduce import sum
from .shape import broadcast_to, select, stack
from .softmax import softmax

__all__ = []

_ndarray = np.ndarray


def _classes_first(x, axis):
    """x as a C-contiguous [C, examples] matrix: NumPy reduces along the first axis of one
    many times faster than along a short last axis (10 classes: 1.5 us against 12.5 us)."""
    z = x.transpose(_first(axis, x.ndim))
    # float16 is computed in float32 and rounded once, as PyTorch
    z = z.astype(np.float32) if x.dtype == np.float16 else z.copy()
    return z.reshape(z.shape[0], -1)


def _first(axis, ndim):
    """The permutation that brings `axis` to the front."""
    return (axis,) + tuple(range(axis)) + tuple(range(axis + 1, ndim))


def _shifted(z):
    """The logits minus their max per example, exp of that, and its sum per example."""
    z = z - z.max(0)
    e = np.exp(z)
    return z, e, e.sum(0)


def _coefficients(target, weight, classes, ignore_index, smoothing, reduction, batch_dims,
                  dtype):
    """Per example, flat: the weight of its target's log-probability and of the smoothing
    sum sum_c w_c logp_c (over the 'mean' denominator), and its target (ignored ones 0)."""
    valid = target != ignore_index
    picked = np.where(valid, target, 0)
    w_t = valid.astype(dtype) if weight is None else np.where(valid, weight[picked], 0)
    a, b = w_t, valid.astype(dtype) if smoothing else None
    if reduction == "mean":
        denom = _group_sums(w_t, batch_dims, keepdims=True)
        if denom.all():
            a = w_t / denom
            b = b / denom if smoothing else None
        else:
            with np.errstate(invalid="ignore", divide="ignore"):
                a = np.where(valid, w_t / denom, 0)  # no target counts: the gradient is 0
                b = np.where(valid, 1 / denom, 0) if smoothing else None
    if smoothing:
        a = a * (1 - smoothing)
        b = (b * (smoothing / classes)).reshape(-1)
    return a.reshape(-1), b, picked.reshape(-1)


def _group_sums(values, batch_dims, keepdims=False):
    """Sums over each problem's examples: all of `values`, or per index of the first
    `batch_dims` dimensions."""
    if not batch_dims:
        return values.sum()
    return np.sum(values, axis=tuple(range(batch_dims, values.ndim)), keepdims=keepdims)


def _class_weight(weight, dtype):
    return weight.astype(dtype, copy=False) if isinstance(weight, _ndarray) else None


def _cross_entropy(x, target, weight, *, axis, ignore_index, reduction, smoothing, logits,
                   batch_dims):
    z = _classes_first(x, axis)
    classes, examples = z.shape
    w = _class_weight(weight, z.dtype)
    valid = (target != ignore_index).reshape(-1)
    picked = np.where(valid, target.reshape(-1), 0)
    if logits:
        z, _, total = _shifted(z)
        log_total = np.log(total)
    chosen = z[picked, np.arange(examples)]
    if logits:
        chosen -= log_total
    w_t = valid.astype(z.dtype) if w is None else np.where(valid, w[picked], 0)
    # the target's term is kept by `where`, not by a product: 0 * -inf (an ignored example,
    # a masked logit) would be nan
    loss = -np.where(valid, w_t * chosen, 0)
    if smoothing:
        spread = z.sum(0) if w is None else w @ z  # sum_c w_c logp_c ...
        if logits:
            spread -= log_total * (classes if w is None else np.sum(w))
        loss = (1 - smoothing) * loss - np.where(valid, (smoothing / classes) * spread, 0)
    loss = loss.reshape(target.shape)
    if reduction != "none":
        loss = _group_sums(loss, batch_dims)
        if reduction == "mean":
            denom = _group_sums(w_t.reshape(target.shape), batch_dims)
            with np.errstate(invalid="ignore", divide="ignore"):
                loss = loss / denom  # nan when no target counts
    return np.asarray(loss).astype(x.dtype, copy=False)


def _cross_entropy_backward(out_bar, x, target, weight, *, axis, ignore_index, reduction,
                            smoothing, logits, batch_dims):
    z = _classes_first(x, axis)
    classes, examples = z.shape
    w = _class_weight(weight, z.dtype)
    a, b, picked = _coefficients(target, w, classes, ignore_index, smoothing, reduction,
                                 batch_dims, z.dtype)
    g = np.asarray(out_bar, z.dtype)
    if g.ndim:  # (a 0-d cotangent, of a whole reduction, broadcasts as it is)
        g = g.reshape(g.shape + (1,) * (target.ndim - g.ndim))
        g = np.broadcast_to(g, target.shape).reshape(-1)
    ga = g * a
    if logits:
        s = ga if not smoothing else ga + g * b * (classes if w is None else np.sum(w))
        _, e, total = _shifted(z)
        x_bar = e * (s / total)  # softmax(x) s
    else:
        x_bar = np.zeros(z.shape, z.dtype)
    if smoothing:
        x_bar -= np.multiply.outer(np.ones(classes, z.dtype) if w is None else w, g * b)
    x_bar[picked, np.arange(examples)] -= ga
    back = sorted(range(x.ndim), key=_first(axis, x.ndim).__getitem__)  # _first's inverse
    x_bar = x_bar.reshape((classes,) + target.shape).transpose(back)
    return x_bar.astype(x.dtype, copy=False)


def cross_entropy_backward(out_bar, x, target, weight, **params):
    """x's cotangent given the loss's (`impl` directly on arrays: a plain backward pass)."""
    if type(out_bar) is _ndarray and type(x) is _ndarray:
        return _cross_entropy_backward(out_bar, x, target, weight, **params)
    return apply(cross_entropy_backward_p, out_bar, x, target, weight, **params)


def _example_axes(x, *, axis, reduction, batch_dims, **_):
    """The axes of x's cotangent that a loss value sums over: the class axis ('none'), or
    every axis after the batch's."""
    if reduction == "none":
        return axis
    return tuple(range(batch_dims, x.ndim))


def _jvp(tangents, out, x, target, weight, **params):
    x_dot = tangents[0]
    if x_dot is None:
        return None
    d = cross_entropy_backward(1.0, x, target, weight, **params)
    return sum(x_dot * d, _example_axes(x, **params))


def _no_gradient(out_bar, out, *args, **params):
    return None  # class indices and class weights are constants, as in PyTorch


def _softmax_part(out_bar, x, target, weight, params):
    """softmax(x) and u_n = out_bar_n s_n: the cotangent's part that varies with x is
    u_n softmax(x)[n] (s_n: see the module's docstring)."""
    u = -sum(cross_entropy_backward(out_bar, x, target, weight, **dict(params, logits=False)),
             params["axis"], keepdims=True)
    return softmax(x, params["axis"]), u


def _backward_vjp_x(z_bar, out, out_bar, x, target, weight, **params):
    if not params["logits"]:
        return None  # -out_bar T doesn't depend on the log-probabilities
    p, u = _softmax_part(out_bar, x, target, weight, params)
    v = z_bar * u
    return p * (v - sum(v * p, params["axis"], keepdims=True))


def _backward_vjp_out_bar(z_bar, out, out_bar, x, target, weight, **params):
    d = cross_entropy_backward(1.0, x, target, weight, **params)  # (linear in out_bar)
    return sum(z_bar * d, _example_axes(x, **params))


def _backward_jvp(tangents, out, out_bar, x, target, weight, **params):
    g_dot, x_dot = tangents[0], tangents[1]
    terms = []
    if g_dot is not None:
        terms.append(cross_entropy_backward(g_dot, x, target, weight, **params))
    if x_dot is not None and params["logits"]:
        p, u = _softmax_part(out_bar, x, target, weight, params)
        terms.append(u * p * (x_dot - sum(p * x_dot, params["axis"], keepdims=True)))
    return None if not terms else terms[0] if len(terms) == 1 else terms[0] + terms[1]


def _batch(prim):
    """vmap: the batch in front of every array but the weight, as one more `batch_dims`; a
    weight that differs between examples is done example by example."""
    def rule(bdims, *args, **params):
        *arrays, weight = args
        size = next(a.shape[b] for a, b in zip(args, bdims) if b is not None)
        if bdims[-1] is not None:
            outs = [apply(prim, *[a if b is None else select(a, b, i) for a, b in
                                  zip(args, bdims)], **params) for i in range(size)]
            return stack(outs), 0
        moved = [front(a, b) if b is not None else broadcast_to(a, (size,) + tuple(a.shape))
                 if isinstance(a, Tensor) else a for a, b in zip(arrays, bdims)]
        params = dict(params, axis=params["axis"] + 1, batch_dims=params["batch_dims"] + 1)
        return apply(prim, *moved, weight, **params), 0
    return rule


cross_entropy_p = Primitive(
    "cross_entropy", _cross_entropy,
    vjp=(lambda out_bar, out, x, target, weight, **params:
         cross_entropy_backward(out_bar, x, target, weight, **params),
         _no_gradient, _no_gradient),
    jvp=_jvp, array_rules=True)
cross_entropy_p.batch = _batch(cross_entropy_p)

cross_entropy_backward_p = Primitive(
    "cross_entropy_backward", _cross_entropy_backward,
    vjp=(_backward_vjp_out_bar, _backward_vjp_x, _no_gradient, _no_gradient),
    jvp=_backward_jvp, linear=(0,))
cross_entropy_backward_p.batch = _batch(cross_entropy_backward_p)
