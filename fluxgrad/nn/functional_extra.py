"""More of `torch.nn.functional`: feature and alpha dropout, instance and RMS normalisation,
pixel and channel shuffles, im2col (`unfold` / `fold`), adaptive max, 3-d max and power
pooling, distances, and the margin / ranking / likelihood losses.

Every function is composed of fluxgrad ops, so it differentiates to any order and works
under forward mode, vmap and the static mode. NumPy only builds constant index tables
(window positions, bag membership) from shapes and integer targets. Random functions draw
through fluxgrad's random ops. Re-exported by `nn.functional`.
"""
import math
import warnings

import numpy as np

from .. import ops as _ops
from .._core import dtypes
from .._core.errors import ArgumentError, IndexOutOfRange, ShapeError, refuse_python_value
from .._core.grad_mode import no_grad
from .._core.tensor import Tensor
from ..creation import _float_range, full, rand, zeros
from ..ops.conv import _pooled_size, adaptive_sizes
from ..ops.inplace import apply_inplace
from . import functional as F

__all__ = ["dropout1d", "dropout2d", "dropout3d", "alpha_dropout", "feature_alpha_dropout",
           "instance_norm", "rms_norm", "local_response_norm", "pixel_shuffle",
           "pixel_unshuffle", "channel_shuffle", "glu", "threshold", "rrelu", "unfold", "fold",
           "pairwise_distance", "pdist", "adaptive_max_pool1d", "adaptive_max_pool2d",
           "adaptive_max_pool3d", "adaptive_max_pool3d_with_indices", "linear_cross_entropy",
           "adaptive_avg_pool3d", "max_pool3d", "lp_pool1d", "lp_pool2d", "gumbel_softmax",
           "upsample", "upsample_nearest", "upsample_bilinear", "affine_grid", "grid_sample",
           "triplet_margin_loss", "triplet_margin_with_distance_loss", "margin_ranking_loss",
           "hinge_embedding_loss",
           "poisson_nll_loss", "gaussian_nll_loss", "multilabel_soft_margin_loss",
           "soft_margin_loss", "cosine_embedding_loss", "multi_margin_loss",
           "multilabel_margin_loss", "embedding_bag", "ctc_loss", "hardshrink", "softshrink",
           "prelu", "relu_", "elu_", "leaky_relu_", "selu_", "celu_", "hardtanh_", "threshold_",
           "rrelu_", "max_pool1d_with_indices", "max_pool2d_with_indices",
           "max_pool3d_with_indices", "adaptive_max_pool1d_with_indices",
           "adaptive_max_pool2d_with_indices", "max_unpool1d", "max_unpool3d", "lp_pool3d",
           "triplet_margin_with_distance_loss"]

_tensor = F._tensor


def _index(array):
    return Tensor(np.asarray(array, np.int64))


# --- dropout --------------------------------------------------------------------------------
def _check_p(p, op):
    if not 0 <= p <= 1:
        raise ValueError(f"{op}: dropout probability has to be between 0 and 1, but got {p}")


def _keep_mask(shape, p, dtype):
    """1 with probability 1 - p, else 0, in `dtype` (drawn with fluxgrad.rand)."""
    return _ops.cast(_ops.greater_equal(rand(shape, dtype=dtypes.float64), p), dtype)


def _channel_dropout(x, p, training):
    """Dropout with one mask entry per (axis 0, axis 1) pair: whole channels of [N, C, ...]."""
    if not training or p == 0:
        return x
    if p == 1:
        return x * 0.0
    shape = tuple(x.shape[:2]) + (1,) * (x.ndim - 2)
    return x * _keep_mask(shape, p, x.dtype) * (1.0 / (1.0 - p))


def dropout1d(input, p=0.5, training=True, inplace=False):
    """Zero whole channels of [N, C, L] (or [C, L]) with probability p, the rest scaled by
    1/(1-p)."""
    _check_p(p, "dropout1d")
    x = _tensor(input)
    if x.ndim not in (2, 3):
        raise RuntimeError(f"dropout1d: Expected 2D or 3D input, but received a {x.ndim}D input "
                           f"of shape {list(x.shape)}. Note that dropout1d exists to provide "
                           "channel-wise dropout on inputs with 1 spatial dimension, a channel "
                           "dimension, and an optional batch dimension (i.e. 2D or 3D inputs).")
    if x.ndim == 2:
        return _ops.squeeze(_channel_dropout(_ops.unsqueeze(x, 0), p, training), 0)
    return _channel_dropout(x, p, training)


def dropout2d(input, p=0.5, training=True, inplace=False):
    """Zero whole channels of [N, C, H, W] with probability p (a 3-d input is read as
    [N, C, L], as PyTorch, with its warning)."""
    _check_p(p, "dropout2d")
    x = _tensor(input)
    if x.ndim == 3:
        warnings.warn("dropout2d: Received a 3D input to dropout2d and assuming that channel-wise "
                      "1D dropout behavior is desired - input is interpreted as shape (N, C, L), "
                      "where C is the channel dim. To maintain the 1D channel-wise dropout "
                      "behavior, please switch to using dropout1d instead.", UserWarning,
                      stacklevel=2)
    elif x.ndim != 4:
        warnings.warn(f"dropout2d: Received a {x.ndim}-D input to dropout2d, which is deprecated "
                      "and will result in an error in a future release. dropout2d expects 3D "
                      "or 4D inputs.", UserWarning, stacklevel=2)
    return _channel_dropout(x, p, training)


def dropout3d(input, p=0.5, training=True, inplace=False):
    """Zero whole channels of [N, C, D, H, W] (or [C, D, H, W]) with probability p."""
    _check_p(p, "dropout3d")
    x = _tensor(input)
    if x.ndim not in (4, 5):
        warnings.warn(f"dropout3d: Received a {x.ndim}-D input to dropout3d, which is "
                      "deprecated and will result in an error in a future release. dropout3d "
                      "expects 4D or 5D inputs.", UserWarning, stacklevel=2)
    if x.ndim != 5:
        return _ops.squeeze(_channel_dropout(_ops.unsqueeze(x, 0), p, training), 0)
    return _channel_dropout(x, p, training)


_SELU_ALPHA_SCALE = 1.7580993408473766  # SELU's scale * alpha: the value it saturates at


def _alpha_dropout(input, p, training, mask_shape, op):
    _check_p(p, op)
    x = _tensor(input)
    if not training or p == 0 or x.numel() == 0:
        return x
    if p == 1:
        return x * 0.0
    a = 1.0 / math.sqrt((_SELU_ALPHA_SCALE ** 2 * p + 1) * (1 - p))
    keep = _keep_mask(mask_shape(x), p, x.dtype)
    # dropped entries become SELU's negative saturation value; a and b restore mean and variance
    return x * keep * a + (keep - 1) * (_SELU_ALPHA_SCALE * a) + _SELU_ALPHA_SCALE * a * p


def alpha_dropout(input, p=0.5, training=False, inplace=False):
    """Dropout for SELU networks: keeps zero mean and unit variance (PyTorch's default
    training=False here)."""
    return _alpha_dropout(input, p, training, lambda x: x.shape, "alpha_dropout")


def feature_alpha_dropout(input, p=0.5, training=False, inplace=False):
    """Alpha dropout of whole channels (every axis after the first two shares a mask)."""
    return _alpha_dropout(input, p, training,
                          lambda x: tuple(x.shape[:2]) + (1,) * (x.ndim - 2),
                          "feature_alpha_dropout")


# --- normalisation --------------------------------------------------------------------------
def instance_norm(input, running_mean=None, running_var=None, weight=None, bias=None,
                  use_input_stats=True, momentum=0.1, eps=1e-5):
    """Normalise each channel of each example over its spatial axes ([N, C, ...]). With
    running statistics and `use_input_stats`, they are updated (in place) with the batch's
    average per-instance mean and unbiased variance; without `use_input_stats` they are used."""
    x = _tensor(input)
    if x.ndim < 3:
        raise ValueError(f"instance_norm: expected an input [N, C, ...] of at least 3 "
                         f"dimensions, got shape {list(x.shape)}")
    shape = (1, x.shape[1]) + (1,) * (x.ndim - 2)
    axes = tuple(range(2, x.ndim))
    if use_input_stats:
        count = int(np.prod(x.shape[2:]))
        if count <= 1:
            raise ValueError(f"instance_norm: expected more than 1 spatial element when "
                             f"training, got input size {list(x.shape)}")
        centered, var = F._norm_stats(x, axes)
        if running_mean is not None:
            with no_grad():
                mean = _ops.mean(_ops.mean(x, axis=axes), axis=0)
                unbiased = _ops.mean(_ops.reshape(var, x.shape[:2]), axis=0) * (
                    count / (count - 1))
                F.update_running(running_mean, running_mean * (1 - momentum) + momentum * mean,
                                 x)
                F.update_running(running_var,
                                 running_var * (1 - momentum) + momentum * unbiased, x)
        y = centered / _ops.sqrt(var + eps)
    else:
        y = ((x - _ops.reshape(running_mean, shape))
             / _ops.sqrt(_ops.reshape(running_var, shape) + eps))
    if weight is not None:
        y = y * _ops.reshape(weight, shape)
    if bias is not None:
        y = y + _ops.reshape(bias, shape)
    return y


def rms_norm(input, normalized_shape, weight=None, eps=None):
    """`x / sqrt(mean(x^2) + eps) * weight` over the trailing `normalized_shape` axes; eps
    defaults to the machine epsilon of the input's dtype."""
    x = _tensor(input)
    if isinstance(normalized_shape, (int, np.integer)):
        normalized_shape = (int(normalized_shape),)
    n = len(normalized_shape)
    if n == 0:
        raise ShapeError("rms_norm: normalized_shape must name at least one dimension, got ()")
    if tuple(x.shape[x.ndim - n:]) != tuple(normalized_shape):
        raise RuntimeError(f"rms_norm: the input's trailing dimensions "
                           f"{list(x.shape[x.ndim - n:])} don't match normalized_shape "
                           f"{list(normalized_shape)}; input shape {list(x.shape)}")
    if eps is None:
        eps = float(np.finfo(x._data.dtype).eps)
    ms = _ops.mean(x * x, axis=tuple(range(x.ndim - n, x.ndim)), keepdims=True)
    y = x / _ops.sqrt(ms + eps)
    return y if weight is None else y * weight


def local_response_norm(input, size, alpha=1e-4, beta=0.75, k=1.0):
    """`x / (k + alpha * mean of x^2 over `size` neighbouring channels)^beta` ([N, C, ...])."""
    x = _tensor(input)
    if x.ndim < 3:
        raise ValueError(f"local_response_norm: expected 3D or higher dimensionality input "
                         f"(got {x.ndim} dimensions)")
    if x.numel() == 0:
        return x
    channels = x.shape[1]
    sq = _ops.moveaxis(x * x, 1, -1)
    padded = F.pad(sq, (size // 2, (size - 1) // 2))
    total = sum(padded[..., j:j + channels] for j in range(size))
    div = _ops.moveaxis(total, -1, 1) * (alpha / size) + k
    return x / div ** beta


# --- shuffles -------------------------------------------------------------------------------
def pixel_shuffle(input, upscale_factor):
    """[*, C r^2, H, W] -> [*, C, H r, W r]."""
    x, r = _tensor(input), int(upscale_factor)
    if x.ndim < 3 or r <= 0 or x.shape[-3] % (r * r):
        raise RuntimeError(f"pixel_shuffle: expected an input [*, C*r^2, H, W] with its "
                           f"channels divisible by upscale_factor^2 = {r * r}, got shape "
                           f"{list(x.shape)}")
    *batch, c, h, w = x.shape
    n = len(batch)
    y = _ops.reshape(x, (*batch, c // (r * r), r, r, h, w))
    y = _ops.permute(y, (*range(n), n, n + 3, n + 1, n + 4, n + 2))
    return _ops.reshape(y, (*batch, c // (r * r), h * r, w * r))


def pixel_unshuffle(input, downscale_factor):
    """[*, C, H r, W r] -> [*, C r^2, H, W]."""
    x, r = _tensor(input), int(downscale_factor)
    if x.ndim < 3 or r <= 0 or x.shape[-1] % r or x.shape[-2] % r:
        raise RuntimeError(f"pixel_unshuffle: expected an input [*, C, H, W] with H and W "
                           f"divisible by downscale_factor {r}, got shape {list(x.shape)}")
    *batch, c, h, w = x.shape
    n = len(batch)
    y = _ops.reshape(x, (*batch, c, h // r, r, w // r, r))
    y = _ops.permute(y, (*range(n), n, n + 2, n + 4, n + 1, n + 3))
    return _ops.reshape(y, (*batch, c * r * r, h // r, w // r))


def channel_shuffle(input, groups):
    """[N, C, *] with C = g k: channel (i, j) of the [g, k] grouping moves to (j, i)."""
    x, g = _tensor(input), int(groups)
    if x.ndim < 3:
        raise RuntimeError(f"channel_shuffle: expected an input [N, C, *] of at least 3 "
                           f"dimensions, got shape {list(x.shape)}")
    if g <= 0 or x.shape[1] % g:
        raise RuntimeError(f"channel_shuffle: number of channels ({x.shape[1]}) must be "
                           f"divisible by groups ({g})")
    n, c = x.shape[:2]
    rest = tuple(x.shape[2:])
    y = _ops.transpose(_ops.reshape(x, (n, g, c // g) + rest), 1, 2)
    return _ops.reshape(y, x.shape)


# --- activations ----------------------------------------------------------------------------
def glu(input, dim=-1):
    """The first half of `input` along `dim` times the sigmoid of the second half."""
    x = _tensor(input)
    if x.ndim == 0 or x.shape[dim] % 2:
        raise RuntimeError(f"glu: Halving dimension must be even, but dimension {dim} of shape "
                           f"{list(x.shape)} is not")
    a, b = _ops.chunk(x, 2, dim)
    return a * _ops.sigmoid(b)


def threshold(input, threshold, value, inplace=False):
    """`input` where it is greater than `threshold`, else `value`."""
    def thresholded(v):
        return _ops.where(_ops.greater(v, threshold), v, F._const(value, v))
    x = _tensor(input)
    return apply_inplace(x, thresholded) if inplace else thresholded(x)


def hardshrink(input, lambd=0.5):
    """`input` where |input| > lambd, else 0."""
    refuse_python_value(input, "hardshrink")
    x = _tensor(input)
    return _ops.where(_ops.greater(_ops.abs(x), lambd), x, F._const(0.0, x))


def softshrink(input, lambd=0.5):
    """`input` moved towards 0 by lambd, and 0 within lambd of it."""
    x = _tensor(input)
    if lambd < 0:
        raise ArgumentError(f"softshrink: lambd must be non-negative, got {lambd}")
    zero = F._const(0.0, x)
    return _ops.where(_ops.greater(x, lambd), x - lambd,
                      _ops.where(_ops.less(x, -lambd), x + lambd, zero))


def prelu(input, weight):
    """max(0, x) + weight * min(0, x), one weight or one per channel (dimension 1)."""
    x = _tensor(input)
    if weight.ndim > 1:
        raise ShapeError(f"prelu: weight must be a scalar or 1-d tensor, got shape "
                         f"{list(weight.shape)}")
    if weight.numel() > 1:
        if x.ndim < 2 or x.shape[1] != weight.numel():
            raise ShapeError(f"prelu: {weight.numel()} weights need an input with as many "
                             f"channels in dimension 1, got shape {list(x.shape)}")
        weight = _ops.reshape(weight, (1, -1) + (1,) * (x.ndim - 2))
    else:
        weight = _ops.reshape(weight, ())  # (a 0-d input stays 0-d)
    return _ops.maximum(x, 0.0) + weight * _ops.minimum(x, 0.0)


def _inplace_variant(name, fn):
    def variant(input, *args, **kwargs):
        return fn(input, *args, inplace=True, **kwargs)
    variant.__name__ = name
    variant.__doc__ = f"{fn.__name__}(input, ..., inplace=True)."
    return variant


relu_ = _inplace_variant("relu_", F.relu)
elu_ = _inplace_variant("elu_", F.elu)
leaky_relu_ = _inplace_variant("leaky_relu_", F.leaky_relu)
selu_ = _inplace_variant("selu_", F.selu)
celu_ = _inplace_variant("celu_", F.celu)
hardtanh_ = _inplace_variant("hardtanh_", F.hardtanh)
threshold_ = _inplace_variant("threshold_", threshold)


def rrelu(input, lower=1.0 / 8, upper=1.0 / 3, training=False, inplace=False):
    """Leaky ReLU whose negative slope is drawn uniformly from [lower, upper] per element in
    training, and is (lower + upper) / 2 in evaluation."""
    refuse_python_value(input, "rrelu")
    x = _tensor(input)
    if lower > upper:
        raise ArgumentError(f"rrelu: the lower bound {lower} must be at most the upper bound "
                            f"{upper}")
    if not training:
        return F.leaky_relu(x, (lower + upper) / 2, inplace)
    slope = rand(x.shape, dtype=x.dtype) * (upper - lower) + lower

    def leaky(v):
        return _ops.where(_ops.greater_equal(v, 0), v, v * slope)
    return apply_inplace(x, leaky) if inplace else leaky(x)


rrelu_ = _inplace_variant("rrelu_", rrelu)


# --- im2col ---------------------------------------------------------------------------------
def _pair(value, name, op):
    pair = (int(value),) * 2 if isinstance(value, (int, np.integer)) else tuple(map(int, value))
    if len(pair) != 2:
        raise ValueError(f"{op}: {name} must be an int or a pair, got {value!r}")
    return pair


def _window_table(size, kernel, dilation, padding, stride, op):
    """For an image padded to `size + 2 padding`: the flat index of every (kernel offset,
    block) pair, in im2col order [kh kw, L], and the number of blocks per axis."""
    padded = [s + 2 * p for s, p in zip(size, padding)]
    blocks = [(n - d * (k - 1) - 1) // s + 1 for n, k, d, s in zip(padded, kernel, dilation,
                                                                    stride)]
    if min(blocks) <= 0:
        raise RuntimeError(f"{op}: the kernel {list(kernel)} with dilation {list(dilation)} "
                           f"doesn't fit the padded spatial size {padded}")
    ki, kj = np.meshgrid(np.arange(kernel[0]), np.arange(kernel[1]), indexing="ij")
    bi, bj = np.meshgrid(np.arange(blocks[0]), np.arange(blocks[1]), indexing="ij")
    rows = ki.reshape(-1, 1) * dilation[0] + bi.reshape(1, -1) * stride[0]
    cols = kj.reshape(-1, 1) * dilation[1] + bj.reshape(1, -1) * stride[1]
    return (rows * padded[1] + cols).reshape(-1), padded, blocks


def unfold(input, kernel_size, dilation=1, padding=0, stride=1):
    """im2col: [N, C, H, W] -> [N, C kh kw, L], the sliding kh x kw blocks as columns."""
    op = "unfold"
    x = _tensor(input)
    if x.ndim < 3:
        raise IndexError(f"{op}: expected a 3D or 4D input [N, C, H, W], got shape "
                         f"{list(x.shape)}")
    if x.ndim > 4:
        raise NotImplementedError(f"{op}: Input Error: Only 3D or 4D input Tensors are "
                                  f"supported (got {x.ndim}D)")
    unbatched = x.ndim == 3
    if unbatched:
        x = _ops.unsqueeze(x, 0)
    kernel, dilation = _pair(kernel_size, "kernel_size", op), _pair(dilation, "dilation", op)
    padding, stride = _pair(padding, "padding", op), _pair(stride, "stride", op)
    table, padded, blocks = _window_table(x.shape[2:], kernel, dilation, padding, stride, op)
    n, c = x.shape[:2]
    xp = F.pad(x, (padding[1], padding[1], padding[0], padding[0]))
    cols = _ops.index_select(_ops.reshape(xp, (n, c, padded[0] * padded[1])), 2, _index(table))
    y = _ops.reshape(cols, (n, c * kernel[0] * kernel[1], blocks[0] * blocks[1]))
    return _ops.squeeze(y, 0) if unbatched else y


def fold(input, output_size, kernel_size, dilation=1, padding=0, stride=1):
    """col2im: [N, C kh kw, L] -> [N, C, H, W], summing the blocks where they overlap (the
    adjoint of `unfold`)."""
    op = "fold"
    x = _tensor(input)
    if x.ndim not in (2, 3):
        raise NotImplementedError(f"{op}: Input Error: Only unbatched (2D) or batched (3D) "
                                  f"input Tensors are supported (got {x.ndim}D)")
    unbatched = x.ndim == 2
    if unbatched:
        x = _ops.unsqueeze(x, 0)
    size = _pair(output_size, "output_size", op)
    kernel, dilation = _pair(kernel_size, "kernel_size", op), _pair(dilation, "dilation", op)
    padding, stride = _pair(padding, "padding", op), _pair(stride, "stride", op)
    table, padded, blocks = _window_table(size, kernel, dilation, padding, stride, op)
    n, ckk, length = x.shape
    kk = kernel[0] * kernel[1]
    if ckk % kk:
        raise RuntimeError(f"{op}: Expected size of input's dimension 1 to be divisible by the "
                           f"product of kernel_size, but got input.size(1)={ckk} and "
                           f"kernel_size={kernel}")
    if length != blocks[0] * blocks[1]:
        raise RuntimeError(f"{op}: Given output_size={size}, kernel_size={kernel}, dilation="
                           f"{dilation}, padding={padding}, stride={stride}, expected size of "
                           f"input's dimension 2 to match the calculated number of sliding "
                           f"blocks {blocks[0]} * {blocks[1]} = {blocks[0] * blocks[1]}, but got "
                           f"input.size(2)={length}.")
    c = ckk // kk
    cols = _ops.reshape(x, (n, c, kk * length))
    out = zeros((n, c, padded[0] * padded[1]), dtype=x.dtype).index_add(2, _index(table),
                                                                             cols)
    out = _ops.reshape(out, (n, c, padded[0], padded[1]))
    out = out[:, :, padding[0]:padded[0] - padding[0], padding[1]:padded[1] - padding[1]]
    return _ops.squeeze(out, 0) if unbatched else out


# --- distances ------------------------------------------------------------------------------
def pairwise_distance(x1, x2, p=2.0, eps=1e-6, keepdim=False):
    """`||x1 - x2 + eps||_p` along the last dimension."""
    a, b = _tensor(x1), _tensor(x2)
    return _ops.norm(a - b + eps, p, -1, keepdim=keepdim)


def pdist(input, p=2):
    """The p-norm distances between the rows of `input` [N, M] (`fluxgrad.pdist`)."""
    return _ops.pdist(_tensor(input), p)


# --- pooling --------------------------------------------------------------------------------
def _adaptive_bounds(n_in, n_out):
    starts = (np.arange(n_out) * n_in) // n_out
    ends = -((-(np.arange(n_out) + 1) * n_in) // n_out)
    return starts, ends


def _max_over_windows(x, table, spatial, out_shape, return_indices):
    """Max of x [N, C, *spatial] over windows: table [L, K] holds the flat spatial index
    of each window's entries (an index < 0 is padding, never picked); the first maximum
    (the last NaN) gets the gradient, as PyTorch."""
    n, c = x.shape[:2]
    pad_neg = (table < 0).any()
    flat = _ops.reshape(x, (n, c, -1))
    if pad_neg:
        fill = full((n, c, 1), -math.inf, dtype=x.dtype)
        flat = _ops.concat([flat, fill], 2)
        table = np.where(table < 0, flat.shape[2] - 1, table)
    windows = _ops.reshape(_ops.index_select(flat, 2, _index(table.reshape(-1))),
                           (n, c) + table.shape)
    with no_grad():
        pick = _ops.argmax(windows.detach(), -1, keepdim=True)
        if windows.dtype.is_floating_point:  # torch's kernel: a NaN is the max, the last wins
            nan = _ops.isnan(windows.detach())
            last = (table.shape[1] - 1) - _ops.argmax(_ops.cast(_ops.flip(nan, [-1]), dtypes.int8),
                                                     -1, keepdim=True)
            pick = _ops.where(_ops.any(nan, -1, keepdim=True), last, pick)
    out = _ops.reshape(_ops.take_along_dim(windows, pick, -1), (n, c) + tuple(out_shape))
    if not return_indices:
        return out
    where = _ops.take_along_dim(_ops.broadcast_to(_index(table), (n, c) + table.shape), pick, -1)
    return out, _ops.reshape(where, (n, c) + tuple(out_shape))


def _adaptive_table(shape, out):
    """Windows of adaptive pooling over `shape`: [prod(out), K] flat indices, -1 padded."""
    bounds = [_adaptive_bounds(n, o) for n, o in zip(shape, out)]
    cells = []
    for cell in np.ndindex(*out):
        ranges = [np.arange(b[0][i], b[1][i]) for b, i in zip(bounds, cell)]
        grid = np.meshgrid(*ranges, indexing="ij")
        cells.append(np.ravel_multi_index(tuple(g.reshape(-1) for g in grid), shape))
    width = max(len(w) for w in cells)
    return np.stack([np.pad(w, (0, width - len(w)), constant_values=-1) for w in cells])


def _adaptive_max(input, output_size, return_indices, spatial, op):
    x = _tensor(input)
    if x.ndim not in (spatial + 1, spatial + 2):
        raise ShapeError(f"{op}: Expected {spatial + 1}D or {spatial + 2}D tensor, but got "
                         f"shape {list(x.shape)}")
    unbatched = x.ndim == spatial + 1
    if unbatched:
        x = _ops.unsqueeze(x, 0)
    sizes = adaptive_sizes(output_size, spatial, op)
    out = tuple(x.shape[2 + a] if s is None else int(s) for a, s in enumerate(sizes))
    table = _adaptive_table(tuple(x.shape[2:]), out)
    result = _max_over_windows(x, table, spatial, out, return_indices)
    if unbatched:
        return tuple(_ops.squeeze(r, 0) for r in result) if return_indices \
            else _ops.squeeze(result, 0)
    return result


def adaptive_max_pool1d(input, output_size, return_indices=False):
    """Max over [N, C, L] (or [C, L]) split into `output_size` nearly equal windows."""
    return _adaptive_max(input, output_size, return_indices, 1, "adaptive_max_pool1d")


def adaptive_max_pool2d(input, output_size, return_indices=False):
    """Max over [N, C, H, W] (or [C, H, W]) split into an `output_size` grid of windows."""
    return _adaptive_max(input, output_size, return_indices, 2, "adaptive_max_pool2d")


def adaptive_max_pool3d(input, output_size, return_indices=False):
    """Max over [N, C, D, H, W] (or [C, D, H, W]) split into an `output_size` grid of windows."""
    return _adaptive_max(input, output_size, return_indices, 3, "adaptive_max_pool3d")


def _averaging_matrix(n_in, n_out, like):
    starts, ends = _adaptive_bounds(n_in, n_out)
    m = np.zeros((n_out, n_in))
    for o, (s, e) in enumerate(zip(starts, ends)):
        m[o, s:e] = 1.0 / (e - s)
    return F._const(m, like)


def adaptive_avg_pool3d(input, output_size):
    """Average pooling of [N, C, D, H, W] (or [C, D, H, W]) to a fixed [oD, oH, oW]."""
    x = _tensor(input)
    if x.ndim not in (4, 5):
        raise ShapeError(f"adaptive_avg_pool3d: Expected 4D or 5D tensor, but got shape "
                         f"{list(x.shape)}")
    sizes = adaptive_sizes(output_size, 3, "adaptive_avg_pool3d")
    spatial = x.shape[-3:]
    out = tuple(n if s is None else int(s) for n, s in zip(spatial, sizes))
    md, mh, mw = (_averaging_matrix(n, o, x) for n, o in zip(spatial, out))
    return _ops.einsum("...dhw,ad,bh,cw->...abc", x, md, mh, mw)


def _triple(value, name, op):
    t = (int(value),) * 3 if isinstance(value, (int, np.integer)) else tuple(map(int, value))
    if len(t) != 3:
        raise ValueError(f"{op}: {name} must be an int or a triple, got {value!r}")
    return t


def max_pool3d(input, kernel_size, stride=None, padding=0, dilation=1, ceil_mode=False,
               return_indices=False):
    """Maximum over kD x kH x kW windows of [N, C, D, H, W] (or [C, D, H, W]); padding counts
    as -inf; indices are flat into D x H x W, as PyTorch."""
    op = "max_pool3d"
    x = _tensor(input)
    if x.ndim not in (4, 5):
        raise RuntimeError(f"{op}: Expected 4D or 5D tensor, but got shape {list(x.shape)}")
    unbatched = x.ndim == 4
    if unbatched:
        x = _ops.unsqueeze(x, 0)
    kernel = _triple(kernel_size, "kernel_size", op)
    stride = kernel if stride is None or (isinstance(stride, (list, tuple)) and not stride) \
        else _triple(stride, "stride", op)
    padding, dilation = _triple(padding, "padding", op), _triple(dilation, "dilation", op)
    if any(2 * p > k for p, k in zip(padding, kernel)):
        raise RuntimeError(f"{op}: pad should be at most half of effective kernel size, but got "
                           f"pad={list(padding)} and kernel_size={list(kernel)}")
    shape = tuple(x.shape[2:])
    out = tuple(_pooled_size(n, k, s, p, d, ceil_mode)
                for n, k, s, p, d in zip(shape, kernel, stride, padding, dilation))
    if min(out) <= 0:
        raise RuntimeError(f"{op}: output size {list(out)} is too small for input "
                           f"{list(x.shape)}")
    axes = []
    for n, k, s, p, d, o in zip(shape, kernel, stride, padding, dilation, out):
        pos = np.arange(o)[:, None] * s - p + np.arange(k)[None, :] * d  # [o, k]
        axes.append(pos)
    pd, ph, pw = axes
    pos = (pd[:, None, None, :, None, None], ph[None, :, None, None, :, None],
           pw[None, None, :, None, None, :])
    inside = np.ones(out + kernel, bool)
    for a, n in zip(pos, shape):
        inside &= (a >= 0) & (a < n)
    flat = (pos[0] * shape[1] + pos[1]) * shape[2] + pos[2]
    table = np.where(inside, flat, -1).reshape(int(np.prod(out)), -1)
    result = _max_over_windows(x, table, 3, out, return_indices)
    if unbatched:
        return tuple(_ops.squeeze(r, 0) for r in result) if return_indices \
            else _ops.squeeze(result, 0)
    return result


def _lp_pool(x, norm_type, kernel, avg_pool, stride, ceil_mode):
    p = float(norm_type)
    out = avg_pool(x ** p, kernel, stride, 0, ceil_mode)
    count = int(np.prod(kernel)) if isinstance(kernel, (tuple, list)) else int(kernel)
    return (_ops.sign(out) * F.relu(_ops.abs(out)) * count) ** (1.0 / p)


def lp_pool1d(input, norm_type, kernel_size, stride=None, ceil_mode=False):
    """The p-norm over windows of [N, C, L]: (sum of x^p)^(1/p)."""
    return _lp_pool(_tensor(input), norm_type, kernel_size, F.avg_pool1d, stride, ceil_mode)


def lp_pool2d(input, norm_type, kernel_size, stride=None, ceil_mode=False):
    """The p-norm over kH x kW windows of [N, C, H, W]: (sum of x^p)^(1/p)."""
    kernel = _pair(kernel_size, "kernel_size", "lp_pool2d")
    return _lp_pool(_tensor(input), norm_type, kernel, F.avg_pool2d, stride, ceil_mode)


def lp_pool3d(input, norm_type, kernel_size, stride=None, ceil_mode=False):
    """The p-norm over kD x kH x kW windows of [N, C, D, H, W]: (sum of x^p)^(1/p)."""
    kernel = _triple(kernel_size, "kernel_size", "lp_pool3d")
    return _lp_pool(_tensor(input), norm_type, kernel, F.avg_pool3d, stride, ceil_mode)


def _with_indices(pool):
    def with_indices(input, *args, **kwargs):
        kwargs["return_indices"] = True
        return pool(input, *args, **kwargs)
    with_indices.__name__ = pool.__name__ + "_with_indices"
    with_indices.__doc__ = f"{pool.__name__}(..., return_indices=True): (values, indices)."
    return with_indices


max_pool1d_with_indices = _with_indices(F.max_pool1d)
max_pool2d_with_indices = _with_indices(F.max_pool2d)
max_pool3d_with_indices = _with_indices(max_pool3d)
adaptive_max_pool1d_with_indices = _with_indices(adaptive_max_pool1d)
adaptive_max_pool2d_with_indices = _with_indices(adaptive_max_pool2d)
adaptive_max_pool3d_with_indices = _with_indices(adaptive_max_pool3d)


def max_unpool1d(input, indices, kernel_size, stride=None, padding=0, output_size=None):
    """The inverse of max_pool1d(..., return_indices=True): `input` [N, C, l] placed at
    `indices` (into each output row), zeros elsewhere."""
    x, idx = _tensor(input), _tensor(indices)
    one = (lambda v: None if v is None else (1, int(v if isinstance(v, (int, np.integer))
                                                    else tuple(v)[0])))
    size = None if output_size is None else (1, int(tuple(output_size)[-1]))
    y = F.max_unpool2d(_ops.unsqueeze(x, -2), _ops.unsqueeze(idx, -2), one(kernel_size),
                       one(stride), (0, int(padding if isinstance(padding, (int, np.integer))
                                            else tuple(padding)[0])), size)
    return _ops.squeeze(y, -2)


def max_unpool3d(input, indices, kernel_size, stride=None, padding=0, output_size=None):
    """The inverse of max_pool3d(..., return_indices=True): `input` [N, C, d, h, w] placed at
    `indices` (flat into each output volume), zeros elsewhere."""
    op = "max_unpool3d"
    x, idx = _tensor(input), _tensor(indices)
    kernel = _triple(kernel_size, "kernel_size", op)
    stride = kernel if stride is None else _triple(stride, "stride", op)
    padding = _triple(padding, "padding", op)
    if output_size is None:
        size = tuple((x.shape[2 + a] - 1) * stride[a] - 2 * padding[a] + kernel[a]
                     for a in range(3))
    else:
        size = tuple(int(s) for s in tuple(output_size)[-3:])
    n, c = x.shape[:2]
    # a volume unpooled as a plane: the flat indices are the same
    y = F.max_unpool2d(_ops.reshape(x, (n, c, 1, -1)), _ops.reshape(idx, (n, c, 1, -1)),
                       (1, 1), output_size=(1, int(np.prod(size))))
    return _ops.reshape(y, (n, c) + size)


# --- sampling and resizing ------------------------------------------------------------------
def gumbel_softmax(logits, tau=1.0, hard=False, eps=1e-10, dim=-1):
    """softmax((logits + Gumbel noise) / tau); with `hard`, the one-hot of its argmax in the
    forward pass and the soft sample's gradient (straight-through)."""
    x = _tensor(logits)
    u = rand(x.shape, dtype=x.dtype)
    gumbels = -_ops.log(-_ops.log(u))
    y = _ops.softmax((x + gumbels) / tau, dim)
    if not hard:
        return y
    with no_grad():
        index = _ops.argmax(y, dim, keepdim=True)
        onehot = _ops.cast(_ops.eq(index, _arange_along(y, dim)), y.dtype)
    return onehot - y.detach() + y


def _arange_along(y, dim):
    shape = [1] * y.ndim
    shape[dim] = y.shape[dim]
    return _index(np.arange(y.shape[dim]).reshape(shape))


def upsample(input, size=None, scale_factor=None, mode="nearest", align_corners=None):
    """Deprecated spelling of `interpolate`."""
    warnings.warn("nn.functional.upsample is deprecated. Use nn.functional.interpolate "
                  "instead.", UserWarning, stacklevel=2)
    return F.interpolate(input, size, scale_factor, mode, align_corners)


def upsample_nearest(input, size=None, scale_factor=None):
    """Deprecated: `interpolate(..., mode='nearest')`."""
    warnings.warn("nn.functional.upsample_nearest is deprecated. Use "
                  "nn.functional.interpolate instead.", UserWarning, stacklevel=2)
    return F.interpolate(input, size, scale_factor, mode="nearest")


def upsample_bilinear(input, size=None, scale_factor=None):
    """Deprecated: `interpolate(..., mode='bilinear', align_corners=True)`."""
    warnings.warn("nn.functional.upsample_bilinear is deprecated. Use "
                  "nn.functional.interpolate instead.", UserWarning, stacklevel=2)
    return F.interpolate(input, size, scale_factor, mode="bilinear", align_corners=True)


def _base_coords(n, align_corners, np_dtype):
    """The normalised output coordinates, rounded as torch's affine_grid rounds them (its
    linspace, then times (n - 1), then over n, in the dtype)."""
    if n <= 1:
        return np.zeros(1, np_dtype)
    c = _float_range(-1, 1, n, np_dtype)
    return c if align_corners else c * np_dtype.type(n - 1) / np_dtype.type(n)


def affine_grid(theta, size, align_corners=None):
    """Sampling grid [N, H, W, 2] (or [N, D, H, W, 3]) of the affine maps `theta` [N, 2, 3]
    (or [N, 3, 4]) applied to the normalised output coordinates in [-1, 1]."""
    t = _tensor(theta)
    align = bool(align_corners)
    size = tuple(int(s) for s in size)
    np_dtype = np.dtype(np.float64 if t.dtype == dtypes.float64 else np.float32)
    if len(size) == 4:
        if t.ndim != 3 or tuple(t.shape[1:]) != (2, 3):
            raise ValueError(f"Expected a batch of 2D affine matrices of shape Nx2x3 for size "
                             f"{list(size)}. Got {list(t.shape)}.")
        _, _, h, w = size
        ys, xs = np.meshgrid(_base_coords(h, align, np_dtype), _base_coords(w, align, np_dtype),
                             indexing="ij")
        base = np.stack([xs, ys, np.ones_like(xs)], -1).reshape(1, h * w, 3)
        out = (size[0], h, w, 2)
    elif len(size) == 5:
        if t.ndim != 3 or tuple(t.shape[1:]) != (3, 4):
            raise ValueError(f"Expected a batch of 3D affine matrices of shape Nx3x4 for size "
                             f"{list(size)}. Got {list(t.shape)}.")
        _, _, d, h, w = size
        zs, ys, xs = np.meshgrid(_base_coords(d, align, np_dtype), _base_coords(h, align, np_dtype),
                                 _base_coords(w, align, np_dtype), indexing="ij")
        base = np.stack([xs, ys, zs, np.ones_like(xs)], -1).reshape(1, d * h * w, 4)
        out = (size[0], d, h, w, 3)
    else:
        raise NotImplementedError(f"affine_grid only supports 4D and 5D sizes, for 2D and 3D "
                                  f"affine transforms, respectively. Got size {list(size)}.")
    if t.shape[0] != size[0]:
        raise ValueError(f"Expected theta to have the batch size {size[0]} of size, got "
                         f"{t.shape[0]}")
    grid = _ops.matmul(F._const(base, t), _ops.transpose(t, 1, 2))
    return _ops.reshape(grid, out)


def _source_coordinate(g, size, align_corners, padding_mode):
    """Grid coordinates in [-1, 1] -> pixel coordinates (clipped for 'border', mirrored at
    the edges and then clipped for 'reflection')."""
    if align_corners:
        pix = (g + 1) * ((size - 1) / 2)
    elif g.dtype == dtypes.float32:
        # torch's kernel fuses this multiply-add (one rounding): exact in float64, then rounded
        pix = _ops.cast(_ops.cast(g + 1, dtypes.float64) * (size / 2) - 0.5, dtypes.float32)
    else:
        pix = (g + 1) * (size / 2) - 0.5
    if padding_mode == "reflection":
        pix = _reflect(pix, *((0, 2 * (size - 1)) if align_corners else (-1, 2 * size - 1)))
    if padding_mode in ("border", "reflection"):
        # clipped as torch clips: no gradient on the edges themselves, only strictly inside
        inside = _ops.logical_and(_ops.greater(pix, 0), _ops.less(pix, size - 1))
        pix = _ops.where(inside, pix, _ops.clamp(pix.detach(), 0, size - 1))
    return pix


def _reflect(pix, twice_low, twice_high):
    """`pix` mirrored back and forth into [twice_low / 2, twice_high / 2], as PyTorch's
    reflect_coordinates (the bounds are doubled so that half-pixel edges stay integers)."""
    if twice_low == twice_high:
        return pix * 0
    low, span = twice_low / 2, (twice_high - twice_low) / 2
    distance = _ops.abs(pix - low)
    flips = _ops.floor(distance.detach() / span)
    extra = distance - flips * span
    even = _ops.eq(_ops.remainder(flips, 2), 0)
    return _ops.where(even, extra + low, span - extra + low)


def _sample(flat, iy, ix, h, w):
    """flat [N, C, H W] at integer pixel positions iy, ix [N, L] (zero outside the image)."""
    n, c = flat.shape[:2]
    inside = _ops.logical_and(_ops.logical_and(_ops.greater_equal(iy, 0), _ops.less(iy, h)),
                              _ops.logical_and(_ops.greater_equal(ix, 0), _ops.less(ix, w)))
    index = _ops.clamp(iy, 0, h - 1) * w + _ops.clamp(ix, 0, w - 1)
    index = _ops.broadcast_to(_ops.unsqueeze(index, 1), (n, c, index.shape[1]))
    values = _ops.take_along_dim(flat, index, 2)
    return values * _ops.cast(_ops.unsqueeze(inside, 1), flat.dtype)


def grid_sample(input, grid, mode="bilinear", padding_mode="zeros", align_corners=None):
    """Samples `input` [N, C, H, W] at the points `grid` [N, Ho, Wo, 2] ((x, y) in [-1, 1])
    with `mode` 'bilinear' or 'nearest' and `padding_mode` 'zeros', 'border' or
    'reflection'; gradients reach the input and (bilinear) the grid."""
    op = "grid_sample"
    x, g = _tensor(input), _tensor(grid)
    if mode not in ("bilinear", "nearest", "bicubic"):
        raise ValueError(f"nn.functional.grid_sample(): expected mode to be 'bilinear', "
                         f"'nearest' or 'bicubic', but got: '{mode}'")
    if padding_mode not in ("zeros", "border", "reflection"):
        raise ValueError(f"nn.functional.grid_sample(): expected padding_mode to be 'zeros', "
                         f"'border', or 'reflection', but got: '{padding_mode}'")
    if mode == "bicubic":
        raise NotImplementedError(f"{op}: mode 'bicubic' is not supported; use 'bilinear' or "
                                  "'nearest'")
    if x.ndim != 4 or g.ndim != 4 or g.shape[-1] != 2 or g.shape[0] != x.shape[0]:
        raise RuntimeError(f"{op}: expected input [N, C, H, W] and grid [N, H_out, W_out, 2] "
                           f"with the same N (4-d only), got {list(x.shape)} and "
                           f"{list(g.shape)}")
    n, c, h, w = x.shape
    _, ho, wo, _ = g.shape
    points = _ops.reshape(g, (n, ho * wo, 2))
    px = _source_coordinate(points[..., 0], w, bool(align_corners), padding_mode)
    py = _source_coordinate(points[..., 1], h, bool(align_corners), padding_mode)
    flat = _ops.reshape(x, (n, c, h * w))
    if mode == "nearest":
        ix, iy = (_ops.cast(_ops.round(p.detach()), dtypes.int64) for p in (px, py))
        out = _sample(flat, iy, ix, h, w)
    else:
        x0, y0 = _ops.floor(px.detach()), _ops.floor(py.detach())
        wx, wy = _ops.unsqueeze(px - x0, 1), _ops.unsqueeze(py - y0, 1)
        ix0, iy0 = _ops.cast(x0, dtypes.int64), _ops.cast(y0, dtypes.int64)
        out = (_sample(flat, iy0, ix0, h, w) * (1 - wx) * (1 - wy)
               + _sample(flat, iy0, ix0 + 1, h, w) * wx * (1 - wy)
               + _sample(flat, iy0 + 1, ix0, h, w) * (1 - wx) * wy
               + _sample(flat, iy0 + 1, ix0 + 1, h, w) * wx * wy)
    return _ops.reshape(out, (n, c, ho, wo))


# --- losses ---------------------------------------------------------------------------------
def _reduction(size_average, reduce, reduction):
    return F._legacy_reduction(size_average, reduce, reduction)


def triplet_margin_loss(anchor, positive, negative, margin=1.0, p=2, eps=1e-6, swap=False,
                        size_average=None, reduce=None, reduction="mean"):
    """max(d(a, p) - d(a, n) + margin, 0) with d the pairwise p-norm distance; `swap` uses
    the smaller of d(a, n) and d(p, n)."""
    if margin <= 0:
        raise ValueError(f"triplet_margin_loss: margin must be greater than 0, got {margin}")
    return _triplet("triplet_margin_loss", anchor, positive, negative,
                    lambda x, y: pairwise_distance(x, y, p, eps), margin, swap,
                    _reduction(size_average, reduce, reduction))


def triplet_margin_with_distance_loss(anchor, positive, negative, *, distance_function=None,
                                      margin=1.0, swap=False, reduction="mean"):
    """triplet_margin_loss with `distance_function` d (pairwise_distance when None)."""
    if margin <= 0:
        raise ValueError(f"triplet_margin_with_distance_loss: expected margin to be greater "
                         f"than 0, got {margin} instead")
    return _triplet("triplet_margin_with_distance_loss", anchor, positive, negative,
                    distance_function if distance_function is not None else pairwise_distance,
                    margin, swap, reduction)


def _triplet(op, anchor, positive, negative, distance, margin, swap, reduction):
    a, pos, neg = _tensor(anchor), _tensor(positive), _tensor(negative)
    if not a.ndim == pos.ndim == neg.ndim:
        raise RuntimeError(f"{op}: The anchor, positive, and negative tensors are expected to "
                           f"have the same number of dimensions, but got: anchor {a.ndim}D, "
                           f"positive {pos.ndim}D, and negative {neg.ndim}D inputs")
    d_pos, d_neg = distance(a, pos), distance(a, neg)
    if swap:
        d_neg = _ops.minimum(d_neg, distance(pos, neg))
    return F._reduce(F.relu(margin + d_pos - d_neg), reduction, op)


def margin_ranking_loss(input1, input2, target, margin=0.0, size_average=None, reduce=None,
                        reduction="mean"):
    """max(0, -target (input1 - input2) + margin), target in {1, -1}."""
    x1, x2, y = _tensor(input1), _tensor(input2), _tensor(target)
    if not x1.ndim == x2.ndim == y.ndim:
        raise RuntimeError(f"margin_ranking_loss : All input tensors should have same dimension "
                           f"but got sizes: input1: {list(x1.shape)}, input2: {list(x2.shape)}, "
                           f"target: {list(y.shape)} ")
    loss = F.relu(-y * (x1 - x2) + margin)
    return F._reduce(loss, _reduction(size_average, reduce, reduction), "margin_ranking_loss")


def hinge_embedding_loss(input, target, margin=1.0, size_average=None, reduce=None,
                         reduction="mean"):
    """input where target is 1, max(0, margin - input) where it is -1."""
    x, y = _tensor(input), _tensor(target)
    zero = F._const(0.0, x)
    loss = (_ops.where(_ops.not_equal(y, 1), F.relu(margin - x), zero)
            + _ops.where(_ops.not_equal(y, -1), x, zero))
    return F._reduce(loss, _reduction(size_average, reduce, reduction), "hinge_embedding_loss")


def soft_margin_loss(input, target, size_average=None, reduce=None, reduction="mean"):
    """log(1 + exp(-target input)), target in {1, -1}."""
    x, y = F._pair_check(input, target, "soft_margin_loss", "refuse")
    loss = F.softplus(-y * x)
    return F._reduce(loss, _reduction(size_average, reduce, reduction), "soft_margin_loss")


def multilabel_soft_margin_loss(input, target, weight=None, size_average=None, reduce=None,
                                reduction="mean"):
    """Binary cross-entropy of sigmoid(input) against {0, 1} targets, averaged over the
    classes (the last dimension)."""
    x, y = F._pair_check(input, target, "multilabel_soft_margin_loss", "broadcast")
    loss = -(y * F.logsigmoid(x) + (1 - y) * F.logsigmoid(-x))
    if weight is not None:
        loss = loss * weight
    loss = _ops.sum(loss, axis=x.ndim - 1) / x.shape[-1]
    return F._reduce(loss, _reduction(size_average, reduce, reduction),
                     "multilabel_soft_margin_loss")


def poisson_nll_loss(input, target, log_input=True, full=False, size_average=None, eps=1e-8,
                     reduce=None, reduction="mean"):
    """Negative log-likelihood of target ~ Poisson(rate): exp(input) - target input (rate =
    exp(input)), or input - target log(input + eps); `full` adds Stirling's term."""
    x, y = _tensor(input), _tensor(target)
    reduction = _reduction(size_average, reduce, reduction)
    if reduction not in ("mean", "sum", "none"):
        raise ValueError(f"{reduction} is not a valid value for reduction")
    if log_input:
        loss = _ops.exp(x) - y * x
    else:
        loss = x - y * _ops.log(x + eps)
    if full:
        safe = _ops.where(_ops.greater(y, 1), y, F._const(1.0, y))
        stirling = safe * _ops.log(safe) - safe + 0.5 * _ops.log(2 * math.pi * safe)
        loss = loss + _ops.where(_ops.greater(y, 1), stirling, F._const(0.0, y))
    return F._reduce(loss, reduction, "poisson_nll_loss")


def gaussian_nll_loss(input, target, var, full=False, eps=1e-6, reduction="mean"):
    """0.5 (log var + (input - target)^2 / var) (+ 0.5 log 2 pi with `full`); var is clamped
    below at eps without changing its gradient, as PyTorch."""
    x, y, v = _tensor(input), _tensor(target), _tensor(var)
    if reduction not in ("mean", "sum", "none"):
        raise ValueError(reduction + " is not valid")
    if tuple(v.shape) != tuple(x.shape):
        if tuple(x.shape[:-1]) == tuple(v.shape):
            v = _ops.unsqueeze(v, -1)
        elif not (tuple(x.shape[:-1]) == tuple(v.shape[:-1]) and v.shape[-1] == 1):
            raise ValueError("var is of incorrect size")
    if (v._data < 0).any():
        raise ValueError("var has negative entry/entries")
    held = v.detach()
    v = v + (_ops.maximum(held, eps) - held)
    loss = 0.5 * (_ops.log(v) + (x - y) ** 2 / v)
    if full:
        loss = loss + 0.5 * math.log(2 * math.pi)
    return F._reduce(loss, reduction, "gaussian_nll_loss")


def cosine_embedding_loss(input1, input2, target, margin=0.0, size_average=None, reduce=None,
                          reduction="mean"):
    """1 - cos(input1, input2) where target is 1, max(0, cos - margin) where it is -1."""
    x1, x2, y = _tensor(input1), _tensor(input2), _tensor(target)
    if x1.shape != x2.shape:
        raise RuntimeError(f"cosine_embedding_loss: input1 {list(x1.shape)} and input2 "
                           f"{list(x2.shape)} must have the same shape")
    tiny = 1e-12
    dot = _ops.sum(x1 * x2, axis=-1)
    mag = (_ops.sum(x1 * x1, axis=-1) + tiny) * (_ops.sum(x2 * x2, axis=-1) + tiny)
    cos = dot / _ops.sqrt(mag)
    zero = F._const(0.0, cos)
    loss = (_ops.where(_ops.eq(y, 1), 1 - cos, zero)
            + _ops.where(_ops.eq(y, -1), F.relu(cos - margin), zero))
    return F._reduce(loss, _reduction(size_average, reduce, reduction), "cosine_embedding_loss")


def _margin_input(input, size_average, reduce, reduction, op):
    """A class-margin loss's input and reduction, checked: a 0-d input is the scores of one
    class (torch's reading); only the batch dimension may be empty."""
    reduction = _reduction(size_average, reduce, reduction)
    if reduction not in ("mean", "sum", "none"):
        raise ValueError(f"{op}: {reduction!r} is not a valid value for reduction; use 'mean', "
                         "'sum' or 'none'")
    x = _tensor(input)
    x = _ops.reshape(x, (1,)) if x.ndim == 0 else x
    if x.ndim in (1, 2) and x.shape[-1] == 0:
        raise ShapeError(f"{op}: expected a non-empty vector or matrix [N, C] with optional "
                         f"0-dim batch size, got shape {list(x.shape)}")
    return x, reduction


def _class_targets(x, target, op):
    """x as [N, C] and integer targets [N] (checked in range)."""
    t = _tensor(target)
    if t._data.dtype.kind not in "iu":
        raise RuntimeError(f"{op}: expected integer class targets, got dtype {t.dtype}")
    x2 = _ops.unsqueeze(x, 0) if x.ndim == 1 else x
    t2 = _ops.reshape(t, (-1,))
    if x2.ndim != 2 or t2.shape[0] != x2.shape[0]:
        raise RuntimeError(f"{op}: expected input [N, C] (or [C]) and target [N], got "
                           f"{list(x.shape)} and {list(t.shape)}")
    values = t2._data
    if values.size and (values.min() < 0 or values.max() >= x2.shape[1]):
        raise IndexOutOfRange(f"{op}: target {int(values.max())} is out of bounds for "
                              f"{x2.shape[1]} classes")
    return x2, t2


def multi_margin_loss(input, target, p=1, margin=1.0, weight=None, size_average=None,
                      reduce=None, reduction="mean"):
    """sum over wrong classes j of max(0, margin - x[y] + x[j])^p / C (times weight[y])."""
    op = "multi_margin_loss"
    if p not in (1, 2):
        raise ValueError("only p == 1 and p == 2 supported")
    x, reduction = _margin_input(input, size_average, reduce, reduction, op)
    if weight is not None and _tensor(weight).ndim != 1:
        raise ValueError(f"{op}: weight must be one-dimensional, got shape "
                         f"{list(_tensor(weight).shape)}")
    x2, t = _class_targets(x, target, op)
    if weight is not None and _tensor(weight).shape != (x2.shape[1],):
        raise ShapeError(f"{op}: inconsistent weight size, expected {x2.shape[1]} but got "
                         f"{list(_tensor(weight).shape)}")
    classes = x2.shape[1]
    picked = _ops.take_along_dim(x2, _ops.unsqueeze(t, 1), 1)
    margins = F.relu(margin - picked + x2)
    if p == 2:
        margins = margins * margins
    onehot = _ops.eq(_ops.unsqueeze(t, 1), _index(np.arange(classes)))
    margins = _ops.where(onehot, F._const(0.0, x2), margins)
    if weight is not None:
        margins = margins * _ops.unsqueeze(_tensor(weight)[t], 1)
    loss = _ops.sum(margins, axis=1) / classes
    if x.ndim == 1:
        loss = _ops.squeeze(loss, 0)
    return F._reduce(loss, reduction, op)


def multilabel_margin_loss(input, target, size_average=None, reduce=None, reduction="mean"):
    """For each target class j (the target row's entries up to the first -1) and each
    non-target class i: max(0, 1 - (x[j] - x[i])), summed and divided by C."""
    op = "multilabel_margin_loss"
    x, reduction = _margin_input(input, size_average, reduce, reduction, op)
    t = _tensor(target)
    if t.ndim == 0:
        t = _ops.reshape(t, (1,))
    if t._data.dtype.kind not in "iu" or t.shape != x.shape or x.ndim not in (1, 2):
        raise RuntimeError(f"{op}: expected input [N, C] (or [C]) and integer target of the "
                           f"same shape, got {list(x.shape)} and {list(t.shape)} ({t.dtype})")
    x2 = _ops.unsqueeze(x, 0) if x.ndim == 1 else x
    t2 = _ops.reshape(t, x2.shape)
    classes = x2.shape[1]
    values = t._data
    if values.size and values.max() >= classes:
        raise IndexOutOfRange(f"{op}: target {int(values.max())} is out of bounds for "
                              f"{classes} classes")
    listed = _ops.cumprod(_ops.cast(_ops.not_equal(t2, -1), x2.dtype), axis=1)  # up to the first -1
    onehot = _ops.cast(_ops.eq(_ops.unsqueeze(t2, 2), _index(np.arange(classes))), x2.dtype)
    pairs = _ops.sum(onehot * _ops.unsqueeze(listed, 2), axis=1)  # times each class is listed
    others = _ops.cast(_ops.eq(pairs, 0), x2.dtype)
    # hinge[n, j, i] = max(0, 1 - x[n, j] + x[n, i])
    hinge = F.relu(1 - _ops.unsqueeze(x2, 2) + _ops.unsqueeze(x2, 1))
    loss = _ops.sum(hinge * _ops.unsqueeze(pairs, 2) * _ops.unsqueeze(others, 1),
                    axis=(1, 2)) / classes
    if x.ndim == 1:
        loss = _ops.squeeze(loss, 0)
    return F._reduce(loss, reduction, op)


# --- embedding bags -------------------------------------------------------------------------
def embedding_bag(input, weight, offsets=None, max_norm=None, norm_type=2,
                  scale_grad_by_freq=False, mode="mean", sparse=False, per_sample_weights=None,
                  include_last_offset=False, padding_idx=None):
    """The sum, mean or max of the embeddings in each bag: the rows of a 2-d `input`, or the
    runs of a 1-d `input` starting at `offsets`; entries equal to `padding_idx` are left
    out; `per_sample_weights` scale each entry (mode 'sum')."""
    op = "embedding_bag"
    if mode not in ("sum", "mean", "max"):
        raise ValueError(f"{op}: mode has to be one of sum, mean or max, got {mode!r}")
    if per_sample_weights is not None and mode != "sum":
        raise NotImplementedError(f"embedding_bag: per_sample_weights was not None. "
                                  f"per_sample_weights is only supported for mode='sum' (got "
                                  f"mode='{mode}'). Please open a feature request on GitHub.")
    idx, values = F._indices(input, op)
    num = weight.shape[0]
    if values.size and (values.min() < 0 or values.max() >= num):
        raise IndexError(f"{op}: index out of range for {num} embeddings")
    if max_norm is not None:  # the looked-up rows of weight longer than it shrink, in place
        F._renorm_rows(weight, Tensor(np.unique(values)), max_norm, norm_type)
    psw = per_sample_weights
    if idx.ndim == 2:
        if offsets is not None:
            raise ValueError("if input is 2D, then offsets has to be None, as input is treated "
                             "is a mini-batch of fixed length sequences.")
        bags, width = idx.shape
        starts, ends = _index(np.arange(bags) * width), _index(np.arange(1, bags + 1) * width)
        flat = _ops.reshape(idx, (-1,))
        psw = None if psw is None else _ops.reshape(psw, (-1,))
    elif idx.ndim == 1:
        if offsets is None:
            raise ValueError("offsets has to be a 1D Tensor but got None")
        flat = idx
        bounds = _ops.reshape(_tensor(offsets), (-1,))
        if include_last_offset:
            starts, ends = bounds[:-1], bounds[1:]
        else:
            starts = bounds
            ends = _ops.concat([bounds[1:], _index([flat.shape[0]])])
    else:
        raise ValueError(f"input has to be 1D or 2D Tensor, but got Tensor of dimension "
                         f"{idx.ndim}")
    position = _index(np.arange(flat.shape[0]))
    member = _ops.logical_and(_ops.greater_equal(position, _ops.unsqueeze(starts, 1)),
                              _ops.less(position, _ops.unsqueeze(ends, 1)))  # [bags, entries]
    if padding_idx is not None:
        member = _ops.logical_and(member, _ops.not_equal(flat, padding_idx % num))
    rows = _ops.index_select(weight, 0, flat)
    if mode == "max":
        low = F._const(-math.inf, rows)
        out = _ops.amax(_ops.where(_ops.unsqueeze(member, 2), _ops.unsqueeze(rows, 0), low),
                        axis=1)
        nonempty = _ops.unsqueeze(_ops.any(member, axis=1), 1)
        return _ops.where(nonempty, out, F._const(0.0, rows))
    share = _ops.cast(member, rows.dtype)
    if psw is not None:
        share = share * psw
    if mode == "mean":
        share = share / _ops.maximum(_ops.sum(share, axis=1, keepdims=True), 1.0)
    return _ops.matmul(share, rows)


# --- connectionist temporal classification --------------------------------------------------
_LOG_ZERO = -1e30  # log(0) for the recursion: finite, so gradients through it stay finite


def _lengths(lengths, batch, what):
    t = lengths if isinstance(lengths, Tensor) else Tensor(np.asarray(lengths, np.int64))
    t = _ops.reshape(t, (-1,))
    if t.shape != (batch,):
        raise RuntimeError(f"ctc_loss: expected {batch} {what}, got {t.shape[0]}")
    return t


def _padded_targets(targets, target_lengths, batch, blank):
    """Integer targets as [N, S]: given padded, or cut out of the concatenated (1-d) ones
    (S is then their total length, an upper bound that needs no values)."""
    t = _tensor(targets)
    if t._data.dtype.kind not in "iu":
        raise RuntimeError(f"ctc_loss: targets must be integer class indices, got {t.dtype}")
    if t.ndim == 2:
        return t
    total = t.shape[0]
    if total == 0:
        return _index(np.zeros((batch, 0)))
    offsets = _ops.cumsum(target_lengths, 0) - target_lengths
    column = _index(np.arange(total))
    where = _ops.clamp(_ops.unsqueeze(offsets, 1) + column, 0, total - 1)
    inside = _ops.less(column, _ops.unsqueeze(target_lengths, 1))
    return _ops.where(inside, t[where], blank)


def ctc_loss(log_probs, targets, input_lengths, target_lengths, blank=0, reduction="mean",
             zero_infinity=False):
    """Connectionist temporal classification loss: -log of the total probability of every
    alignment of `targets` with `log_probs` [T, N, C] (log-softmax outputs; [T, C]
    unbatched). 'mean' divides each loss by its target length, then averages."""
    op = "ctc_loss"
    lp = _tensor(log_probs)
    unbatched = lp.ndim == 2
    if unbatched:
        lp = _ops.unsqueeze(lp, 1)
        targets = _ops.reshape(_tensor(targets), (1, -1))
    if lp.ndim != 3:
        raise RuntimeError(f"{op}: expected log_probs [T, N, C] or [T, C], got shape "
                           f"{list(lp.shape)}")
    steps, batch, classes = lp.shape
    in_len = _lengths(input_lengths, batch, "input lengths")
    tgt_len = _lengths(target_lengths, batch, "target lengths")
    labels = _padded_targets(targets, tgt_len, batch, blank)
    if in_len._data.size and in_len._data.max() > steps:
        raise RuntimeError(f"{op}: Expected input_lengths to have value at most {steps}, but "
                           f"got value {int(in_len._data.max())}")
    values = labels._data
    if values.size and (values.min() < 0 or values.max() >= classes):
        raise IndexError(f"{op}: target index out of range for {classes} classes")
    blanks = _index(np.full(labels.shape, blank))
    extended = _ops.concat([_ops.reshape(_ops.stack([blanks, labels], 2), (batch, -1)),
                            _index(np.full((batch, 1), blank))], 1)  # [N, 2S + 1]
    width = extended.shape[1]
    skip = _ops.logical_and(_ops.not_equal(extended[:, 2:], blank),
                            _ops.not_equal(extended[:, 2:], extended[:, :-2]))
    no_skip = _ops.concat([Tensor(np.ones((batch, min(width, 2)), bool)),
                           _ops.logical_not(skip)], 1)
    index = _ops.broadcast_to(_ops.unsqueeze(extended, 0), (steps, batch, width))
    emissions = _ops.take_along_dim(lp, index, 2)  # [T, N, 2S + 1]
    zero = F._const(np.full((batch, width), _LOG_ZERO), lp)
    start = Tensor(np.broadcast_to(np.arange(width) < 2, (batch, width)).copy())
    alpha = _ops.where(start, emissions[0], zero)
    for t in range(1, steps):
        one = _ops.concat([zero[:, :1], alpha[:, :-1]], 1)
        two = _ops.where(no_skip, zero, _ops.concat([zero[:, :2], alpha[:, :-2]], 1))
        step = _ops.logsumexp(_ops.stack([alpha, one, two]), 0) + emissions[t]
        alpha = _ops.where(_ops.unsqueeze(_ops.greater(in_len, t), 1), step, alpha)
    last = _ops.unsqueeze(2 * tgt_len, 1)
    before = _ops.unsqueeze(_ops.clamp(2 * tgt_len - 1, 0, None), 1)
    end = _ops.take_along_dim(alpha, last, 1)
    end_before = _ops.where(_ops.unsqueeze(_ops.greater(tgt_len, 0), 1),
                            _ops.take_along_dim(alpha, before, 1), zero[:, :1])
    loss = -_ops.squeeze(_ops.logsumexp(_ops.concat([end, end_before], 1), 1, keepdim=True), 1)
    impossible = _ops.greater(loss, -_LOG_ZERO / 2)
    if zero_infinity:
        loss = _ops.where(impossible, F._const(0.0, loss), loss)
    else:
        loss = _ops.where(impossible, F._const(math.inf, loss), loss)
    if reduction == "mean":
        return _ops.mean(loss / _ops.maximum(_ops.cast(tgt_len, loss.dtype), 1.0))
    if unbatched and reduction == "none":
        return _ops.squeeze(loss, 0)
    return F._reduce(loss, reduction, op)


def linear_cross_entropy(input, linear_weight, target, *, linear_bias=None, weight=None,
                         reduction="mean", ignore_index=None, label_smoothing=0.0,
                         options=None):
    """cross_entropy(linear(input, linear_weight, linear_bias), target, ...), as torch's.

    input is [in_features] or [N, in_features]; linear_weight [C, in_features] or
    [C, d_1, ..., d_K, in_features] for a K-dimensional loss (batched input only). torch's
    `options` choose a chunking strategy that saves memory; the value is the same, so they are
    accepted and not used."""
    x, w = _tensor(input), _tensor(linear_weight)
    op = "linear_cross_entropy"
    if x.ndim not in (1, 2):
        raise ShapeError(f"{op}: expected input with dimensionality 1 or 2, got {x.ndim} "
                         f"(shape {list(x.shape)})")
    if w.ndim < 2:
        raise ShapeError(f"{op}: expected linear_weight with dimensionality at least 2, got "
                         f"{w.ndim} (shape {list(w.shape)})")
    if x.shape[-1] != w.shape[-1]:
        raise ShapeError(f"{op}: expected equal input and linear_weight last dimensions "
                         f"(in_features), got {x.shape[-1]} and {w.shape[-1]}")
    if w.ndim > 2 and x.ndim == 1:
        raise ShapeError(f"{op}: K-dimensional loss defined by linear_weight shape "
                         f"{tuple(w.shape)} requires batched input [N, in_features], got "
                         f"shape {list(x.shape)}")
    if linear_bias is not None and tuple(linear_bias.shape) != tuple(w.shape[:-1]):
        raise ShapeError(f"{op}: expected linear_bias shape {tuple(w.shape[:-1])}, got "
                         f"{tuple(linear_bias.shape)}")
    probabilities = _tensor(target).dtype.is_floating_point
    if probabilities and ignore_index is not None:
        raise ArgumentError(f"{op}: ignore_index cannot be specified when target contains "
                            "probabilities")
    out_features = tuple(w.shape[:-1])
    flat_w = _ops.reshape(w, (-1, w.shape[-1]))
    if x.ndim == 1:
        logits = _ops.matmul(flat_w, x)
    else:
        logits = _ops.reshape(_ops.matmul(x, _ops.transpose(flat_w, 0, 1)),
                              (x.shape[0],) + out_features)
    if linear_bias is not None:
        logits = logits + linear_bias
    return F.cross_entropy(logits, target, weight=weight, reduction=reduction,
                           ignore_index=-100 if ignore_index is None else ignore_index,
                           label_smoothing=label_smoothing)
