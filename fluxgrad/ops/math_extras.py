"""PyTorch's remaining elementwise functions, as composites of fluxgrad ops (their gradients,
forward mode and vmap come from the ops they are made of) or, for the integer and
bit-level ones (gcd, lcm, heaviside, isin), as ops without gradient; nextafter passes its
gradient to x unchanged and frexp's mantissa is x * 2**-exponent (as PyTorch's).

Gradients follow PyTorch's formulas: fmax/fmin send the whole gradient to the input taken
(to the first on ties), xlogy is 0 in x where x == 0, hypot's is x / hypot.
"""
import collections
import math

import numpy as np

from .._core import dtypes
from .._core.batching import BatchedTensor
from .._core.dispatch import apply
from .._core.errors import DTypeError, refuse_python_value
from .._core.primitive import Primitive
from .._core.static_mode import state as _static_state
from .._core.tensor import Tensor, as_array, tensor_method
from ._batch import front
from ._family import binary, float_result, promote, refuse_kinds
from .elementwise import (abs, cast, eq, isinf, isnan, log, logaddexp, logical_not,
                          logical_or, maximum, no_grad_primitive, sign, sign_p, sqrt, where)
from .reduce import any as any_, sum as _sum
from .shape import broadcast_to, reshape, stack
from .special_functions import lgamma

__all__ = ["rsub", "absolute", "positive", "sgn", "float_power", "fmax", "fmin", "frexp", "gcd",
           "lcm", "heaviside", "hypot", "ldexp", "logaddexp2", "nextafter", "xlogy", "isneginf",
           "isposinf", "isreal", "isin", "mvlgamma"]

_LN2 = math.log(2.0)


def refuse_value_reads(op, *tensors):
    """Refuse an op that reads the values of a tensor (its result's shape or positions depend
    on them) where those values are not there to read: a tensor that differs between the
    examples of a vmap batch, or a value of a program being built (static mode, compile)."""
    for t in tensors:
        if type(t) is BatchedTensor:
            raise RuntimeError(
                f"vmap: {op} reads the values of a tensor of shape {list(t.shape)} that differs "
                "between the examples of the batch, so it cannot be vmapped; call it on each "
                "example outside vmap")
        if _static_state.armed and getattr(t, "program", None) is not None:
            raise NotImplementedError(
                f"{op} reads the values of a tensor of shape {list(t.shape)} that is a value of "
                "the program being built (static mode, or a function traced by "
                "fluxgrad.compile): its result would be frozen at tracing. Call it outside the "
                "program, on concrete tensors")


def as_operand(x):
    """`x` as a tensor (a number or nested list with PyTorch's default dtypes)."""
    return x if isinstance(x, Tensor) else Tensor._make(as_array(x))

absolute = abs
sgn = sign


def rsub(x, other, *, alpha=1):
    """other - alpha * x."""
    return other - (x if alpha == 1 else x * alpha)


@tensor_method("positive")
def positive(x):
    """x itself (refused for bool tensors, as PyTorch's unary +)."""
    refuse_python_value(x, "positive")
    if x._data.dtype == np.bool_:
        raise RuntimeError("positive: the unary + is not supported on a bool tensor; use "
                           "logical_not / bitwise ops for truth values")
    return x


@tensor_method("float_power")
def float_power(x, y):
    """x ** y computed in float64 (the result is float64)."""
    x, y = (cast(v, dtypes.float64) if isinstance(v, Tensor) else float(v) for v in (x, y))
    if not isinstance(x, Tensor) and not isinstance(y, Tensor):
        x = Tensor(np.float64(x))
    return x ** y


@tensor_method("fmax")
def fmax(x, y):
    """The elementwise larger of x and y, where a NaN loses to a number (both NaN: NaN)."""
    x, y = promote(x, y)
    return where(logical_or(x >= y, isnan(y)), x, y)


@tensor_method("fmin")
def fmin(x, y):
    """The elementwise smaller of x and y, where a NaN loses to a number (both NaN: NaN)."""
    x, y = promote(x, y)
    return where(logical_or(x <= y, isnan(y)), x, y)


FrexpResult = collections.namedtuple("frexp", ["mantissa", "exponent"])


@tensor_method("frexp")
def frexp(x):
    """(mantissa, exponent) with x = mantissa * 2**exponent, |mantissa| in [0.5, 1); the
    exponent is int32. Floating tensors only."""
    refuse_python_value(x, "frexp")
    refuse_value_reads("frexp", x)
    if x._data.dtype.kind != "f":
        raise DTypeError(f"frexp: expected a floating tensor, got {x.dtype}; convert it with "
                         ".float() first")
    exponent = np.asarray(np.frexp(x._data)[1])  # (a NumPy scalar for a 0-d x: an array)
    # mantissa = x * 2**-exponent, differentiable in x as torch's; the power split in two
    # factors that stay finite (a subnormal x has an exponent below -1021)
    half = exponent // 2
    mantissa = x
    for power in (-half, half - exponent):
        mantissa = mantissa * Tensor._make(np.ldexp(np.ones((), x._data.dtype), power))
    return FrexpResult(mantissa, Tensor._make(exponent.astype(np.int32)))


def _integer_binary(name, np_fn):
    prim = no_grad_primitive(name, np_fn)

    def op(x, y):
        x, y = promote(x, y)
        for v in (x, y):
            if isinstance(v, Tensor) and v._data.dtype.kind not in "iu":
                raise NotImplementedError(f"{name}: defined for integer tensors, not "
                                          f"{v.dtype}; convert with .long() first")
        return apply(prim, x, y)
    op.__name__ = name
    op.__doc__ = f"Elementwise {name} of integer tensors (no gradient)."
    return tensor_method(name)(op)


gcd = _integer_binary("gcd", np.gcd)
lcm = _integer_binary("lcm", np.lcm)
_heaviside_p = no_grad_primitive("heaviside", lambda x, v: np.where(x == 0, v, x > 0).astype(
    np.result_type(x, v)))


@tensor_method("heaviside")
def heaviside(x, values):
    """0 where x < 0, 1 where x > 0, `values` where x == 0 (x and values of one dtype)."""
    x, values = as_operand(x), as_operand(values)
    if x._data.dtype != values._data.dtype:
        raise DTypeError(f"heaviside is not yet implemented for tensors with different dtypes "
                         f"({x.dtype} and {values.dtype}); convert one with .to()")
    return apply(_heaviside_p, x, values)


@tensor_method("hypot")
def hypot(x, y):
    """sqrt(x**2 + y**2) without overflow or underflow in the squares."""
    x, y = promote(x, y)
    refuse_kinds(as_operand(x), "biu", "hypot")
    x, y = float_result(as_operand(x)), float_result(as_operand(y))
    # hypot is homogeneous of degree 1, so the (constant) scale carries no gradient
    scale = maximum(abs(x), abs(y)).detach()
    scale = where(eq(scale, 0), 1.0, scale)
    return scale * sqrt((x / scale) ** 2 + (y / scale) ** 2)


@tensor_method("ldexp")
def ldexp(x, other):
    """x * 2**other (a floating result)."""
    return float_result(as_operand(x)) * 2.0 ** float_result(as_operand(other))


@tensor_method("logaddexp2")
def logaddexp2(x, y):
    """log2(2**x + 2**y), without overflow."""
    x, y = promote(x, y)
    for v in (x, y):
        refuse_kinds(v, "biu", "logaddexp2")
    x, y = float_result(as_operand(x)), float_result(as_operand(y))
    return logaddexp(x * _LN2, y * _LN2) / _LN2


# as torch: the gradient passes to x unchanged, none to y (sign(out)**2 * 0: zeros of out's
# shape, also where out is infinite)
_nextafter_p = binary("nextafter", np.nextafter,
                      lambda x, y, out: apply(sign_p, out) ** 2 * 0.0 + 1.0,
                      lambda x, y, out: apply(sign_p, out) ** 2 * 0.0, saves_out=True,
                      saves_inputs=False)


@tensor_method("nextafter")
def nextafter(x, y):
    """The next floating-point value after x towards y; its gradient is 1 in x, 0 in y (as
    torch's)."""
    x, y = promote(x, y)
    for v in (x, y):
        refuse_kinds(v, "biu", "nextafter")
    return apply(_nextafter_p, x, y)


@tensor_method("xlogy")
def xlogy(x, y):
    """x * log(y), and 0 where x == 0 (unless y is NaN). The gradient in x is log(y), also
    where x == 0 (PyTorch's); at x == 0 with y 0 or inf it is 0."""
    x, y = promote(x, y)
    x, y = float_result(as_operand(x)), float_result(as_operand(y))
    x, y = promote(x, y)  # (a number given keeps the tensor's dtype: float16 stays float16)
    log_y = log(y)
    zero = eq(x, 0) & isinf(log_y)
    return where(zero, 0.0, x * where(zero, 0.0, log_y))


@tensor_method("isneginf")
def isneginf(x):
    """Where x is -inf, a bool tensor."""
    refuse_python_value(x, "isneginf")
    return eq(x, -math.inf) if x._data.dtype.kind == "f" else _nowhere(x)


@tensor_method("isposinf")
def isposinf(x):
    """Where x is +inf, a bool tensor."""
    refuse_python_value(x, "isposinf")
    return eq(x, math.inf) if x._data.dtype.kind == "f" else _nowhere(x)


def _nowhere(x):
    return Tensor._make(np.zeros(x._data.shape, dtype=bool))


@tensor_method("isreal")
def isreal(x):
    """True everywhere (fluxgrad has no complex dtypes), a bool tensor."""
    refuse_python_value(x, "isreal")
    return Tensor._make(np.ones(x._data.shape, dtype=bool))


def _isin_batch(bdims, x, test, *, invert):
    if bdims[1] is None:
        return apply(_isin_p, x, test, invert=invert), bdims[0]
    size = test.shape[bdims[1]]
    test = reshape(front(test, bdims[1]), (size, -1))
    x = front(x, bdims[0]) if bdims[0] is not None else broadcast_to(x, (size,) + x.shape)
    lead = x.shape
    # each example's x against that example's test elements, along a last dimension
    hits = any_(eq(reshape(x, lead + (1,)),
                      reshape(test, (size,) + (1,) * (len(lead) - 1) + (-1,))), -1)
    return (logical_not(hits) if invert else hits), 0


_isin_p = Primitive("isin", lambda x, test, *, invert: np.isin(x, test, invert=invert),
                    batch=_isin_batch)


def isin(elements, test_elements, *, assume_unique=False, invert=False):
    """Where each of `elements` occurs in `test_elements`, a bool tensor of elements' shape."""
    elements, test_elements = as_operand(elements), as_operand(test_elements)
    refuse_kinds(elements, "b", "isin", DTypeError)
    return apply(_isin_p, elements, test_elements, invert=bool(invert))


@tensor_method("mvlgamma")
def mvlgamma(x, p):
    """The log of the multivariate gamma function of dimension p:
    sum_j lgamma(x - j / 2) + p (p - 1) / 4 log(pi)."""
    if isinstance(p, bool) or not isinstance(p, (int, np.integer)) or p < 1:
        raise RuntimeError(f"mvlgamma: p has to be greater than or equal to 1, got {p!r}")
    x = float_result(x)
    terms = stack([lgamma(x - j / 2) for j in range(int(p))], 0)
    return _sum(terms, 0) + p * (p - 1) / 4 * math.log(math.pi)
