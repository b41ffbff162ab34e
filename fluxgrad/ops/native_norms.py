"""PyTorch's `native_layer_norm`, `native_batch_norm` and `native_group_norm`: the normalizations
with the statistics they computed, as torch's return tuples, built from existing ops. As in
torch, gradients reaching the statistics flow back to the input for native_group_norm only:
native_layer_norm's and native_batch_norm's are returned detached (torch's backward of these
ignores their gradients).

- native_layer_norm(input, normalized_shape, weight, bias, eps) -> (out, mean, rstd), mean and
  rstd of shape input.shape[:-len(normalized_shape)] + (1,) * len(normalized_shape).
- native_batch_norm(input, weight, bias, running_mean, running_var, training, momentum, eps)
  -> (out, save_mean, save_invstd) of shape [C] in training (the running statistics, when
  given, are updated in place with the unbiased variance); in eval the running statistics
  normalize and save_mean, save_invstd are empty, as torch's.
- native_group_norm(input, weight, bias, N, C, HxW, group, eps) -> (out, mean, rstd), mean and
  rstd of shape [N, group].

rstd is 1 / sqrt(biased variance + eps).
"""
from .._core.errors import ArgumentError, ShapeError
from .._core.grad_mode import no_grad
from .elementwise import rsqrt
from .reduce import mean as _mean
from .shape import reshape
from ..creation import empty

__all__ = ["native_layer_norm", "native_batch_norm", "native_group_norm"]


def _normalized(x, axes, eps, *, detached=True):
    mean = _mean(x, axes, True)
    centered = x - mean
    var = _mean(centered * centered, axes, True)
    rstd = rsqrt(var + eps)
    y = centered * rstd
    if detached:
        mean, rstd, var = mean.detach(), rstd.detach(), var.detach()
    return y, mean, rstd, var


def _affine(y, weight, bias, shape):
    if weight is not None:
        y = y * reshape(weight, shape)
    if bias is not None:
        y = y + reshape(bias, shape)
    return y


def native_layer_norm(input, normalized_shape, weight, bias, eps):
    """layer_norm over the trailing `normalized_shape` dims, with its mean and rstd."""
    shape = tuple(normalized_shape)
    if not shape:
        raise ShapeError("native_layer_norm: Expected normalized_shape to be at least "
                         "1-dimensional, i.e., containing at least one element, but got "
                         "normalized_shape = []")
    for name, t in (("weight", weight), ("bias", bias)):
        if t is not None and tuple(t.shape) != shape:
            raise ShapeError(f"native_layer_norm: Expected {name} to be of same shape as "
                             f"normalized_shape, but got {name} of shape {list(t.shape)} and "
                             f"normalized_shape = {list(shape)}")
    n = len(shape)
    if input.ndim < n or tuple(input.shape[input.ndim - n:]) != shape:
        raise ShapeError(f"native_layer_norm: Given normalized_shape={list(shape)}, expected "
                         f"input with shape [*, {', '.join(map(str, shape))}], but got input "
                         f"of size {list(input.shape)}")
    y, mean, rstd, _ = _normalized(input, tuple(range(input.ndim - n, input.ndim)), eps)
    return _affine(y, weight, bias, shape), mean, rstd


def native_batch_norm(input, weight, bias, running_mean, running_var, training, momentum, eps):
    """batch_norm over every dim but the channels (dim 1), with the batch mean and invstd."""
    if input.ndim < 2:
        raise ShapeError(f"native_batch_norm: expected an input of at least 2 dimensions "
                         f"[N, C, ...], got shape {list(input.shape)}")
    c = input.shape[1]
    shape = (1, c) + (1,) * (input.ndim - 2)
    if not training:
        if running_mean is None or running_var is None:
            raise ArgumentError("native_batch_norm: running_mean and running_var must be "
                                "given when training=False")
        y = (input - reshape(running_mean, shape)) * rsqrt(reshape(running_var, shape) + eps)
        nothing = empty((0,), dtype=input.dtype)
        return _affine(y, weight, bias, shape), nothing, empty((0,), dtype=input.dtype)
    axes = (0,) + tuple(range(2, input.ndim))
    y, mean, rstd, var = _normalized(input, axes, eps)
    if running_mean is not None or running_var is not None:
        count = input.numel() // max(c, 1)
        with no_grad():
            if running_mean is not None:
                running_mean.copy_(running_mean * (1 - momentum) + reshape(mean, (c,)) * momentum)
            if running_var is not None:
                unbiased = var * (count / (count - 1))
                running_var.copy_(running_var * (1 - momentum) + reshape(unbiased, (c,)) * momentum)
    return _affine(y, weight, bias, shape), reshape(mean, (c,)), reshape(rstd, (c,))


def native_group_norm(input, weight, bias, N, C, HxW, group, eps):
    """group_norm of input [N, C, *] (HxW entries per channel) in `group` channel groups, with
    each group's mean and rstd [N, group]."""
    if C % group:
        raise ShapeError(f"native_group_norm: Expected number of channels in input to be "
                         f"divisible by num_groups, but got input of shape "
                         f"{list(input.shape)} and num_groups={group}")
    if input.numel() != N * C * HxW:
        raise ShapeError(f"native_group_norm: Expected the input of shape {list(input.shape)} "
                         f"to hold N * C * HxW = {N} * {C} * {HxW} elements")
    grouped = reshape(input, (N, group, (C // group) * HxW))
    y, mean, rstd, _ = _normalized(grouped, (2,), eps, detached=False)
    y = _affine(reshape(y, tuple(input.shape)), weight, bias, (1, C) + (1,) * (input.ndim - 2))
    return y, reshape(mean, (N, group)), reshape(rstd, (N, group))
