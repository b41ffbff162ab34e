"""Elementwise ops: arithmetic, powers, exponentials and logs, trigonometry, rounding,
clamping and selection, comparisons.

Broadcasting follows NumPy; the engine sums a broadcast operand's cotangent
back to its shape, so the rules here are written for equal shapes. Dtypes
promote as in PyTorch; floating functions (exp, sin, true division, ...) turn
integer and bool inputs into float32. Derivatives at kinks are PyTorch's
subgradients: |x|' = 0 at 0, clamp passes the gradient on its boundary, ties
of maximum/minimum split it evenly; rounding has zero gradient.
"""
import math
import numbers

import numpy as np

from .._core import devices, dtypes
from .._core.dispatch import apply
from .._core.errors import (ArgumentError, DTypeError, DTypeNotImplemented,
                            IntegerDivisionByZero, ShapeError, UnknownDTypeName)
from .._core.primitive import Primitive
from .._core.tensor import Tensor, is_scalar, tensor_method
from ..creation import zeros_like
from ..memory_format import preserve_format
from . import _special
from ._batch import broadcasting
from ._conj import conj_rule, refuse_complex
from ._family import (binary, cast_to, dtype_of, elementwise, float_result, from_output,
                      fused_backward, promote, promote_all, refuse_kinds, refuse_python_value)

__all__ = ["cast", "add", "subtract", "multiply", "divide", "negative", "pow", "square", "exp",
           "exp2", "log", "log2", "log10", "log1p", "expm1", "sqrt", "rsqrt", "reciprocal", "sin",
           "cos", "tan", "asin", "acos", "atan", "atan2", "sinh", "cosh", "tanh", "asinh", "acosh",
           "atanh", "arcsin", "arccos", "arctan", "arctan2", "arcsinh", "arccosh", "arctanh",
           "erf", "erfc", "abs", "sign", "floor", "ceil", "round", "trunc", "fix", "frac", "clamp",
           "clip", "clamp_min", "clamp_max", "maximum", "minimum", "where", "lerp", "logaddexp",
           "addcmul", "addcdiv", "equal", "not_equal", "less", "less_equal", "greater",
           "greater_equal", "eq", "ne", "lt", "le", "gt", "ge", "less_than", "greater_than", "mod",
           "floor_mod", "isnan", "isinf", "isfinite", "floor_divide", "remainder", "fmod",
           "logical_not", "logical_and", "logical_or", "logical_xor", "bitwise_and", "bitwise_or",
           "bitwise_xor", "bitwise_not", "bitwise_left_shift", "bitwise_right_shift", "sub", "mul",
           "div", "true_divide", "neg", "isclose", "allclose", "nan_to_num", "signbit", "copysign",
           "rad2deg", "deg2rad", "sinc"]

_LN2 = math.log(2.0)
_LN10 = math.log(10.0)
_TWO_OVER_SQRT_PI = 2 / math.sqrt(math.pi)


# --- dtype conversion -------------------------------------------------------------------
cast_p = Primitive(
    "cast", lambda x, *, dtype: (x.real if x.dtype.kind == "c" and not dtype.is_complex else
                                 x).astype(dtype.np),
    vjp=(lambda out_bar, out, x, *, dtype: cast(out_bar, x.dtype),),
    jvp=lambda tangents, out, x, *, dtype: cast(tangents[0], dtype), saves_inputs=False,
    linear="all", batch=broadcasting("cast"))


@tensor_method("astype")
def cast(x, dtype):
    """`x` converted to `dtype` (a differentiable op between floating dtypes)."""
    dtype = dtypes.as_dtype(dtype)
    if x._data.dtype == dtype.np:
        return x
    if dtype.category < 2:
        return apply(cast_p, x.detach(), dtype=dtype)
    return apply(cast_p, x, dtype=dtype)


@tensor_method("to")
def to(x, *args, dtype=None, device=None, copy=False, non_blocking=False, memory_format=None):
    """PyTorch's `to`: a dtype, another tensor's dtype, or a device ('cpu', the only one),
    then (positionally, as torch's) non_blocking and copy; `memory_format` lays it out."""
    flags = [arg for arg in args if isinstance(arg, bool)]
    copy = copy or flags[1:2] == [True]
    for arg in args + ((device,) if device is not None else ()):
        if isinstance(arg, bool):
            continue
        if isinstance(arg, Tensor):
            dtype = arg.dtype
        elif devices.is_device(arg):
            devices.check_device(arg, "Tensor.to")
        else:
            dtype = arg
    try:
        out = x if dtype is None else cast(x, dtype)
    except UnknownDTypeName as err:
        raise UnknownDTypeName(f"Tensor.to: {err}; nor is it a device (fluxgrad runs on "
                               "'cpu')") from None
    out = out.clone() if copy and out is x else out
    if memory_format is None or memory_format is preserve_format:
        return out
    from .shape import to_memory_format
    return to_memory_format(out, memory_format)


for _name, _dtype in (("float", dtypes.float32), ("double", dtypes.float64),
                      ("long", dtypes.int64), ("int", dtypes.int32), ("bool", dtypes.bool_)):
    setattr(Tensor, _name, lambda self, memory_format=None, _dtype=_dtype: cast(self, _dtype))
Tensor.type_as = lambda self, other: cast(self, other.dtype)
Tensor.cpu = lambda self, memory_format=None: self
Tensor.cuda = lambda self, *args, **kwargs: devices.refuse_accelerator("Tensor.cuda()")


# --- arithmetic -------------------------------------------------------------------------
add_p = Primitive(
    "add", np.add,
    vjp=(lambda out_bar, out, x, y: out_bar, lambda out_bar, out, x, y: out_bar),
    jvp=lambda tangents, out, x, y: _sum_tangents(tangents[0], tangents[1]),
    saves_inputs=False,
    linear="all", batch=broadcasting("add"), array_rules=True)

subtract_p = Primitive(
    "sub", np.subtract,
    vjp=(lambda out_bar, out, x, y: out_bar, lambda out_bar, out, x, y: -out_bar),
    jvp=lambda tangents, out, x, y: _sum_tangents(
        tangents[0], None if tangents[1] is None else -tangents[1]),
    saves_inputs=False,
    linear="all", batch=broadcasting("sub"), array_rules=True)

multiply_p = Primitive(
    "mul", np.multiply,
    vjp=(lambda out_bar, out, x, y: out_bar * conj_rule(y),
         lambda out_bar, out, x, y: out_bar * conj_rule(x)),
    jvp=lambda tangents, out, x, y: _sum_tangents(
        None if tangents[0] is None else tangents[0] * y,
        None if tangents[1] is None else tangents[1] * x),
    saves_inputs="others", linear="each", batch=broadcasting("mul"), array_rules=True)

# The rules recompute out = x / y instead of keeping it (as PyTorch's), so that writing to
# the quotient in place before backward is allowed.
divide_p = Primitive(
    "div", np.true_divide,
    vjp=(lambda out_bar, out, x, y: out_bar / conj_rule(y),
         lambda out_bar, out, x, y: -out_bar * conj_rule(x / y / y)),
    jvp=lambda tangents, out, x, y: _sum_tangents(
        tangents[0], None if tangents[1] is None else -tangents[1] * (x / y)) / y,
    saves_inputs=((1,), (0, 1)), linear=(0,), batch=broadcasting("div"), array_rules=True)

negative_p = Primitive(
    "neg", np.negative,
    vjp=(lambda out_bar, out, x: -out_bar,),
    jvp=lambda tangents, out, x: -tangents[0], saves_inputs=False,
    linear="all", batch=broadcasting("neg"), array_rules=True)


def _pow_dx(x, y):
    # x**0 is constant, also at x == 0 where y * x**(y - 1) would be 0 * inf
    if isinstance(y, (Tensor, np.ndarray)):
        return _op_or_impl(where, where_p, y == 0, 0.0, y * x ** (y - 1))
    if y == 0:
        return zeros_like_rule(x) if isinstance(x, Tensor) else np.zeros_like(x)
    return x + x if y == 2 else y * x ** (y - 1)  # (x + x: no scalar to convert)


def _pow_dy(x, y, out):
    # d(x**y)/dy = x**y log x; where x == 0, PyTorch's values: 0 for y >= 0 (the limit from
    # above), inf * log 0 = -inf for y < 0 (a constant here, so that no rule of this rule
    # multiplies a zero cotangent by inf)
    if not isinstance(x, (Tensor, np.ndarray)):
        if x > 0:
            return out * math.log(x)
        x = Tensor._make(np.asarray(x, y._data.dtype)) if isinstance(y, Tensor) else \
            np.asarray(x, y.dtype)
    zero = x == 0
    log_x = _op_or_impl(log, log_p, _op_or_impl(where, where_p, zero, 1.0, x))
    if y.dtype.is_complex if isinstance(y, Tensor) else y.dtype.kind == "c":
        return _op_or_impl(where, where_p, zero, 0.0, out * log_x)  # (PyTorch's, at x == 0)
    return _op_or_impl(where, where_p, zero, _op_or_impl(where, where_p, y >= 0, 0.0, -math.inf),
                       out * log_x)


def _op_or_impl(op, prim, *operands):
    """`op(*operands)`; on arrays alone (pow's rules in a backward pass that records nothing,
    or in untaped forward mode) the record's `impl`, as the array rules of the families."""
    for x in operands:
        if isinstance(x, Tensor):
            return op(*operands)
    return prim.impl(*operands)


def _power(x, y):
    try:
        return np.power(x, y)
    except ValueError:  # integers to negative integer powers: 1 / x**-y truncated, as PyTorch
        out = np.power(x, np.where(np.less(y, 0), 0, y))
        odd = np.equal(np.remainder(y, 2), 1)
        reciprocal = np.where(np.equal(x, 1), 1,
                              np.where(np.equal(x, -1), np.where(odd, -1, 1), 0))
        return np.where(np.less(y, 0), reciprocal, out).astype(out.dtype)


pow_p = Primitive(
    "pow", _power,
    vjp=(lambda out_bar, out, x, y: out_bar * conj_rule(_pow_dx(x, y)),
         lambda out_bar, out, x, y: out_bar * conj_rule(_pow_dy(x, y, out))),
    jvp=lambda tangents, out, x, y: _sum_tangents(
        None if tangents[0] is None else tangents[0] * _pow_dx(x, y),
        None if tangents[1] is None else tangents[1] * _pow_dy(x, y, out)),
    saves_out=(False, True),
    batch=broadcasting("pow"), array_rules=True)


def _sum_tangents(*terms):
    """The sum of the tangents that are not None (None if all are)."""
    total = None
    for t in terms:
        if t is not None:
            total = t if total is None else total + t
    return total


@tensor_method("add", "__add__")
def add(x, y, *, alpha=1):
    """x + alpha * y."""
    if alpha != 1:
        return apply(add_p, *_scaled(x, y, alpha, "add"))
    return apply(add_p, *promote(x, y))


def _scaled(x, y, alpha, op):
    """x and alpha * y in PyTorch's result dtype of x and y (alpha doesn't promote: it is
    multiplied in that dtype, truncated to an int or bool for integral ones)."""
    if not isinstance(y, Tensor):
        bools = type(y) is bool and isinstance(x, Tensor) and x._data.dtype.kind == "b"
        return promote(x, bool(y * alpha) if bools else y * alpha)
    x, y = promote(x, y)
    if y._data.dtype.kind in "iub" and isinstance(alpha, float):
        raise DTypeError(f"{op}: for integral input tensors ({y.dtype}), alpha must not be a "
                         f"floating point number, got {alpha}")
    return x, cast_to(y * alpha, y.dtype)


_BOOL = np.dtype(np.bool_)


@tensor_method("subtract", "sub", "__sub__")
def subtract(x, y, *, alpha=1):
    """x - alpha * y."""
    if (type(x) is bool or type(y) is bool or (isinstance(x, Tensor) and x._data.dtype is _BOOL)
            or (isinstance(y, Tensor) and y._data.dtype is _BOOL)):
        raise DTypeError("Subtraction, the `-` operator, with a bool tensor is not supported, "
                         "as in PyTorch; use the `^` operator or logical_xor() for bools, or "
                         "convert first (x.long())")
    if alpha != 1:
        return apply(subtract_p, *_scaled(x, y, alpha, "sub"))
    return apply(subtract_p, *promote(x, y))


@tensor_method("multiply", "mul", "__mul__")
def multiply(x, y):
    """x * y."""
    return apply(multiply_p, *promote(x, y))


@tensor_method("divide", "div", "true_divide", "__truediv__")
def divide(x, y, *, rounding_mode=None):
    """x / y; `rounding_mode` 'trunc' or 'floor' rounds the quotient (zero gradient)."""
    if rounding_mode is None:  # a negative int divides a uint8 tensor as -2.0, not as 254
        x, y = _negative_int_as_float(x, y), _negative_int_as_float(y, x)
    x, y = promote(x, y)
    if rounding_mode is None:
        return apply(divide_p, float_result(x), float_result(y))
    if rounding_mode not in ("trunc", "floor"):
        raise ArgumentError(f"divide: rounding_mode must be None, 'trunc' or 'floor', "
                         f"not {rounding_mode!r}")
    if (x.dtype if isinstance(x, Tensor) else y.dtype).is_floating_point:
        q = apply(divide_p, x, y)
        return trunc(q) if rounding_mode == "trunc" else floor(q)
    if rounding_mode == "floor":
        return floor_divide(x, y)
    refuse_kinds(x if isinstance(x, Tensor) else y, "b", "div(rounding_mode='trunc')")
    signs = [sign(v) if isinstance(v, Tensor) else (v > 0) - (v < 0) for v in (x, y)]
    magnitudes = [apply(abs_p, v) if isinstance(v, Tensor) else v * (1 - 2 * (v < 0))
                  for v in (x, y)]
    return floor_divide(*magnitudes) * signs[0] * signs[1]


def _negative_int_as_float(v, other):
    if type(v) is int and v < 0 and isinstance(other, Tensor) and other._data.dtype.kind == "u":
        return float(v)
    return v


@tensor_method("negative", "neg", "__neg__")
def negative(x):
    """-x."""
    dtype = dtype_of(x, "negative")
    if dtype is _BOOL:
        raise DTypeError("Negation, the `-` operator, on a bool tensor is not supported, as in "
                         "PyTorch; use the `~` operator or logical_not() instead")
    return apply(negative_p, x)


@tensor_method("pow", "__pow__")
def pow(x, y):
    """x ** y, for a tensor or scalar exponent (and a scalar base: `2 ** x`)."""
    if (type(y) is int and y < 0 and isinstance(x, Tensor) and
            x._data.dtype.kind in "biu"):
        raise ArgumentError(f"pow: Integers to negative integer powers are not allowed "
                            f"({x.dtype} tensor ** {y}); convert the base first "
                            "(x.float() ** y)")
    if type(y) is bool and isinstance(x, Tensor) and x._data.dtype == np.bool_:
        return logical_or(x, not y)  # a bool result, as PyTorch: x ** True = x, x ** False = 1
    x, y = promote(x, y)
    if isinstance(y, Tensor) and y._data.dtype == np.bool_:  # (NumPy's answer is int8)
        refuse_kinds(x, "b", "pow")
    return apply(pow_p, x, y)


Tensor.__radd__ = lambda self, other: add(other, self)
Tensor.__rsub__ = lambda self, other: subtract(other, self)
Tensor.__rmul__ = lambda self, other: multiply(other, self)
Tensor.__rtruediv__ = lambda self, other: divide(other, self)
Tensor.__rpow__ = lambda self, other: pow(other, self)
Tensor.__pos__ = lambda self: self
sub, mul, div, true_divide, neg = subtract, multiply, divide, divide, negative


@tensor_method("square")
def square(x):
    """x * x."""
    dtype = dtype_of(x, "square")
    if dtype == np.bool_:
        x = cast(x, dtypes.int64)
    return x * x


@tensor_method("addcmul")
def addcmul(x, tensor1, tensor2, *, value=1):
    """x + value * tensor1 * tensor2, in the result dtype of the three tensors."""
    x, tensor1, tensor2 = promote_all(x, tensor1, tensor2)
    refuse_kinds(x, "b", "addcmul")
    return x + _value_in(value, x) * tensor1 * tensor2 if value != 1 else x + tensor1 * tensor2


@tensor_method("addcdiv")
def addcdiv(x, tensor1, tensor2, *, value=1):
    """x + value * tensor1 / tensor2, in the result dtype of the three tensors."""
    if all(isinstance(t, Tensor) and t._data.dtype.kind in "iub" for t in (tensor1, tensor2)):
        raise DTypeError(f"addcdiv: integer division of tensor1 ({tensor1.dtype}) by tensor2 "
                         f"({tensor2.dtype}) is not supported, as in PyTorch; convert them to a "
                         f"floating dtype first")
    x, tensor1, tensor2 = promote_all(x, tensor1, tensor2)
    return x + _value_in(value, x) * tensor1 / tensor2 if value != 1 else x + tensor1 / tensor2


def _value_in(value, x):
    """addcmul's `value` in x's dtype (truncated for an integral one, as PyTorch)."""
    if isinstance(x, Tensor) and x._data.dtype.kind in "iub" and is_scalar(value):
        return bool(value) if x._data.dtype.kind == "b" else int(value)
    return value


# --- unary math: f and f'(x, out) --------------------------------------------------------
def _from_out(name, impl, derivative):
    """An elementwise op whose derivative is a function of its output alone."""
    return elementwise(name, impl, lambda x, out: derivative(out), saves_out=True,
                       saves_inputs=False)


exp_p = _from_out("exp", np.exp, lambda out: out)
exp2_p = _from_out("exp2", np.exp2, lambda out: out * _LN2)
expm1_p = _from_out("expm1", np.expm1, lambda out: out + 1)
log_p = elementwise("log", np.log, lambda x, out: 1 / x)
log2_p = elementwise("log2", np.log2, lambda x, out: 1 / (x * _LN2))
log10_p = elementwise("log10", np.log10, lambda x, out: 1 / (x * _LN10))
log1p_p = elementwise("log1p", np.log1p, lambda x, out: 1 / (x + 1))
sqrt_p = _from_out("sqrt", np.sqrt, lambda out: 0.5 / out)
rsqrt_p = _from_out("rsqrt", lambda x: 1 / np.sqrt(x), lambda out: out * out * out * -0.5)
reciprocal_p = _from_out("reciprocal", np.reciprocal, lambda out: -(out * out))
sin_p = elementwise("sin", np.sin, lambda x, out: cos(x))
cos_p = elementwise("cos", np.cos, lambda x, out: -sin(x))
tan_p = _from_out("tan", np.tan, lambda out: 1 + out * out)
asin_p = elementwise("asin", np.arcsin, lambda x, out: rsqrt(1 - x * x))
acos_p = elementwise("acos", np.arccos, lambda x, out: -rsqrt(1 - x * x))
atan_p = elementwise("atan", np.arctan, lambda x, out: 1 / (1 + x * x))
sinh_p = elementwise("sinh", np.sinh, lambda x, out: cosh(x))
cosh_p = elementwise("cosh", np.cosh, lambda x, out: sinh(x))
tanh_backward_p, tanh_backward = fused_backward(
    "tanh_backward", lambda g, y: g * (1 - y * y), lambda g, y: -2 * g * y)
tanh_p = from_output("tanh", np.tanh, tanh_backward)
asinh_p = elementwise("asinh", np.arcsinh, lambda x, out: rsqrt(x * x + 1))
acosh_p = elementwise("acosh", np.arccosh, lambda x, out: rsqrt(x * x - 1))
atanh_p = elementwise("atanh", np.arctanh, lambda x, out: 1 / (1 - x * x))
erf_p = elementwise("erf", _special.erf, lambda x, out: exp(-x * x) * _TWO_OVER_SQRT_PI)
erfc_p = elementwise("erfc", _special.erfc, lambda x, out: exp(-x * x) * -_TWO_OVER_SQRT_PI)
# |x|' = sign(x): the subgradient 0 at the kink, as PyTorch
abs_p = elementwise("abs", np.abs, lambda x, out: sign(x), array_rules=False)


def _unary_float(prim, *aliases):
    def op(x):
        if type(x) is not Tensor or x._data.dtype.kind != "f":  # (a float tensor: as it is)
            refuse_python_value(x, prim.name)
            if prim in _REAL_ONLY:
                refuse_complex(x, prim.name)
            x = float_result(x)
        return apply(prim, x)
    op.__name__ = prim.name
    op.__doc__ = f"Elementwise {prim.name}(x)."
    return tensor_method(prim.name, *aliases)(op)


_REAL_ONLY = {erf_p, erfc_p}  # (PyTorch has no complex kernel of these)
exp = _unary_float(exp_p)
exp2 = _unary_float(exp2_p)
expm1 = _unary_float(expm1_p)
log = _unary_float(log_p)
log2 = _unary_float(log2_p)
log10 = _unary_float(log10_p)
log1p = _unary_float(log1p_p)
sqrt = _unary_float(sqrt_p)
rsqrt = _unary_float(rsqrt_p)
reciprocal = _unary_float(reciprocal_p)
sin = _unary_float(sin_p)
cos = _unary_float(cos_p)
tan = _unary_float(tan_p)
asin = arcsin = _unary_float(asin_p, "arcsin")
acos = arccos = _unary_float(acos_p, "arccos")
atan = arctan = _unary_float(atan_p, "arctan")
sinh = _unary_float(sinh_p)
cosh = _unary_float(cosh_p)
tanh = _unary_float(tanh_p)
asinh = arcsinh = _unary_float(asinh_p, "arcsinh")
acosh = arccosh = _unary_float(acosh_p, "arccosh")
atanh = arctanh = _unary_float(atanh_p, "arctanh")
erf = _unary_float(erf_p)
erfc = _unary_float(erfc_p)


@tensor_method("abs", "absolute", "__abs__")
def abs(x):
    """|x|, with gradient sign(x) (0 at 0); of a complex x its modulus, a real tensor."""
    refuse_kinds(x, "b", "abs")
    refuse_python_value(x, "abs")
    if x._data.dtype.kind == "c":
        from .complex import complex_abs  # (complex builds on this module)
        return complex_abs(x)
    return apply(abs_p, x)


def _atan2_scale(x, y):
    # 1 / (x^2 + y^2), taken as 0 at the origin, as PyTorch
    r = x * x + y * y
    origin = r == 0
    return where(origin, 0.0, 1 / where(origin, 1.0, r))


atan2_p = binary("atan2", np.arctan2, lambda x, y, out: y * _atan2_scale(x, y),
                 lambda x, y, out: -x * _atan2_scale(x, y))


@tensor_method("atan2", "arctan2")
def atan2(x, y):
    """The angle of the point (y, x): atan(x / y) in the right quadrant (x is the ordinate)."""
    x, y = promote(x, y)
    refuse_complex(x if isinstance(x, Tensor) else y, "atan2")
    return apply(atan2_p, float_result(x), float_result(y))


arctan2 = atan2

logaddexp_p = binary("logaddexp", np.logaddexp, lambda x, y, out: exp(x - out),
                     lambda x, y, out: exp(y - out), saves_out=True)


@tensor_method("logaddexp")
def logaddexp(x, y):
    """log(exp(x) + exp(y)), without overflow."""
    x, y = promote(x, y)
    for v in (x, y):
        refuse_kinds(v, "biu", "logaddexp")
    return apply(logaddexp_p, float_result(x), float_result(y))


# --- piecewise constant: zero gradient ------------------------------------------------------
def zeros_like_rule(x):
    return zeros_like(x)  # an op, not np.zeros_like: a static program keeps x's unknown sizes


def _piecewise_constant(name, impl):
    return Primitive(name, impl, vjp=(lambda out_bar, out, x, **params: zeros_like_rule(x),),
                     jvp=lambda tangents, out, x, **params: zeros_like_rule(x),
                     saves_inputs=False,
    batch=broadcasting(name))


def _sign(x):
    out = np.sign(x)
    return np.where(np.isnan(x), 0, out).astype(out.dtype) if out.dtype.kind == "f" else out


sign_p = _piecewise_constant("sign", _sign)  # 0 at NaN, as PyTorch
floor_p = _piecewise_constant("floor", np.floor)
ceil_p = _piecewise_constant("ceil", np.ceil)
trunc_p = _piecewise_constant("trunc", np.trunc)
round_p = _piecewise_constant("round", lambda x, *, decimals: np.round(x, decimals))


@tensor_method("sign", "sgn")
def sign(x):
    """-1, 0 or 1 by the sign of x (zero gradient)."""
    dtype = dtype_of(x, "sign")
    if dtype == np.bool_:
        return _copy(x)
    return apply(sign_p, x)


def _rounding(prim, *aliases):
    def op(x):
        kind = dtype_of(x, prim.name).kind
        if kind != "f":
            refuse_kinds(x, "b", prim.name)
            refuse_complex(x, prim.name)
            return _copy(x)
        return apply(prim, x)
    op.__name__ = prim.name
    op.__doc__ = f"Elementwise {prim.name}(x) (zero gradient; integer tensors are unchanged)."
    return tensor_method(prim.name, *aliases)(op)


floor = _rounding(floor_p)
ceil = _rounding(ceil_p)
trunc = fix = _rounding(trunc_p, "fix")


@tensor_method("round")
def round(x, decimals=0):
    """Round half to even, to `decimals` decimal places (zero gradient)."""
    kind = dtype_of(x, "round").kind
    if kind != "f":
        refuse_kinds(x, "b", "round")
        refuse_complex(x, "round")
        return _copy(x)
    return apply(round_p, x, decimals=int(decimals))


@tensor_method("frac")
def frac(x):
    """x - trunc(x): the fractional part, with the sign of x."""
    refuse_kinds(x, "biu", "frac")
    return x - trunc(x)


def _copy(x):
    from .shape import clone
    return clone(x)


# --- comparisons, logic and integer arithmetic: no gradient ------------------------------
def no_grad_primitive(name, impl):
    """A primitive without derivative rules (its output is never part of the graph)."""
    return Primitive(name, impl, batch=broadcasting(name))


def _no_grad_binary(np_fn, name, *dunders):
    prim = no_grad_primitive(name, np_fn)

    def op(x, y):
        return apply(prim, *promote(x, y))
    op.__name__ = name
    return tensor_method(name, *dunders)(op)


def _ordering(np_fn, name, *dunders):
    """A comparison by order, refused for complex operands as PyTorch refuses it."""
    prim = no_grad_primitive(name, np_fn)

    def op(x, y):
        x, y = promote(x, y)
        refuse_complex(x if isinstance(x, Tensor) else y, name)
        return apply(prim, x, y)
    op.__name__ = name
    return tensor_method(name, *dunders)(op)


eq = _no_grad_binary(np.equal, "equal", "__eq__", "eq")  # Tensor.equal: torch's, below
not_equal = _no_grad_binary(np.not_equal, "not_equal", "__ne__", "ne")
less = _ordering(np.less, "less", "__lt__", "lt", "less_than")
less_equal = _ordering(np.less_equal, "less_equal", "__le__", "le")
greater = _ordering(np.greater, "greater", "__gt__", "gt", "greater_than")
greater_equal = _ordering(np.greater_equal, "greater_equal", "__ge__", "ge")
# x == None is False and x != None is True, as PyTorch (so `x in [None, ...]` works)
Tensor.__eq__ = lambda self, other: False if other is None else eq(self, other)
Tensor.__ne__ = lambda self, other: True if other is None else not_equal(self, other)
logical_and = _no_grad_binary(np.logical_and, "logical_and")
logical_or = _no_grad_binary(np.logical_or, "logical_or")
logical_xor = _no_grad_binary(np.logical_xor, "logical_xor")
ne, lt, le, gt, ge = not_equal, less, less_equal, greater, greater_equal
less_than, greater_than = less, greater


def _predicate(np_fn, name):
    prim = no_grad_primitive(name, np_fn)

    def op(x):
        refuse_python_value(x, name)
        return apply(prim, x)
    op.__name__ = name
    op.__doc__ = f"Elementwise {name}(x), a bool tensor."
    return tensor_method(name)(op)


logical_not = _predicate(np.logical_not, "logical_not")
signbit = _predicate(np.signbit, "signbit")
logical_not.__doc__ = "Elementwise not, a bool tensor."
signbit.__doc__ = "Where the sign bit of x is set (negative numbers and -0.0), a bool tensor."
isnan = _predicate(np.isnan, "isnan")
isinf = _predicate(np.isinf, "isinf")
isfinite = _predicate(np.isfinite, "isfinite")


# --- integer division -------------------------------------------------------------------------
def _integer_division(name, np_fn):
    """`np_fn` refusing an integer divisor of 0, as PyTorch does (NumPy gives 0 and warns),
    and two bool operands (PyTorch has no bool kernel; NumPy's answer is int8)."""
    def impl(x, y):
        if getattr(x, "dtype", None) == np.bool_ and np.result_type(y) == np.bool_:
            raise DTypeNotImplemented(f"{name} is not implemented for bool tensors, as in "
                                      "PyTorch; convert first (x.long())")
        if _integral_array(x) and _integral_array(y) and np.any(np.equal(y, 0)) and (
                np.broadcast(x, y).size):
            raise IntegerDivisionByZero(
                f"{name}: integer division by zero (the divisor holds 0); convert to a "
                "floating dtype first (x.float()) to get inf / nan instead")
        return np_fn(x, y)
    impl.__name__ = name
    return impl


def _integral_array(x):
    return isinstance(x, (int, np.integer)) or getattr(x, "dtype", np.dtype(float)).kind in "iub"


floor_divide = _no_grad_binary(_integer_division("floor_divide", np.floor_divide),
                               "floor_divide", "__floordiv__")
Tensor.__rfloordiv__ = lambda self, other: floor_divide(other, self)


# --- bitwise ops: integer and bool tensors (on bools, the logical ops) ---------------------------
def _integral(name, *operands):
    for x in operands:
        if isinstance(x, Tensor) and x._data.dtype.kind == "f":
            raise NotImplementedError(
                f"{name} is defined for integer and bool tensors, not {x.dtype}; use "
                "logical_and / logical_or / logical_xor / logical_not for truth values")
    return operands


def _shift(np_fn, fills_sign):
    # a shift by a negative amount or by the bit width or more gives 0 (the sign, shifting
    # right), as PyTorch; C and NumPy leave it undefined
    def impl(x, y):
        out = np_fn(x, y)
        bits = out.dtype.itemsize * 8
        inside = np.logical_and(np.greater_equal(y, 0), np.less(y, bits))
        if np.all(inside):
            return out
        outside = np_fn(x, bits - 1) if fills_sign else 0
        return np.where(inside, np_fn(x, np.where(inside, y, 0)), outside).astype(out.dtype)
    return impl


def _bitwise_binary(name, impl, *dunders, bools=True):
    prim = no_grad_primitive(name, impl)

    def op(x, y):
        x, y = _integral(name, *promote(x, y))
        if not bools and all(getattr(v, "dtype", None) == dtypes.bool_ for v in (x, y)):
            raise NotImplementedError(f"{name} is defined for integer tensors, not two bool "
                                      "tensors; convert one with .long()")
        if not bools and isinstance(x, Tensor) and x.dtype == dtypes.bool_:
            x = cast(x, dtypes.int64)
        return apply(prim, x, y)
    op.__name__ = name
    op.__doc__ = f"Elementwise {name} of integer tensors (the logical op on bool tensors)."
    return tensor_method(name, *dunders)(op)


bitwise_and = _bitwise_binary("bitwise_and", np.bitwise_and, "__and__")
bitwise_or = _bitwise_binary("bitwise_or", np.bitwise_or, "__or__")
bitwise_xor = _bitwise_binary("bitwise_xor", np.bitwise_xor, "__xor__")
bitwise_left_shift = _bitwise_binary("bitwise_left_shift", _shift(np.left_shift, False),
                                     "__lshift__", bools=False)
bitwise_right_shift = _bitwise_binary("bitwise_right_shift", _shift(np.right_shift, True),
                                      "__rshift__", bools=False)
Tensor.__rand__ = lambda self, other: bitwise_and(other, self)
Tensor.__ror__ = lambda self, other: bitwise_or(other, self)
Tensor.__rxor__ = lambda self, other: bitwise_xor(other, self)
Tensor.__rlshift__ = lambda self, other: bitwise_left_shift(other, self)
Tensor.__rrshift__ = lambda self, other: bitwise_right_shift(other, self)
bitwise_not_p = no_grad_primitive("bitwise_not", np.invert)


@tensor_method("bitwise_not", "__invert__")
def bitwise_not(x):
    """Elementwise ~x: the bits of an integer tensor flipped, a bool tensor negated."""
    kind = dtype_of(x, "bitwise_not").kind
    if kind == "f":
        raise DTypeNotImplemented(f"~ (bitwise_not) is defined for integer and bool tensors, not "
                        f"{x.dtype}; use logical_not for truth values")
    return apply(bitwise_not_p, x)


# --- clamping and selection ------------------------------------------------------------------
def _clamp_impl(x, lo, hi):
    if lo is not None:
        x = np.maximum(x, lo)
    if hi is not None:
        x = np.minimum(x, hi)
    return x


# The gradient goes to x where lo <= x <= hi, else to the bound that was taken (to hi
# when lo > hi, where the result is hi everywhere), as PyTorch.
def _clamp_x_mask(x, lo, hi):
    if lo is None:
        return x <= hi
    if hi is None:
        return x >= lo
    return logical_and(x >= lo, x <= hi)


def _clamp_lo_mask(x, lo, hi):
    return x < lo if hi is None else logical_and(x < lo, lo < hi)


def _clamp_hi_mask(x, lo, hi):
    return x > hi if lo is None else logical_or(x > hi, hi < lo)


_CLAMP_MASKS = (_clamp_x_mask, _clamp_lo_mask, _clamp_hi_mask)


def _passed_where(mask):
    return lambda out_bar, out, x, lo, hi: where(mask(x, lo, hi), out_bar, 0.0)


clamp_p = Primitive(
    "clamp", _clamp_impl,
    vjp=tuple(_passed_where(mask) for mask in _CLAMP_MASKS),
    jvp=lambda tangents, out, x, lo, hi: _sum_tangents(*(
        where(mask(x, lo, hi), t, 0.0) for mask, t in zip(_CLAMP_MASKS, tangents)
        if t is not None)),
    batch=broadcasting("clamp"))


@tensor_method("clamp", "clip")
def clamp(x, min=None, max=None):
    """`x` limited to [min, max]; either bound may be None, a scalar or a tensor.

    Where min > max the result is max. The gradient passes to x where
    min <= x <= max (boundaries included), otherwise to the bound that was taken.
    """
    if min is None and max is None:
        refuse_python_value(x, "clamp")
        raise ArgumentError("clamp: give at least one of min and max")
    if x._data.dtype.kind != "f" or type(min) not in _PLAIN or type(max) not in _PLAIN:
        x, min, max = _promote_bounds(x, min, max)
        refuse_complex(x, "clamp")
    return apply(clamp_p, x, min, max)


_PLAIN = (type(None), int, float)  # bounds that need no promotion against a float tensor


def _promote_bounds(x, lo, hi):
    present = [b for b in (lo, hi) if b is not None]
    x, *present = promote_all(x, *present)
    lo = None if lo is None else present.pop(0)
    hi = None if hi is None else present.pop(0)
    return x, lo, hi


clip = clamp


@tensor_method("clamp_min")
def clamp_min(x, min):
    """clamp(x, min, None)."""
    return clamp(x, min, None)


@tensor_method("clamp_max")
def clamp_max(x, max):
    """clamp(x, None, max)."""
    return clamp(x, None, max)


where_p = Primitive(
    "where", np.where,
    vjp=(None,
         lambda out_bar, out, c, x, y: where(c, out_bar, 0.0),
         lambda out_bar, out, c, x, y: where(c, 0.0, out_bar)),
    jvp=lambda tangents, out, c, x, y: where(
        c, 0.0 if tangents[1] is None else tangents[1],
        0.0 if tangents[2] is None else tangents[2]),
    saves_inputs="others",
    linear=(1, 2), batch=broadcasting("where"))


def where(condition, x=None, y=None):
    """Elements of `x` where `condition` holds, else of `y` (broadcast together); with
    `condition` alone, nonzero(condition, as_tuple=True) as in PyTorch."""
    if x is None and y is None:
        from .indexing import nonzero  # indexing builds on this module
        if not isinstance(condition, Tensor):
            refuse_python_value(condition, "where")
            condition = Tensor(condition)
        return nonzero(condition, as_tuple=True)
    if not isinstance(condition, Tensor):
        condition = Tensor(np.asarray(condition, dtype=bool))
    elif condition._data.dtype == np.uint8:  # (PyTorch's deprecated byte mask)
        condition = cast(condition, dtypes.bool_)
    elif condition._data.dtype != np.bool_:
        raise DTypeError(f"where: expected the condition to be a bool tensor, as PyTorch, but got "
                         f"{condition.dtype}; compare first (condition != 0)")
    x, y = promote(x, y)
    return apply(where_p, condition, x, y)


@tensor_method("where")
def _where_method(x, condition, y):
    """x.where(condition, y): where(condition, x, y), as PyTorch's Tensor.where."""
    return where(condition, x, y)


def _selected(out_bar, wins, x, y):
    # the larger (smaller) input takes the gradient; ties split it evenly, as PyTorch
    return where(wins, out_bar, where(eq(x, y), out_bar * 0.5, 0.0))


def _select_jvp(beats):
    def jvp(tangents, out, x, y):
        x_dot = 0.0 if tangents[0] is None else tangents[0]
        y_dot = 0.0 if tangents[1] is None else tangents[1]
        return where(beats(x, y), x_dot, where(beats(y, x), y_dot, (x_dot + y_dot) * 0.5))
    return jvp


maximum_p = Primitive(
    "maximum", np.maximum,
    vjp=(lambda out_bar, out, x, y: _selected(out_bar, greater(x, y), x, y),
         lambda out_bar, out, x, y: _selected(out_bar, greater(y, x), x, y)),
    jvp=_select_jvp(greater),
    batch=broadcasting("maximum"))
minimum_p = Primitive(
    "minimum", np.minimum,
    vjp=(lambda out_bar, out, x, y: _selected(out_bar, less(x, y), x, y),
         lambda out_bar, out, x, y: _selected(out_bar, less(y, x), x, y)),
    jvp=_select_jvp(less),
    batch=broadcasting("minimum"))


@tensor_method("maximum")
def maximum(x, y):
    """The elementwise larger of x and y (ties split the gradient)."""
    x, y = promote(x, y)
    refuse_complex(x if isinstance(x, Tensor) else y, "maximum", DTypeError)
    return apply(maximum_p, x, y)


@tensor_method("minimum")
def minimum(x, y):
    """The elementwise smaller of x and y (ties split the gradient)."""
    x, y = promote(x, y)
    refuse_complex(x if isinstance(x, Tensor) else y, "minimum", DTypeError)
    return apply(minimum_p, x, y)


def _lerp_impl(start, end, weight):
    # as PyTorch: from the nearer end, so that weight 1 gives `end` exactly
    diff = end - start
    if not isinstance(weight, np.ndarray):
        return start + weight * diff if weight < 0.5 else end - diff * (1 - weight)
    return np.where(weight < 0.5, start + weight * diff, end - diff * (1 - weight))


lerp_p = Primitive(
    "lerp", _lerp_impl,
    vjp=(lambda out_bar, out, start, end, weight: out_bar * (1 - weight),
         lambda out_bar, out, start, end, weight: out_bar * weight,
         lambda out_bar, out, start, end, weight: out_bar * (end - start)),
    jvp=lambda tangents, out, start, end, weight: _sum_tangents(
        None if tangents[0] is None else tangents[0] * (1 - weight),
        None if tangents[1] is None else tangents[1] * weight,
        None if tangents[2] is None else tangents[2] * (end - start)),
    saves_inputs="others",
    batch=broadcasting("lerp"))


@tensor_method("lerp")
def lerp(start, end, weight):
    """start + weight * (end - start); `weight` a scalar or a tensor."""
    if not (type(weight) is float and isinstance(start, Tensor) and isinstance(end, Tensor)
            and start._data.dtype == end._data.dtype and start._data.dtype.kind == "f"):
        refuse_kinds(start, "biu", "lerp")
        refuse_kinds(end, "biu", "lerp")
        start, end, weight = promote_all(start, end, weight)
    return apply(lerp_p, start, end, weight)


# --- modulus --------------------------------------------------------------------------------
def _modulus(name, impl, quotient):
    # r = x - q y: dr/dx = 1, dr/dy = -q
    return Primitive(
        name, impl,
        vjp=(lambda out_bar, out, x, y: out_bar,
             lambda out_bar, out, x, y: -out_bar * quotient(x, y)),
        jvp=lambda tangents, out, x, y: _sum_tangents(
            tangents[0], None if tangents[1] is None else -tangents[1] * quotient(x, y)),
    batch=broadcasting(name))


remainder_p = _modulus("remainder", _integer_division("remainder", np.remainder),
                       lambda x, y: floor_divide(x, y))
fmod_p = _modulus("fmod", _integer_division("fmod", np.fmod), lambda x, y: trunc(x / y))


@tensor_method("remainder", "mod", "floor_mod", "__mod__")
def remainder(x, y):
    """Python-style modulus (the sign of the divisor), as PyTorch's `%`."""
    return apply(remainder_p, *promote(x, y))


mod = floor_mod = remainder


@tensor_method("fmod")
def fmod(x, y):
    """C-style modulus (the sign of the dividend)."""
    return apply(fmod_p, *promote(x, y))


Tensor.__rmod__ = lambda self, other: remainder(other, self)


# --- composites: closeness tests, replacing non-finite values -------------------------------
@tensor_method("isclose")
def isclose(a, b, rtol=1e-05, atol=1e-08, equal_nan=False):
    """Where |a - b| <= atol + rtol * |b| (equal infinities count as close; NaNs only with
    `equal_nan`), a bool tensor. No gradient."""
    if rtol < 0 or atol < 0:
        raise ArgumentError(f"isclose: rtol and atol must be non-negative, got rtol={rtol}, "
                         f"atol={atol}")
    if isinstance(a, Tensor) and isinstance(b, Tensor) and a.dtype != b.dtype:
        raise DTypeError(f"isclose: the tensors must have the same dtype, as in PyTorch, got "
                         f"{a.dtype} and {b.dtype}; convert one first (e.g. b.to(a.dtype))")
    return apply(isclose_p, *promote(a, b), rtol=rtol, atol=atol, equal_nan=equal_nan)


isclose_p = no_grad_primitive("isclose", np.isclose)


@tensor_method("allclose")
def allclose(a, b, rtol=1e-05, atol=1e-08, equal_nan=False):
    """Whether `isclose` holds everywhere (a and b broadcast), as a Python bool."""
    try:
        return bool(np.all(isclose(a, b, rtol, atol, equal_nan).numpy()))
    except ValueError as err:
        if "broadcast" not in str(err):
            raise
        raise ShapeError(f"allclose: shapes {list(np.shape(getattr(a, '_data', a)))} and "
                         f"{list(np.shape(getattr(b, '_data', b)))} don't broadcast; compare "
                         "tensors of one shape (or shapes that broadcast)") from None


@tensor_method("equal")
def equal(input, other):
    """Whether the two tensors have the same shape and elements, as a Python bool (PyTorch's
    `torch.equal`; the elementwise comparison is `eq`, or `==`)."""
    for name, x in (("input", input), ("other", other)):
        if not isinstance(x, Tensor):
            raise TypeError(f"equal(): argument '{name}' must be Tensor, not {type(x).__name__}; "
                            "compare two tensors (or use eq for a tensor and a number)")
    a, b = input._data, other._data
    return a.shape == b.shape and bool(np.array_equal(a, b))


@tensor_method("__contains__")
def _contains(x, element):
    """`element in x`: whether some entry of `x` equals `element` (PyTorch's)."""
    if not isinstance(element, (Tensor, numbers.Number)):
        raise RuntimeError(f"Tensor.__contains__ only supports Tensor or scalar, but you passed "
                           f"in a {type(element).__name__}.")
    return bool(eq(x, element)._data.any())


@tensor_method("nan_to_num")
def nan_to_num(x, nan=0.0, posinf=None, neginf=None):
    """`x` with NaN replaced by `nan`, +inf by `posinf` and -inf by `neginf` (default: the
    dtype's largest and smallest finite values). The gradient is 1 where x is finite, else 0."""
    refuse_python_value(x, "nan_to_num")
    if not isinstance(x, Tensor):
        x = Tensor(x)
    if x._data.dtype.kind != "f":
        return x
    info = np.finfo(x._data.dtype)
    posinf = float(info.max) if posinf is None else posinf
    neginf = float(info.min) if neginf is None else neginf
    out = where(isnan(x), nan, x)
    return where(eq(x, math.inf), posinf, where(eq(x, -math.inf), neginf, out))


# --- composites: signs, angles, sinc -----------------------------------------------------------
# the rules take arrays too (a plain backward pass): `apply(sign_p, ...)`, not `sign`
copysign_p = binary("copysign", np.copysign,
                    lambda x, y, out: apply(sign_p, x) * apply(sign_p, out),
                    lambda x, y, out: apply(sign_p, out) ** 2 * 0.0, saves_out=True)  # +0


@tensor_method("copysign")
def copysign(x, y):
    """|x| with the sign of y (its sign bit: -0.0 counts as negative); a floating result.
    The gradient in x is sign(x) times y's sign (0 where x is 0), zero in y, as PyTorch."""
    x, y = promote(x, y)
    x = float_result(x if isinstance(x, Tensor) else Tensor(x))
    if isinstance(y, Tensor) and y._data.dtype != x._data.dtype:
        y = cast(y, x.dtype)
    return apply(copysign_p, x, y)


@tensor_method("rad2deg")
def rad2deg(x):
    """Radians to degrees."""
    refuse_python_value(x, "rad2deg")
    return float_result(x) * (180.0 / math.pi)


@tensor_method("deg2rad")
def deg2rad(x):
    """Degrees to radians."""
    refuse_python_value(x, "deg2rad")
    return float_result(x) * (math.pi / 180.0)


@tensor_method("sinc")
def sinc(x):
    """The normalized sinc, sin(pi x) / (pi x), and 1 at 0 (where its gradient is 0)."""
    refuse_python_value(x, "sinc")
    x = float_result(x)
    zero = x == 0
    px = where(zero, 1.0, x) * math.pi  # no 0 / 0 in the branch that zero doesn't take
    return where(zero, 1.0, sin(px) / px)
