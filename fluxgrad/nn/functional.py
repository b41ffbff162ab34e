"""`fluxgrad.nn.functional`: layers and losses as functions of tensors.

The activations, softmax family, convolution and pooling are the ops of
`fluxgrad.ops`, re-exported here; what is built here is composed of them
(losses, normalisation, dropout, embedding), so it differentiates to any order.
"""
import inspect
import math
import warnings

import numpy as np

from .. import ops as _ops
from .._core import batching, dtypes
from .._core.errors import ArgumentError, DTypeError, ShapeError
from .._core.dispatch import apply
from .._core.grad_mode import no_grad
from .._core.static_mode import state as _static_mode
from .._core.tensor import Tensor
from ..creation import rand
from ..ops.activation import (celu, elu, gelu, hardsigmoid, hardswish, hardtanh, leaky_relu,
                              mish, relu, relu6, selu, sigmoid, silu, softplus, softsign,
                              tanhshrink)
from ..ops.elementwise import tanh
from ..ops._out import accepting_torch_keywords
from ..ops.linalg import require_same_float_dtype
from ..ops.linear import linear_p
from ..ops.losses import cross_entropy_p
from ..ops.matrix_functions import vector_norm
from ..ops.shape import pad
from ..ops.softmax import log_softmax, softmax, softmin
from ..ops.conv import (adaptive_avg_pool1d, adaptive_avg_pool2d, avg_pool1d, avg_pool2d,
                        conv1d, conv2d, conv_transpose1d, conv_transpose2d, max_pool1d,
                        max_pool2d)
from ..ops.conv import avg_pool3d, conv3d, conv_transpose3d, max_unpool2d

__all__ = ["relu", "relu6", "leaky_relu", "elu", "selu", "celu", "gelu", "silu", "swish", "mish",
           "sigmoid", "tanh", "softplus", "softsign", "hardtanh", "hardsigmoid", "hardswish",
           "logsigmoid", "log_sigmoid", "tanhshrink", "softmax", "log_softmax", "pad",
           "linear", "bilinear", "conv1d", "conv2d", "conv_transpose1d", "conv_transpose2d",
           "max_pool1d", "max_pool2d", "avg_pool1d", "avg_pool2d", "adaptive_avg_pool1d",
           "adaptive_avg_pool2d", "dropout", "batch_norm", "layer_norm", "group_norm",
           "embedding", "one_hot", "normalize", "mse_loss", "l1_loss", "smooth_l1_loss",
           "huber_loss", "cross_entropy", "nll_loss", "binary_cross_entropy",
           "binary_cross_entropy_with_logits", "kl_div", "cosine_similarity"]
__all__ += ["softmin", "interpolate", "max_unpool2d", "conv3d", "conv_transpose3d",
            "avg_pool3d", "scaled_dot_product_attention"]


def logsigmoid(x):
    """log(sigmoid(x)) = -softplus(-x), stable for large |x|."""
    return -softplus(-x)


log_sigmoid = logsigmoid
swish = silu


def _tensor(x):
    return x if isinstance(x, Tensor) else Tensor(x)


def _const(array, like):
    """A constant tensor (no gradient) in `like`'s floating dtype."""
    return Tensor._make(np.asarray(array, like._data.dtype))


# --- linear layers ----------------------------------------------------------------------
def linear(input, weight, bias=None):
    """`input @ weight.T + bias`, with weight [out_features, in_features] (PyTorch's layout)."""
    x = _tensor(input)
    if x.shape[-1:] != weight.shape[-1:]:
        raise ShapeError(f"linear: the input's last dimension is {x.shape[-1:]} but the weight "
                         f"{list(weight.shape)} expects {weight.shape[-1]} features; input shape "
                         f"{list(x.shape)}")
    require_same_float_dtype("linear", x, weight, ("input", "weight"))
    require_same_float_dtype("linear", x, bias, ("input", "bias"))
    if (isinstance(bias, Tensor) and bias.shape == weight.shape[:1] and weight.ndim == 2
            and x._data.dtype.kind == "f" and bias._data.dtype == x._data.dtype):
        return apply(linear_p, bias, x, weight)  # one op (see fluxgrad/ops/linear.py)
    y = _ops.matmul(x, weight, transpose_y=True)
    return y if bias is None else y + bias


def bilinear(input1, input2, weight, bias=None):
    """`y_k = x1^T W_k x2 + b_k`, with weight [out_features, in1_features, in2_features]."""
    y = _ops.einsum("...i,kij,...j->...k", input1, weight, input2)
    return y if bias is None else y + bias


# --- regularisation and normalisation -------------------------------------------------------
def dropout(input, p=0.5, training=True, inplace=False):
    """Zero each element with probability `p` and scale the rest by 1/(1-p) (training only)."""
    if not 0 <= p <= 1:
        raise ValueError(f"dropout probability must be in [0, 1], got {p}")
    if not isinstance(training, (bool, np.bool_)):
        raise TypeError(f"dropout(): training must be a bool, got {type(training).__name__} "
                        f"{training!r}")
    if not training or p == 0:
        return input
    if p == 1:
        out = input * 0.0
    else:
        keep = _ops.greater_equal(rand(input.shape, dtype=dtypes.float64), p)
        out = input * _ops.cast(keep, input.dtype) * (1.0 / (1.0 - p))
    if _static_mode.enabled:  # a static program's clone(for_test=True) runs the identity
        from ..static.for_test import infers_as
        infers_as(out, input)
    return out


def _norm_stats(x, axes):
    mean = _ops.mean(x, axis=axes, keepdims=True)
    centered = x - mean
    var = _ops.mean(centered * centered, axis=axes, keepdims=True)
    return centered, var


def update_running(stat, value, x):
    """A running statistic takes `value` while `x`'s program is built: a static program's
    persistable Variable after each run of the program (`Program.set_update`), an eager
    tensor (which fluxgrad.compile lifts) in place."""
    if getattr(stat, "persistable", False):
        x.program.set_update(stat, value)
    else:
        stat.copy_(value)


def batch_norm(input, running_mean, running_var, weight=None, bias=None, training=False,
               momentum=0.1, eps=1e-5):
    """Normalise over the batch (and spatial) axes per channel (axis 1).

    In training the batch statistics are used and the running ones updated in
    place (unbiased variance, as PyTorch); in eval the running ones are used.
    """
    x = _tensor(input)
    if x.ndim < 2:
        # torch counts 0 channels here: an empty input with empty statistics passes through
        stats = [t for t in (running_mean, running_var, weight, bias) if t is not None]
        if x.numel() == 0 and all(t.numel() == 0 for t in stats):
            return x * 1.0
        raise ShapeError(f"batch_norm: expected an input of at least 2 dimensions [N, C, ...], "
                         f"got shape {list(x.shape)}")
    shape = (1, x.shape[1]) + (1,) * (x.ndim - 2)
    axes = (0,) + tuple(range(2, x.ndim))
    if (training or running_mean is None) and x.numel() == 0:
        y = x * 1.0  # an empty batch: nothing to normalise, no statistics to update (as torch)
    elif training or running_mean is None:
        count = x.numel() // x.shape[1]
        if count == 1:
            raise ValueError(f"batch_norm: Expected more than 1 value per channel when training, "
                             f"got input size {list(x.shape)}; use a batch of 2 or more, or "
                             "eval mode")
        centered, var = _norm_stats(x, axes)
        if running_mean is not None and training:
            if batching.layers(x)[0]:
                raise RuntimeError(
                    "batch_norm: inside vmap, training mode would update the running statistics "
                    "with each example's own batch; use eval mode, or no running statistics "
                    "(track_running_stats=False / running_mean=None)")
            with no_grad():
                m = momentum
                if getattr(x, "program", None) is not None:  # staged: the updates are ops
                    update_running(running_mean, running_mean * (1 - m) +
                                   m * _ops.mean(x, axis=axes), x)
                    update_running(running_var, running_var * (1 - m) +
                                   m * _ops.var(x, axis=axes), x)  # unbiased
                else:
                    batch_mean = x._data.mean(axis=axes)
                    unbiased = var._data.reshape(-1) * count / (count - 1)
                    running_mean._data *= 1 - m
                    running_mean._data += m * batch_mean
                    running_var._data *= 1 - m
                    running_var._data += m * unbiased
                    running_mean._bump_version()
                    running_var._bump_version()
        y = centered / _ops.sqrt(var + eps)
    else:
        mean = _ops.reshape(running_mean, shape)
        y = (x - mean) / _ops.sqrt(_ops.reshape(running_var, shape) + eps)
    if weight is not None:
        y = y * _ops.reshape(weight, shape)
    if bias is not None:
        y = y + _ops.reshape(bias, shape)
    return y


def layer_norm(input, normalized_shape, weight=None, bias=None, eps=1e-5):
    """Normalise over the trailing `normalized_shape` axes."""
    x = _tensor(input)
    if isinstance(normalized_shape, (int, np.integer)):
        normalized_shape = (int(normalized_shape),)
    normalized_shape = tuple(normalized_shape)
    n = len(normalized_shape)
    if tuple(x.shape[x.ndim - n:]) != normalized_shape:
        raise ShapeError(f"layer_norm: the input's trailing dimensions {list(x.shape[x.ndim - n:])} "
                         f"don't match normalized_shape {list(normalized_shape)}; input shape "
                         f"{list(x.shape)}")
    centered, var = _norm_stats(x, tuple(range(x.ndim - n, x.ndim)))
    y = centered / _ops.sqrt(var + eps)
    if weight is not None:
        y = y * weight
    if bias is not None:
        y = y + bias
    return y


def group_norm(input, num_groups, weight=None, bias=None, eps=1e-5):
    """Normalise each of `num_groups` channel groups over its channels and spatial axes."""
    x = _tensor(input)
    if x.ndim < 2:
        raise ShapeError(f"group_norm: expected an input of at least 2 dimensions [N, C, ...], "
                         f"got shape {list(x.shape)}")
    n, c = x.shape[:2]
    if c % num_groups:
        raise ShapeError(f"group_norm: {c} channels can't be split into {num_groups} groups")
    grouped = _ops.reshape(x, (n, num_groups, x.numel() // max(n * num_groups, 1)))
    centered, var = _norm_stats(grouped, (2,))
    y = _ops.reshape(centered / _ops.sqrt(var + eps), x.shape)
    shape = (1, c) + (1,) * (x.ndim - 2)
    if weight is not None:
        y = y * _ops.reshape(weight, shape)
    if bias is not None:
        y = y + _ops.reshape(bias, shape)
    return y


def normalize(input, p=2.0, dim=1, eps=1e-12, *, axis=None):
    """`input / max(||input||_p, eps)` along `dim`."""
    if axis is not None:
        dim = axis
    norm = _ops.norm(input, p, dim, keepdim=True)
    return input / _ops.maximum(norm, eps)


def cosine_similarity(x1, x2, dim=1, eps=1e-8, *, axis=None):
    if axis is not None:
        dim = axis
    # PyTorch's formula: each input over its own norm, the norms' values floored at eps but
    # their gradients those of the norms (so a zero vector gets a finite gradient, as torch's)
    def unit(x):
        norm = vector_norm(x, dim=dim, keepdim=True)
        floored = norm.detach()
        return x / (norm + (_ops.maximum(floored, eps) - floored))
    x1, x2 = _ops.broadcast_tensors(x1, x2)  # norms over the broadcast vectors, as torch's
    return _ops.sum(unit(x1) * unit(x2), axis=dim)


# --- embeddings ----------------------------------------------------------------------------
def _indices(target, op):
    """Integer indices as a tensor, and every example's values (inside vmap too) for checks."""
    target = target if isinstance(target, Tensor) else Tensor(np.asarray(target))
    if target._data.dtype.kind not in "iu":
        raise DTypeError(f"{op}: expected integer indices, got dtype {target.dtype}; convert "
                         "them with .long()")
    return target, batching.layers(target)[1]._data


def embedding(input, weight, padding_idx=None, max_norm=None, norm_type=2.0,
              scale_grad_by_freq=False, sparse=False):
    """Rows of `weight` [num_embeddings, dim] picked by the integer `input`; `padding_idx` gets no
    gradient; with `max_norm`, the picked rows of `weight` longer than it are first scaled down to
    it, in place (as PyTorch)."""
    rows, idx = _indices(input, "embedding")
    if weight.ndim != 2:
        raise ShapeError(f"embedding: weight must be 2-D [num_embeddings, dim], got shape "
                         f"{list(weight.shape)}")
    num = weight.shape[0]
    if idx.size and (idx.min() < 0 or idx.max() >= num):
        raise IndexError(f"embedding: index {int(idx.max() if idx.max() >= num else idx.min())} "
                         f"is out of range for {num} embeddings (indices go from 0 to {num - 1})")
    if max_norm is not None:
        _renorm_rows(weight, Tensor(np.unique(idx % num)), max_norm, norm_type)
    out = weight[rows]
    if scale_grad_by_freq:
        # each row's gradient over the number of times the batch looks it up; the value is
        # unchanged (out.detach() + 0)
        counts = np.bincount((idx % num).ravel(), minlength=num)[idx % num]
        scale = Tensor((1.0 / counts[..., None]).astype(out._data.dtype))
        out = out.detach() + (out - out.detach()) * scale
    if padding_idx is not None:
        mask = _ops.unsqueeze(_ops.eq(rows, padding_idx % num), -1)
        out = _ops.where(mask, weight.detach()[rows], out)
    return out


def _renorm_rows(weight, rows, max_norm, norm_type):
    with no_grad():
        picked = weight[rows]
        norms = _ops.norm(picked, norm_type, dim=-1, keepdim=True)
        weight[rows] = _ops.where(norms > max_norm, picked * (max_norm / (norms + 1e-7)), picked)


def one_hot(input, num_classes=-1):
    """Integer tensor of indices -> int64 one-hot tensor with a trailing class axis."""
    classes, idx = _indices(input, "one_hot")
    if num_classes < 0:
        num_classes = int(idx.max()) + 1 if idx.size else 0
    if idx.size and (idx.min() < 0 or idx.max() >= num_classes):
        raise ArgumentError(f"one_hot: class values must be in [0, {num_classes}), got values in "
                            f"[{idx.min()}, {idx.max()}]")
    matches = _ops.eq(_ops.unsqueeze(classes, -1), Tensor(np.arange(num_classes)))
    return _ops.cast(matches, dtypes.int64)


# --- losses -------------------------------------------------------------------------------
def _reduce(loss, reduction, op):
    if reduction == "mean":
        return _ops.mean(loss)
    if reduction == "sum":
        return _ops.sum(loss)
    if reduction == "none":
        return loss
    raise ValueError(f"{op}: reduction must be 'mean', 'sum' or 'none', got {reduction!r}")


def _legacy_reduction(size_average, reduce, reduction):
    if size_average is None and reduce is None:
        return reduction
    if reduce is False:
        return "none"
    return "sum" if size_average is False else "mean"


class DomainError(ValueError, RuntimeError):
    """A value outside what a loss accepts, such as a probability outside [0, 1] (PyTorch
    raises a RuntimeError here, earlier fluxgrad a ValueError: both catch it)."""


def _pair_check(input, target, op, mismatch="warn"):
    """The input and target as tensors of one dtype. Shapes that differ but broadcast are
    warned about (`mismatch="warn"`, PyTorch's regression losses), refused ("refuse", its
    binary cross-entropies) or allowed ("broadcast")."""
    x, y = _tensor(input), _tensor(target)
    if x.shape != y.shape:
        try:
            np.broadcast_shapes(x.shape, y.shape)
        except ValueError:
            raise ShapeError(f"{op}: input shape {list(x.shape)} and target shape "
                             f"{list(y.shape)} don't broadcast") from None
        if mismatch == "refuse":
            raise ShapeError(f"{op}: Using a target size ({list(y.shape)}) that is different to "
                             f"the input size ({list(x.shape)}) is not supported. Please ensure "
                             "they have the same size.")
        if mismatch == "warn":
            warnings.warn(f"{op}: Using a target size ({list(y.shape)}) that is different to the "
                          f"input size ({list(x.shape)}). This will likely lead to incorrect "
                          "results due to broadcasting. Please ensure they have the same size.",
                          UserWarning, stacklevel=3)
    if y._data.dtype.kind != "f" and x._data.dtype.kind == "f":
        y = y.astype(x.dtype)
    return x, y


def mse_loss(input, target, size_average=None, reduce=None, reduction="mean"):
    """Mean squared error; gradients flow into both arguments."""
    x, y = _pair_check(input, target, "mse_loss")
    d = x - y
    return _reduce(d * d, _legacy_reduction(size_average, reduce, reduction), "mse_loss")


def l1_loss(input, target, size_average=None, reduce=None, reduction="mean"):
    x, y = _pair_check(input, target, "l1_loss")
    return _reduce(_ops.abs(x - y), _legacy_reduction(size_average, reduce, reduction),
                   "l1_loss")


def smooth_l1_loss(input, target, size_average=None, reduce=None, reduction="mean", beta=1.0):
    """Quadratic for |d| < beta (0.5 d^2 / beta), linear beyond (|d| - 0.5 beta)."""
    if beta < 0:
        raise ArgumentError(f"smooth_l1_loss does not support negative values for beta, got "
                            f"{beta}; pass beta >= 0")
    x, y = _pair_check(input, target, "smooth_l1_loss")
    d = _ops.abs(x - y)
    if beta == 0:
        loss = d
    else:
        loss = _ops.where(_ops.less(d, beta), 0.5 * d * d / beta, d - 0.5 * beta)
    return _reduce(loss, _legacy_reduction(size_average, reduce, reduction), "smooth_l1_loss")


def huber_loss(input, target, reduction="mean", delta=1.0):
    """Quadratic for |d| < delta (0.5 d^2), linear beyond (delta (|d| - 0.5 delta))."""
    if delta <= 0:
        raise ArgumentError(f"huber_loss: delta must be positive, got {delta}")
    x, y = _pair_check(input, target, "huber_loss")
    d = _ops.abs(x - y)
    loss = _ops.where(_ops.less(d, delta), 0.5 * d * d, delta * (d - 0.5 * delta))
    return _reduce(loss, reduction, "huber_loss")


def _class_axis(x, axis):
    if axis is None:
        return 1 if x.ndim >= 2 else 0
    return axis % x.ndim


def _index_targets(x, target, axis, ignore_index, op):
    """Integer class targets shaped like `x` without the class axis (checked: in range)."""
    target = _tensor(target)
    if target._data.dtype.kind not in "iu":
        raise DTypeError(f"{op}: expected integer class indices, got dtype {target.dtype}; "
                         "convert them with .long() (class probabilities go to cross_entropy)")
    if target._data.dtype not in (np.int64, np.uint8):
        raise DTypeError(f"{op}: expected class indices of dtype int64 (Long) or uint8, as "
                         f"PyTorch, but got {target.dtype}; convert them with target.long()")
    expected = x.shape[:axis] + x.shape[axis + 1:]
    if target.shape != expected:
        if target.ndim == x.ndim and target.shape[axis] == 1:
            target = _ops.squeeze(target, axis)  # PaddlePaddle's [N, 1] labels
        elif target.numel() == int(np.prod(expected)) and target.ndim <= 1:
            target = _ops.reshape(target, expected)
    if target.shape != expected:
        raise ShapeError(f"{op}: expected class-index targets of shape {list(expected)} for input "
                         f"shape {list(x.shape)} (classes on axis {axis}), got "
                         f"{list(target.shape)}")
    classes = x.shape[axis]
    values = batching.layers(target)[1]._data  # every example's targets, inside vmap too
    bad = (values != ignore_index) & ((values < 0) | (values >= classes))
    if bad.any():
        raise IndexError(f"{op}: target {int(values[bad].flat[0])} is out of bounds for {classes} "
                         f"classes (valid targets are 0..{classes - 1}, or ignore_index="
                         f"{ignore_index})")
    return target


def _class_weight(weight, x, axis, op):
    """The classes' weights as a constant of x's dtype (1.0: none), checked against the classes."""
    if weight is None:
        return 1.0
    weight = _tensor(weight).detach()
    classes = x.shape[axis]
    if weight.shape != (classes,):
        raise ShapeError(f"{op}: weight must hold one value per class, shape [{classes}] for "
                         f"input shape {list(x.shape)} (classes on axis {axis}), got "
                         f"{list(weight.shape)}")
    return weight.astype(x.dtype)


def _index_loss(x, target, weight, axis, ignore_index, reduction, smoothing, logits, op):
    """The fused cross-entropy (or nll_loss) of class indices: see fluxgrad/ops/losses.py."""
    if reduction not in ("mean", "sum", "none"):
        raise ValueError(f"{op}: reduction must be 'mean', 'sum' or 'none', got {reduction!r}")
    target = _index_targets(x, target, axis, ignore_index, op)
    weight = _class_weight(weight, x, axis, op)
    return apply(cross_entropy_p, x, target, weight, axis=axis, ignore_index=int(ignore_index),
                 reduction=reduction, smoothing=float(smoothing), logits=logits, batch_dims=0)


def cross_entropy(input, target, weight=None, size_average=None, ignore_index=-100, reduce=None,
                  reduction="mean", label_smoothing=0.0, *, axis=None, soft_label=None,
                  use_softmax=True):
    """Cross-entropy between logits (classes on axis 1) and class indices or probabilities.

    Computed from `log_softmax`, so it is stable for large logits. Integer targets
    are class indices (entries equal to `ignore_index` are skipped); floating
    targets shaped like the input are class probabilities. `weight` rescales
    each class; 'mean' divides by the total weight of the counted targets.
    PaddlePaddle's `[N, 1]` labels, `axis`, `soft_label` and `use_softmax` work too.
    Class indices go through one fused op (log_softmax and the pick together).
    """
    op = "cross_entropy"
    reduction = _legacy_reduction(size_average, reduce, reduction)
    x = _tensor(input)
    if x._data.dtype.kind != "f":
        raise TypeError(f"{op}: the input must be floating logits, got {x.dtype}")
    axis = _class_axis(x, axis)
    if not 0 <= label_smoothing <= 1:
        raise ValueError(f"{op}: label_smoothing must be in [0, 1], got {label_smoothing}")
    target = _tensor(target)
    if soft_label or (soft_label is None and target._data.dtype.kind == "f"):
        if target.shape != x.shape:
            raise ShapeError(f"{op}: probability targets must have the input's shape "
                             f"{list(x.shape)}, got {list(target.shape)}")
        logp = _ops.log_softmax(x, axis) if use_softmax else _ops.log(x)
        t = target
        if label_smoothing:
            t = t * (1.0 - label_smoothing) + label_smoothing / x.shape[axis]
        if weight is not None:
            cls_shape = [1] * x.ndim
            cls_shape[axis] = x.shape[axis]
            t = t * _ops.reshape(_tensor(weight), cls_shape)
        loss = -_ops.sum(logp * t, axis=axis)
        return _reduce(loss, reduction, op)
    return _index_loss(x if use_softmax else _ops.log(x), target, weight, axis, ignore_index,
                       reduction, label_smoothing, use_softmax, op)


def nll_loss(input, target, weight=None, size_average=None, ignore_index=-100, reduce=None,
             reduction="mean"):
    """Negative log-likelihood of class indices, given log-probabilities (classes on axis 1)."""
    x = _tensor(input)
    return _index_loss(x, target, weight, _class_axis(x, None), ignore_index,
                       _legacy_reduction(size_average, reduce, reduction), 0.0, False, "nll_loss")


def binary_cross_entropy(input, target, weight=None, size_average=None, reduce=None,
                         reduction="mean"):
    """-(y log p + (1 - y) log(1 - p)), with each log clamped at -100 as PyTorch."""
    p, y = _tensor(input), _tensor(target)
    if p.dtype != y.dtype or p._data.dtype.kind != "f":
        raise DTypeError(f"binary_cross_entropy: input and target must have one floating "
                         f"dtype, got {p.dtype} and {y.dtype}; convert the target with "
                         ".to(input.dtype)")
    p, y = _pair_check(p, y, "binary_cross_entropy", "refuse")
    for what, t in (("input", p), ("target", y)):
        values = batching.layers(t)[1]._data  # every example's, inside vmap too
        if values.size and not (values.min() >= 0 and values.max() <= 1):
            raise DomainError(f"binary_cross_entropy: the {what} must be probabilities in "
                              f"[0, 1], got values from {values.min()} to {values.max()}"
                              + ("; for logits use binary_cross_entropy_with_logits"
                                 if what == "input" else ""))
    loss = -(y * _ops.maximum(_ops.log(p), -100.0)
             + (1 - y) * _ops.maximum(_ops.log(1 - p), -100.0))
    if weight is not None:
        loss = loss * weight
    return _reduce(loss, _legacy_reduction(size_average, reduce, reduction),
                   "binary_cross_entropy")


def binary_cross_entropy_with_logits(input, target, weight=None, size_average=None, reduce=None,
                                     reduction="mean", pos_weight=None):
    """Sigmoid + binary cross-entropy in one stable expression; `pos_weight` weights positives."""
    x, y = _pair_check(input, target, "binary_cross_entropy_with_logits", "refuse")
    # -log sigmoid(x) = softplus(-x), computed stably by the op, whose derivative -sigmoid(-x)
    # is smooth: max(-x, 0) + log(1 + exp(-|x|)) has the same value, but kinks at x = 0 that
    # zero its second derivative there (a Newton step from zero weights)
    log_sig_neg = softplus(-x, threshold=float("inf"))
    if pos_weight is None:
        loss = (1 - y) * x + log_sig_neg
    else:
        loss = (1 - y) * x + (1 + (pos_weight - 1) * y) * log_sig_neg
    if weight is not None:
        loss = loss * weight
    return _reduce(loss, _legacy_reduction(size_average, reduce, reduction),
                   "binary_cross_entropy_with_logits")


def kl_div(input, target, size_average=None, reduce=None, reduction="mean", log_target=False):
    """KL(target || q) pointwise, with `input` = log q; 'batchmean' divides the sum by the batch size."""
    x, y = _pair_check(input, target, "kl_div", "broadcast")
    if log_target:
        loss = _ops.exp(y) * (y - x)
    else:
        safe = _ops.where(_ops.greater(y, 0), y, 1.0)
        loss = _ops.where(_ops.greater(y, 0), y * (_ops.log(safe) - x), 0.0)
    reduction = _legacy_reduction(size_average, reduce, reduction)
    if reduction == "batchmean":
        return _ops.sum(loss) / (x.shape[0] if x.ndim else 1)
    return _reduce(loss, reduction, "kl_div")


# --- resizing -------------------------------------------------------------------------------
_LINEAR_MODES = {"linear": 3, "bilinear": 4, "trilinear": 5, "bicubic": 4}


def interpolate(input, size=None, scale_factor=None, mode="nearest", align_corners=None,
                recompute_scale_factor=None, antialias=False):
    """Resize the spatial dimensions of an [N, C, ...] tensor (1 to 3 of them) as PyTorch's
    F.interpolate: `size` or `scale_factor` (one, or one per dimension); `mode` 'nearest',
    'nearest-exact', 'linear' / 'bilinear' / 'trilinear' / 'bicubic' (`align_corners`), or
    'area'. Each spatial dimension is resized on its own, by gathering (and blending)
    entries, so gradients flow back to the entries that were read. The nearest modes keep an
    integer dtype; the blending modes give a uint8 input back as uint8 (rounded)."""
    from ..ops.indexing import index_select
    x = _tensor(input)
    spatial = x.ndim - 2
    if not 1 <= spatial <= 3:
        raise ValueError(f"interpolate: expects a 3-d, 4-d or 5-d input [N, C, ...], got shape "
                         f"{list(x.shape)}")
    modes = ("nearest", "nearest-exact", "area") + tuple(_LINEAR_MODES)
    if mode not in modes:
        raise NotImplementedError(f"interpolate: mode {mode!r} is not supported; use one of "
                                  f"{', '.join(modes)}")
    if mode in _LINEAR_MODES and _LINEAR_MODES[mode] != x.ndim:
        raise NotImplementedError(f"Got {x.ndim}D input, but {mode} mode needs "
                                  f"{_LINEAR_MODES[mode]}D input (interpolate: input shape "
                                  f"{list(x.shape)})")
    if align_corners is not None and mode not in _LINEAR_MODES:
        raise ValueError(f"interpolate: align_corners only applies to the linear modes, not "
                         f"{mode!r}")
    if antialias and mode not in ("bilinear", "bicubic"):
        raise ValueError(f"Anti-alias option is restricted to bilinear and bicubic modes and "
                         f"requires a 4-D tensor as input (interpolate: mode {mode!r}, input "
                         f"shape {list(x.shape)})")
    sizes, scales = _output_sizes(x.shape[2:], size, scale_factor, recompute_scale_factor)
    if mode == "area":
        pool = {1: adaptive_avg_pool1d, 2: adaptive_avg_pool2d}.get(spatial)
        if pool is None:
            raise NotImplementedError("interpolate: mode 'area' supports 3-d and 4-d inputs")
        return pool(x, sizes if spatial > 1 else sizes[0])
    integer = None if x.is_floating_point() or mode.startswith("nearest") else x.dtype
    if integer is not None:
        x = x.float()
    for k, (n_in, n_out, scale) in enumerate(zip(x.shape[2:], sizes, scales)):
        axis = 2 + k
        if mode.startswith("nearest"):
            x = index_select(x, axis, _nearest_index(n_in, n_out, scale, mode == "nearest"))
            continue
        if antialias:
            taps = _antialias_taps(n_in, n_out, scale, bool(align_corners), mode == "bicubic")
        else:
            taps = (_cubic_taps if mode == "bicubic" else _linear_taps)(
                n_in, n_out, scale, bool(align_corners))
        trailing = (1,) * (x.ndim - axis - 1)
        terms = [index_select(x, axis, index) * _const(weight.reshape((n_out,) + trailing), x)
                 for index, weight in taps]
        x = sum(terms[1:], terms[0])
    if integer is not None:
        info = np.iinfo(integer.np)
        x = x.round().clamp(info.min, info.max).to(integer)
    return x


def _output_sizes(shape, size, scale_factor, recompute):
    """The output sizes and the scales (input over output) the source coordinates use."""
    n = len(shape)
    if (size is None) == (scale_factor is None):
        raise ValueError("interpolate: give exactly one of size and scale_factor")
    if size is not None:
        sizes = tuple(int(s) for s in (size if isinstance(size, (tuple, list)) else [size] * n))
        if len(sizes) != n:
            raise ValueError(f"interpolate: size {list(sizes)} for {n} spatial dimensions")
        return sizes, tuple(i / o for i, o in zip(shape, sizes))
    factors = tuple(float(f) for f in (scale_factor if isinstance(scale_factor, (tuple, list))
                                       else [scale_factor] * n))
    if len(factors) != n:
        raise ValueError(f"interpolate: scale_factor {list(factors)} for {n} spatial dimensions")
    sizes = tuple(int(np.floor(i * f)) for i, f in zip(shape, factors))
    if recompute:
        return sizes, tuple(i / o for i, o in zip(shape, sizes))
    return sizes, tuple(1 / f for f in factors)


def _nearest_index(n_in, n_out, scale, legacy):
    # PyTorch computes these in float32: floor(i * scale), or floor((i + 0.5) * scale) for
    # 'nearest-exact'
    i = np.arange(n_out, dtype=np.float32)
    src = np.floor(i * np.float32(scale) if legacy else (i + np.float32(0.5)) * np.float32(scale))
    return np.minimum(src.astype(np.int64), n_in - 1)


def _linear_taps(n_in, n_out, scale, align_corners):
    """For each output entry: the two input entries it lies between, each with its weight."""
    i = np.arange(n_out, dtype=np.float64)
    if align_corners:
        src = i * ((n_in - 1) / (n_out - 1) if n_out > 1 else 0.0)
    else:
        src = np.maximum(scale * (i + 0.5) - 0.5, 0.0)
    low = np.minimum(np.floor(src).astype(np.int64), n_in - 1)
    high = np.minimum(low + 1, n_in - 1)
    t = src - low
    return [(low, 1 - t), (high, t)]


def _cubic_taps(n_in, n_out, scale, align_corners, a=-0.75):
    """For each output entry: the four input entries around it (clamped to the edges), each
    with its weight from Keys' cubic convolution kernel (PyTorch's a = -0.75)."""
    i = np.arange(n_out, dtype=np.float64)
    if align_corners:
        src = i * ((n_in - 1) / (n_out - 1) if n_out > 1 else 0.0)
    else:
        src = scale * (i + 0.5) - 0.5  # (not clamped at 0, unlike the linear modes)
    start = np.floor(src)
    t = src - start

    def near(d):  # the kernel at distance d <= 1
        return ((a + 2) * d - (a + 3)) * d * d + 1

    def far(d):  # the kernel at distance 1 < d < 2
        return ((a * d - 5 * a) * d + 8 * a) * d - 4 * a
    weights = [far(t + 1), near(t), near(1 - t), far(2 - t)]
    return [(np.clip(start.astype(np.int64) + offset, 0, n_in - 1), w)
            for offset, w in zip((-1, 0, 1, 2), weights)]


def _antialias_taps(n_in, n_out, scale, align_corners, cubic):
    """PyTorch's antialiased taps (its separable _upsample_*_aa kernels, as PIL's): each output
    entry averages the input entries within the filter's support around its center, the
    filter (a triangle, or Keys' cubic kernel with a = -0.5) stretched by the scale when
    downsampling, the weights normalised to sum to 1."""
    if align_corners:
        scale = (n_in - 1) / (n_out - 1) if n_out > 1 else 0.0
    support = (2.0 if cubic else 1.0) * max(scale, 1.0)
    width = int(np.ceil(support)) * 2 + 1
    inv_scale = 1.0 / scale if scale >= 1.0 else 1.0
    center = scale * (np.arange(n_out, dtype=np.float64) + 0.5)
    low = np.maximum((center - support + 0.5).astype(np.int64), 0)
    count = np.clip(np.minimum((center + support + 0.5).astype(np.int64), n_in) - low, 0, width)
    offsets = np.arange(width)
    d = np.abs((low[:, None] + offsets - center[:, None] + 0.5) * inv_scale)
    if cubic:
        a = -0.5
        w = np.where(d < 1, ((a + 2) * d - (a + 3)) * d * d + 1,
                     np.where(d < 2, ((a * d - 5 * a) * d + 8 * a) * d - 4 * a, 0.0))
    else:
        w = np.maximum(1 - d, 0.0)
    w = np.where(offsets < count[:, None], w, 0.0)
    total = w.sum(1, keepdims=True)
    w = np.divide(w, total, out=np.zeros_like(w), where=total != 0)
    index = np.minimum(low[:, None] + offsets, n_in - 1)
    return [(index[:, j], w[:, j]) for j in range(width) if w[:, j].any()]


# --- attention ------------------------------------------------------------------------------
def scaled_dot_product_attention(query, key, value, attn_mask=None, dropout_p=0.0,
                                 is_causal=False, scale=None, enable_gqa=False):
    """softmax(query @ key^T * scale + mask) @ value over the last two dimensions, as
    PyTorch's: query [..., L, E], key [..., S, E], value [..., S, Ev]; `scale` defaults to
    1/sqrt(E). `attn_mask`: bool (True takes part) or float (added), broadcast to [..., L, S];
    `is_causal`: each query attends to the keys up to its own position; `dropout_p` drops
    attention weights (always, as PyTorch: pass 0.0 when evaluating); `enable_gqa`: key and
    value may have fewer heads (dimension -3), each shared by a group of query heads."""
    q, k, v = _tensor(query), _tensor(key), _tensor(value)
    if q.ndim < 2 or k.ndim < 2 or v.ndim < 2 or q.shape[-1] != k.shape[-1] or (
            k.shape[-2] != v.shape[-2]):
        raise ShapeError(f"scaled_dot_product_attention: expected query [..., L, E], key "
                         f"[..., S, E] and value [..., S, Ev], got {list(q.shape)}, "
                         f"{list(k.shape)} and {list(v.shape)}")
    if enable_gqa and q.ndim >= 3 and k.shape[-3] != q.shape[-3]:
        if q.shape[-3] % k.shape[-3]:
            raise ShapeError(f"scaled_dot_product_attention: {q.shape[-3]} query heads can't be "
                             f"shared among {k.shape[-3]} key/value heads")
        group = q.shape[-3] // k.shape[-3]
        k, v = k.repeat_interleave(group, -3), v.repeat_interleave(group, -3)
    scale = 1 / math.sqrt(q.shape[-1]) if scale is None else scale
    scores = _ops.matmul(q, k.mT) * scale
    if attn_mask is not None:
        scores = scores + _additive_mask(_tensor(attn_mask), scores, masked_when=False)
    if is_causal:  # (on top of attn_mask, when both are given, as PyTorch)
        causal = np.tril(np.ones((q.shape[-2], k.shape[-2]), dtype=bool))
        scores = scores + _additive_mask(Tensor(causal), scores, masked_when=False)
    weights = softmax(scores, -1)
    if dropout_p:
        weights = dropout(weights, dropout_p)
    return _ops.matmul(weights, v)


def _additive_mask(mask, like, masked_when):
    """A float mask to add to attention scores: -inf where a bool mask equals `masked_when`,
    0 elsewhere; a float mask as it is."""
    if mask._data.dtype == np.bool_:
        return _const(np.where(mask._data == masked_when, -np.inf, 0.0), like)
    return mask.to(like.dtype)


from .functional_extra import *  # noqa: E402,F401,F403  (composites built on the above)
from . import functional_extra as _extra  # noqa: E402

__all__ += _extra.__all__


def _takes_input_keyword(fn):
    parameters = list(inspect.signature(fn).parameters)
    return bool(parameters) and parameters[0] == "input"


# PyTorch's keyword `input=` also where fluxgrad names the first argument otherwise (F.relu(x))
for _name in __all__:
    _fn = globals()[_name]
    if callable(_fn) and not isinstance(_fn, type) and not _takes_input_keyword(_fn):
        globals()[_name] = accepting_torch_keywords(_fn, _name, ("input",))

from .paddle_losses import softmax_with_cross_entropy, square_error_cost  # noqa: E402
__all__ += ["softmax_with_cross_entropy", "square_error_cost"]
