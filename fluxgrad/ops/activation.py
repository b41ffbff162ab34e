"""Activation functions: sigmoid and logit, the ReLU family, smooth ReLUs (ELU, SELU, CELU,
GELU, SiLU, softplus, mish) and the hard, piecewise linear ones.

A function is a primitive where one fused op is faster or more stable than its
composite (sigmoid, relu, leaky_relu, elu, gelu, silu, softplus, hardtanh); the others
are written with those. Subgradients at kinks are PyTorch's: relu'(0) = 0,
leaky_relu'(0) = negative_slope, elu'(0) = alpha, and hardtanh (so relu6, hardsigmoid,
hardswish) passes no gradient on its boundaries.
"""
import math

import numpy as np

from .._core.dispatch import apply
from .._core.errors import ArgumentError, refuse_python_value
from .._core.primitive import Primitive
from .._core.tensor import Tensor, tensor_method
from . import _special
from ._batch import broadcasting
from ._family import float_result, from_output, fused_backward, refuse_kinds
from .elementwise import abs, clamp, erfc, exp, log, log1p, logical_and, tanh, where

__all__ = ["sigmoid", "logit", "relu", "leaky_relu", "elu", "selu", "celu", "gelu", "silu",
           "softplus", "mish", "hardtanh", "relu6", "hardsigmoid", "hardswish", "softsign",
           "tanhshrink"]

# exp(x) overflows above these; the sigmoid of anything beyond is below the smallest normal
_EXP_LIMIT = {np.dtype(np.float32): 88.0, np.dtype(np.float64): 709.0}
_SQRT_HALF = math.sqrt(0.5)
_INV_SQRT_2PI = 1 / math.sqrt(2 * math.pi)
_SQRT_2_OVER_PI = math.sqrt(2 / math.pi)
_GELU_CUBIC = 0.044715
_SELU_ALPHA = 1.6732632423543772848170429916717
_SELU_SCALE = 1.0507009873554804934193349852946


# --- sigmoid and logit ------------------------------------------------------------------
def _sigmoid(x):
    # float16 is computed in float32 and rounded once, as PyTorch
    wide = x.astype(np.float32) if x.dtype == np.float16 else x
    if wide.dtype.kind == "c":
        return 1 / (1 + np.exp(-wide))
    return (1 / (1 + np.exp(np.minimum(-wide, _EXP_LIMIT[wide.dtype])))).astype(x.dtype,
                                                                                copy=False)


sigmoid_backward_p, sigmoid_backward = fused_backward(
    "sigmoid_backward", lambda g, y: g * y * (1 - y), lambda g, y: g * (1 - 2 * y))
sigmoid_p = from_output("sigmoid", _sigmoid, sigmoid_backward)


@tensor_method("sigmoid")
def sigmoid(x):
    """1 / (1 + exp(-x)), without overflow."""
    return apply(sigmoid_p, float_result(x))


@tensor_method("logit")
def logit(x, eps=None):
    """log(x / (1 - x)), the inverse of sigmoid; with `eps`, x is first clamped to
    [eps, 1 - eps] (zero gradient outside)."""
    x = float_result(x)
    if eps is not None:
        x = clamp(x, eps, 1 - eps)
    # not log(x / (1 - x)): its gradient at x = 1 is 0 * inf, where PyTorch's is inf
    return log(x) - log1p(-x)


# --- the ReLU family --------------------------------------------------------------------
def _relu_impl(x):
    # Zero first: NumPy's maximum keeps its first operand on a tie, so -0.0 stays -0.0, as
    # PyTorch's. Against a scalar it runs unvectorised: against a row of zeros along a long
    # contiguous last axis it is 1.5x faster on float32[256, 512] (slower on small arrays).
    if x.size >= 1 << 16 and x.shape[-1] >= 128 and x.dtype.kind == "f" and \
            x.flags.c_contiguous:
        return np.maximum(np.zeros(x.shape[-1], x.dtype), x)
    return np.maximum(0, x)


# The gradient passes where the output isn't 0: where x > 0, and at a NaN, as PyTorch's. One
# op (like PyTorch's threshold_backward): g's bits and'ed with a mask of all-ones where y isn't
# 0, which, unlike g * (y != 0) (as fast), gives +0, not -0 or NaN, where g is negative, inf or
# NaN and y is 0, and keeps g's -0 where y isn't 0, as PyTorch's; np.where is 10x slower on a
# random mask. Linear in g; its derivative in y is 0 wherever it exists.
def relu_backward_into(g, y, out=None):
    """relu_backward's impl, into `out` (an array, possibly g) when given."""
    g = np.asarray(g)
    if g.dtype.kind != "f":
        return np.multiply(g, y != 0, out=out)
    bits = np.dtype(f"i{g.dtype.itemsize}")
    ones = np.negative(np.asarray(np.asarray(y) != 0).view(np.int8), dtype=bits)
    if out is not None:
        target = out.view(bits)
    else:  # (the mask's array, when it has the result's shape: not a 0-d one, nor a vmap's)
        target = ones if type(ones) is np.ndarray and ones.shape == g.shape else None
    return np.bitwise_and(g.view(bits), ones, out=target).view(g.dtype)


def _relu_backward(g, y):
    return relu_backward_into(g, y)


def relu_backward(g, y):
    """g where y (relu's output) isn't 0, else 0; on arrays (a plain backward pass), `impl`."""
    if type(g) is np.ndarray and type(y) is np.ndarray:
        return _relu_backward(g, y)
    return apply(relu_backward_p, g, y)


relu_backward_p = Primitive(
    "relu_backward", _relu_backward,
    vjp=(lambda out_bar, out, g, y: relu_backward(out_bar, y), lambda out_bar, out, g, y: None),
    jvp=lambda tangents, out, g, y: None if tangents[0] is None else relu_backward(
        tangents[0], y),
    saves_inputs=((1,), ()), batch=broadcasting("relu_backward"), linear=(0,))

relu_p = Primitive(
    "relu", _relu_impl,
    vjp=(lambda out_bar, out, x: relu_backward(out_bar, out),),
    jvp=lambda tangents, out, x: relu_backward(tangents[0], out),
    saves_out=True, saves_inputs=False, batch=broadcasting("relu"), array_rules=True)


@tensor_method("relu")
def relu(x, inplace=False):
    """max(x, 0)."""
    refuse_kinds(x, "b", "relu")
    if inplace:
        return _apply_inplace(x, relu)
    return apply(relu_p, x)


leaky_relu_p = Primitive(
    "leaky_relu", lambda x, *, slope: np.where(x > 0, x, x * slope),
    vjp=(lambda out_bar, out, x, *, slope: where(x > 0, out_bar, out_bar * slope),),
    jvp=lambda tangents, out, x, *, slope: where(x > 0, tangents[0], tangents[0] * slope),
    batch=broadcasting("leaky_relu"))


def leaky_relu(x, negative_slope=0.01, inplace=False):
    """x for x > 0, negative_slope * x otherwise."""
    if inplace:
        return _apply_inplace(x, leaky_relu, negative_slope)
    if isinstance(negative_slope, (str, bytes)) or negative_slope is None:
        raise TypeError(f"leaky_relu(): negative_slope must be a number, got "
                        f"{type(negative_slope).__name__} {negative_slope!r}")
    return apply(leaky_relu_p, float_result(x), slope=float(negative_slope))


def _elu(x, *, alpha, scale, input_scale):
    negative = np.minimum(x, 0)
    if input_scale != 1:
        negative = negative * input_scale
    out = np.where(x > 0, x, alpha * np.expm1(negative))
    return out if scale == 1 else out * scale


def _elu_slope(x, out, alpha, scale, input_scale):
    # below 0, out = scale * alpha * (exp(input_scale * x) - 1)
    return where(x > 0, scale, input_scale * (out + alpha * scale))


elu_p = Primitive(
    "elu", _elu,
    vjp=(lambda out_bar, out, x, **params: out_bar * _elu_slope(x, out, **params),),
    jvp=lambda tangents, out, x, **params: tangents[0] * _elu_slope(x, out, **params),
    saves_out=True,
    batch=broadcasting("elu"))


def elu(x, alpha=1.0, inplace=False):
    """x for x > 0, alpha * (exp(x) - 1) otherwise."""
    if inplace:
        return _apply_inplace(x, elu, alpha)
    return apply(elu_p, float_result(x), alpha=float(alpha), scale=1.0, input_scale=1.0)


def selu(x, inplace=False, *, scale=_SELU_SCALE, alpha=_SELU_ALPHA):
    """scale * elu(x, alpha), with the self-normalising constants by default."""
    if not isinstance(x, Tensor):
        refuse_python_value(x, "selu")
    if inplace:
        return _apply_inplace(x, selu, scale=scale, alpha=alpha)
    return apply(elu_p, float_result(x), alpha=float(alpha), scale=float(scale),
                 input_scale=1.0)


def celu(x, alpha=1.0, inplace=False):
    """x for x > 0, alpha * (exp(x / alpha) - 1) otherwise."""
    if not isinstance(x, Tensor):
        refuse_python_value(x, "celu")
    if inplace:
        return _apply_inplace(x, celu, alpha)
    alpha = float(alpha)
    if alpha == 0:
        raise ValueError("celu: alpha must not be 0")
    return apply(elu_p, float_result(x), alpha=alpha, scale=1.0, input_scale=1 / alpha)


# --- smooth ReLUs -----------------------------------------------------------------------
def _gelu(x, *, approximate):
    if approximate == "tanh":
        return 0.5 * x * (1 + np.tanh(_SQRT_2_OVER_PI * (x + _GELU_CUBIC * x * x * x)))
    # x * Phi(x), with Phi from erfc so that it keeps its precision far below 0
    return 0.5 * x * _special.erfc(x * -_SQRT_HALF)


def _gelu_slope(x, approximate):
    if approximate == "tanh":
        t = tanh(_SQRT_2_OVER_PI * (x + _GELU_CUBIC * x * x * x))
        return 0.5 * (1 + t) + (0.5 * _SQRT_2_OVER_PI) * x * (1 - t * t) * (
            1 + (3 * _GELU_CUBIC) * x * x)
    return 0.5 * erfc(x * -_SQRT_HALF) + _INV_SQRT_2PI * x * exp(-0.5 * x * x)


gelu_p = Primitive(
    "gelu", _gelu,
    vjp=(lambda out_bar, out, x, *, approximate: out_bar * _gelu_slope(x, approximate),),
    jvp=lambda tangents, out, x, *, approximate: tangents[0] * _gelu_slope(x, approximate),
    batch=broadcasting("gelu"))


def gelu(x, approximate="none"):
    """x * Phi(x), Phi the standard normal CDF; approximate='tanh' for the tanh formula
    (PaddlePaddle's approximate=True)."""
    if approximate is True or approximate is False:
        approximate = "tanh" if approximate else "none"
    if approximate not in ("none", "tanh"):
        raise ArgumentError(f"gelu: approximate must be 'none' or 'tanh', not {approximate!r}")
    refuse_kinds(x, "biu", "gelu")
    return apply(gelu_p, float_result(x), approximate=approximate)


def _silu_slope(x):
    s = sigmoid(x)
    return s * (1 + x * (1 - s))


silu_p = Primitive(
    "silu", lambda x: x * _sigmoid(x),
    vjp=(lambda out_bar, out, x: out_bar * _silu_slope(x),),
    jvp=lambda tangents, out, x: tangents[0] * _silu_slope(x),
    batch=broadcasting("silu"))


def silu(x, inplace=False):
    """x * sigmoid(x) (also called swish)."""
    if inplace:
        return _apply_inplace(x, silu)
    return apply(silu_p, float_result(x))


def _softplus(x, *, beta, threshold):
    z = x if beta == 1 else x * beta
    soft = np.logaddexp(0, z)
    return np.where(z > threshold, x, soft if beta == 1 else soft / beta)


def _softplus_slope(x, beta, threshold):
    z = x if beta == 1 else x * beta
    return where(z > threshold, 1.0, sigmoid(z))


softplus_p = Primitive(
    "softplus", _softplus,
    vjp=(lambda out_bar, out, x, *, beta, threshold:
         out_bar * _softplus_slope(x, beta, threshold),),
    jvp=lambda tangents, out, x, *, beta, threshold:
        tangents[0] * _softplus_slope(x, beta, threshold),
    batch=broadcasting("softplus"))


def softplus(x, beta=1.0, threshold=20.0):
    """log(1 + exp(beta * x)) / beta, and x itself where beta * x > threshold."""
    return apply(softplus_p, float_result(x), beta=float(beta), threshold=float(threshold))


def mish(x, inplace=False):
    """x * tanh(softplus(x))."""
    if inplace:
        return _apply_inplace(x, mish)
    return x * tanh(softplus(x))


# --- hard, piecewise linear ---------------------------------------------------------------
hardtanh_p = Primitive(
    "hardtanh", lambda x, *, lo, hi: np.minimum(np.maximum(x, lo), hi),
    vjp=(lambda out_bar, out, x, *, lo, hi:
         where(logical_and(x > lo, x < hi), out_bar, 0.0),),
    jvp=lambda tangents, out, x, *, lo, hi: where(logical_and(x > lo, x < hi), tangents[0], 0.0),
    batch=broadcasting("hardtanh"))


def hardtanh(x, min_val=-1.0, max_val=1.0, inplace=False):
    """x clamped to [min_val, max_val], with zero gradient on the boundaries."""
    if inplace:
        return _apply_inplace(x, hardtanh, min_val, max_val)
    if min_val > max_val:
        raise ValueError(f"hardtanh: min_val ({min_val}) must not be greater than max_val "
                         f"({max_val})")
    if isinstance(x, Tensor) and x._data.dtype.kind in "iu":  # integers stay integers (torch)
        return clamp(x, int(min_val), int(max_val))
    return apply(hardtanh_p, float_result(x), lo=float(min_val), hi=float(max_val))


def relu6(x, inplace=False):
    """min(max(x, 0), 6)."""
    return hardtanh(x, 0.0, 6.0, inplace)


def hardsigmoid(x, inplace=False):
    """relu6(x + 3) / 6."""
    if inplace:
        return _apply_inplace(x, hardsigmoid)
    return hardtanh(x + 3, 0.0, 6.0) / 6


def hardswish(x, inplace=False):
    """x * hardsigmoid(x)."""
    if inplace:
        return _apply_inplace(x, hardswish)
    return x * hardsigmoid(x)


def softsign(x):
    """x / (1 + |x|)."""
    return x / (1 + abs(x))


def tanhshrink(x):
    """x - tanh(x)."""
    return x - tanh(x)


def _apply_inplace(x, op, *args, **kwargs):
    # `inplace=True`, as PyTorch's functional activations take it
    from .inplace import apply_inplace
    return apply_inplace(x, op, *args, **kwargs)
