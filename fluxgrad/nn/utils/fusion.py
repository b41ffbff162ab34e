"""`nn.utils.fusion`: fold an eval-mode BatchNorm into the convolution or Linear before it, as
PyTorch's deployment helpers do: one layer computing conv(x) then bn in a single affine map.

With s = bn.weight / sqrt(running_var + eps): weight' = weight * s (per output channel; per
input channel of a transposed convolution), bias' = (bias - running_mean) * s + bn.bias. The
fused layer is a deep copy; the originals are untouched.
"""
import copy

from ... import ops
from ..._core.grad_mode import no_grad
from ...creation import ones_like, zeros_like
from ..parameter import Parameter

__all__ = ["fuse_conv_bn_eval", "fuse_conv_bn_weights", "fuse_linear_bn_eval",
           "fuse_linear_bn_weights"]


def _check_eval(layer, bn, what):
    # AssertionError, as PyTorch's asserts raise
    if layer.training or bn.training:
        raise AssertionError(f"Fusion only for eval! Call .eval() on the {what} and the "
                             "BatchNorm first")
    if bn.running_mean is None or bn.running_var is None:
        raise AssertionError("fusion needs a BatchNorm with running statistics "
                             "(track_running_stats=True)")


def fuse_conv_bn_eval(conv, bn, transpose=False):
    """A copy of `conv` computing bn(conv(x)) of the eval-mode `bn`."""
    _check_eval(conv, bn, "convolution")
    fused = copy.deepcopy(conv)
    fused.weight, fused.bias = fuse_conv_bn_weights(
        fused.weight, fused.bias, bn.running_mean, bn.running_var, bn.eps, bn.weight, bn.bias,
        transpose)
    return fused


def fuse_conv_bn_weights(conv_w, conv_b, bn_rm, bn_rv, bn_eps, bn_w, bn_b, transpose=False):
    """The fused (weight, bias) Parameters of a convolution followed by a BatchNorm."""
    bias_dtype = conv_w.dtype if conv_b is None else conv_b.dtype
    bias_requires_grad = False if conv_b is None else conv_b.requires_grad
    with no_grad():
        conv_b = zeros_like(bn_rm) if conv_b is None else conv_b
        bn_w = ones_like(bn_rm) if bn_w is None else bn_w
        bn_b = zeros_like(bn_rm) if bn_b is None else bn_b
        rsqrt = ops.rsqrt(bn_rv + bn_eps)
        shape = ([1, -1] if transpose else [-1, 1]) + [1] * (conv_w.ndim - 2)
        weight = (conv_w * (bn_w * rsqrt).reshape(shape)).to(dtype=conv_w.dtype)
        bias = ((conv_b - bn_rm) * rsqrt * bn_w + bn_b).to(dtype=bias_dtype)
    return (Parameter(weight, conv_w.requires_grad), Parameter(bias, bias_requires_grad))


def fuse_linear_bn_eval(linear, bn):
    """A copy of `linear` computing bn(linear(x)) of the eval-mode `bn` (its features equal to
    linear's outputs, or 1)."""
    _check_eval(linear, bn, "Linear")
    if not (linear.out_features == bn.num_features or bn.num_features == 1):
        raise AssertionError(f"To fuse, linear.out_features == bn.num_features or "
                             f"bn.num_features == 1 (got {linear.out_features} and "
                             f"{bn.num_features})")
    fused = copy.deepcopy(linear)
    fused.weight, fused.bias = fuse_linear_bn_weights(
        fused.weight, fused.bias, bn.running_mean, bn.running_var, bn.eps, bn.weight, bn.bias)
    return fused


def fuse_linear_bn_weights(linear_w, linear_b, bn_rm, bn_rv, bn_eps, bn_w, bn_b):
    """The fused (weight, bias) Parameters of a Linear followed by a BatchNorm."""
    bias_dtype = linear_w.dtype if linear_b is None else linear_b.dtype
    bias_requires_grad = False if linear_b is None else linear_b.requires_grad
    with no_grad():
        linear_b = zeros_like(bn_rm) if linear_b is None else linear_b
        scale = bn_w * ops.rsqrt(bn_rv + bn_eps)
        weight = linear_w * scale.unsqueeze(-1).to(dtype=linear_w.dtype)
        bias = ((linear_b - bn_rm) * scale + bn_b).to(dtype=bias_dtype)
    return (Parameter(weight, linear_w.requires_grad), Parameter(bias, bias_requires_grad))
