"""Elementwise ops: arithmetic, powers, exponentials and logs, trigonometry, comparisons.

Broadcasting follows NumPy; the engine sums a broadcast operand's cotangent
back to its shape, so the rules here are written for equal shapes.
"""
import numpy as np

from .._core import dtypes
from .._core.dispatch import apply
from .._core.primitive import Primitive
from .._core.tensor import Tensor, tensor_method
from ._family import binary, elementwise, float_result, promote

__all__ = ["cast", "add", "subtract", "multiply", "divide", "negative", "pow", "square", "exp",
           "log", "sqrt", "tanh", "sin", "cos", "abs", "sign", "maximum", "minimum", "where",
           "equal", "not_equal", "less", "less_equal", "greater", "greater_equal",
           "floor_divide", "remainder", "logical_not", "logical_and", "logical_or",
           "logical_xor", "sub", "mul", "div", "true_divide", "neg"]


# --- dtype conversion -------------------------------------------------------------------
cast_p = Primitive(
    "cast", lambda x, *, dtype: x.astype(dtype.np),
    vjp=(lambda out_bar, out, x, *, dtype: cast(out_bar, x.dtype),),
    jvp=lambda tangents, out, x, *, dtype: cast(tangents[0], dtype))


@tensor_method("astype", "to", "type")
def cast(x, dtype):
    """`x` converted to `dtype` (a differentiable op between floating dtypes)."""
    dtype = dtypes.as_dtype(dtype)
    if x._data.dtype == dtype.np:
        return x
    if dtype.category != 2:
        return Tensor._make(x._data.astype(dtype.np))
    return apply(cast_p, x, dtype=dtype)


# --- arithmetic -------------------------------------------------------------------------
add_p = Primitive(
    "add", np.add,
    vjp=(lambda out_bar, out, x, y: out_bar, lambda out_bar, out, x, y: out_bar),
    jvp=lambda tangents, out, x, y: _sum_tangents(tangents[0], tangents[1]))

subtract_p = Primitive(
    "sub", np.subtract,
    vjp=(lambda out_bar, out, x, y: out_bar, lambda out_bar, out, x, y: -out_bar),
    jvp=lambda tangents, out, x, y: _sum_tangents(
        tangents[0], None if tangents[1] is None else -tangents[1]))

multiply_p = binary("mul", np.multiply, lambda x, y, out: y, lambda x, y, out: x)

divide_p = Primitive(
    "div", np.true_divide,
    vjp=(lambda out_bar, out, x, y: out_bar / y,
         lambda out_bar, out, x, y: -out_bar * out / y),
    jvp=lambda tangents, out, x, y: _sum_tangents(
        tangents[0], None if tangents[1] is None else -tangents[1] * out) / y,
    saves_out=True)

negative_p = Primitive(
    "neg", np.negative,
    vjp=(lambda out_bar, out, x: -out_bar,),
    jvp=lambda tangents, out, x: -tangents[0])


def _pow_dy(x, y, out):
    # d(x**y)/dy = x**y log x, taken as 0 where x == 0 and y >= 0 (the limit from above)
    safe = where(equal(x, 0), 1.0, x)
    return where(logical_and(equal(x, 0), greater_equal(y, 0)), 0.0, out * log(safe))


pow_p = binary("pow", np.power, lambda x, y, out: y * x ** (y - 1), _pow_dy, saves_out=True)


def _sum_tangents(a, b):
    if a is None:
        return b
    if b is None:
        return a
    return a + b


@tensor_method("add", "__add__")
def add(x, y):
    return apply(add_p, *promote(x, y))


@tensor_method("subtract", "sub", "__sub__")
def subtract(x, y):
    return apply(subtract_p, *promote(x, y))


@tensor_method("multiply", "mul", "__mul__")
def multiply(x, y):
    return apply(multiply_p, *promote(x, y))


@tensor_method("divide", "div", "true_divide", "__truediv__")
def divide(x, y):
    x, y = promote(x, y)
    return apply(divide_p, float_result(x), float_result(y))


@tensor_method("negative", "neg", "__neg__")
def negative(x):
    return apply(negative_p, x)


@tensor_method("pow", "__pow__")
def pow(x, y):
    return apply(pow_p, *promote(x, y))


Tensor.__radd__ = lambda self, other: add(other, self)
Tensor.__rsub__ = lambda self, other: subtract(other, self)
Tensor.__rmul__ = lambda self, other: multiply(other, self)
Tensor.__rtruediv__ = lambda self, other: divide(other, self)
Tensor.__rpow__ = lambda self, other: pow(other, self)
Tensor.__pos__ = lambda self: self
sub, mul, div, true_divide, neg = subtract, multiply, divide, divide, negative


# --- unary math -------------------------------------------------------------------------
exp_p = elementwise("exp", np.exp, lambda x, out: out, saves_out=True)
log_p = elementwise("log", np.log, lambda x, out: 1 / x)
sqrt_p = elementwise("sqrt", np.sqrt, lambda x, out: 0.5 / out, saves_out=True)
tanh_p = elementwise("tanh", np.tanh, lambda x, out: 1 - out * out, saves_out=True)
sin_p = elementwise("sin", np.sin, lambda x, out: cos(x))
cos_p = elementwise("cos", np.cos, lambda x, out: -sin(x))
# |x|' = sign(x): the subgradient 0 at the kink, as PyTorch
abs_p = elementwise("abs", np.abs, lambda x, out: sign(x))


def _unary_float(prim):
    def op(x):
        return apply(prim, float_result(x))
    op.__name__ = prim.name
    op.__doc__ = f"Elementwise {prim.name}(x)."
    return tensor_method(prim.name)(op)


exp = _unary_float(exp_p)
log = _unary_float(log_p)
sqrt = _unary_float(sqrt_p)
tanh = _unary_float(tanh_p)
sin = _unary_float(sin_p)
cos = _unary_float(cos_p)


@tensor_method("abs", "__abs__")
def abs(x):
    return apply(abs_p, x)


@tensor_method("square")
def square(x):
    return x * x


# --- piecewise and selection --------------------------------------------------------------
sign_p = Primitive("sign", np.sign, vjp=(lambda out_bar, out, x: zeros_like_rule(x),),
                   jvp=lambda tangents, out, x: zeros_like_rule(x))


def zeros_like_rule(x):
    return Tensor._make(np.zeros_like(x._data))


@tensor_method("sign")
def sign(x):
    return apply(sign_p, x)


where_p = Primitive(
    "where", np.where,
    vjp=(None,
         lambda out_bar, out, c, x, y: where(c, out_bar, 0.0),
         lambda out_bar, out, c, x, y: where(c, 0.0, out_bar)),
    jvp=lambda tangents, out, c, x, y: where(
        c, 0.0 if tangents[1] is None else tangents[1],
        0.0 if tangents[2] is None else tangents[2]))


@tensor_method("where")
def where(condition, x, y):
    """Elements of `x` where `condition` holds, else of `y` (broadcast together)."""
    if not isinstance(condition, Tensor):
        condition = Tensor(np.asarray(condition, dtype=bool))
    elif condition._data.dtype != np.bool_:
        condition = Tensor._make(condition._data.astype(bool))
    x, y = promote(x, y)
    return apply(where_p, condition, x, y)


def _select_rule(pick):
    # ties split the gradient evenly between the two inputs, as PyTorch
    def rule(out_bar, out, x, y):
        return out_bar * where(equal(x, y), 0.5, where(pick(x, y), 1.0, 0.0))
    return rule


maximum_p = Primitive(
    "maximum", np.maximum,
    vjp=(_select_rule(lambda x, y: greater(x, y)), _select_rule(lambda x, y: greater(y, x))),
    jvp=lambda tangents, out, x, y: _select_jvp(tangents, x, y, greater))
minimum_p = Primitive(
    "minimum", np.minimum,
    vjp=(_select_rule(lambda x, y: less(x, y)), _select_rule(lambda x, y: less(y, x))),
    jvp=lambda tangents, out, x, y: _select_jvp(tangents, x, y, less))


def _select_jvp(tangents, x, y, beats):
    x_dot = 0.0 if tangents[0] is None else tangents[0]
    y_dot = 0.0 if tangents[1] is None else tangents[1]
    weight = where(equal(x, y), 0.5, where(beats(x, y), 1.0, 0.0))
    return x_dot * weight + y_dot * (1.0 - weight)


@tensor_method("maximum")
def maximum(x, y):
    return apply(maximum_p, *promote(x, y))


@tensor_method("minimum")
def minimum(x, y):
    return apply(minimum_p, *promote(x, y))


# --- comparisons, logic and integer arithmetic: no gradient ------------------------------
def _no_grad_binary(np_fn, name, *dunders):
    def op(x, y):
        x, y = promote(x, y)
        return Tensor._make(np.asarray(np_fn(getattr(x, "_data", x), getattr(y, "_data", y))))
    op.__name__ = name
    return tensor_method(name, *dunders)(op)


equal = _no_grad_binary(np.equal, "equal", "__eq__", "eq")
not_equal = _no_grad_binary(np.not_equal, "not_equal", "__ne__", "ne")
less = _no_grad_binary(np.less, "less", "__lt__", "lt", "less_than")
less_equal = _no_grad_binary(np.less_equal, "less_equal", "__le__", "le")
greater = _no_grad_binary(np.greater, "greater", "__gt__", "gt", "greater_than")
greater_equal = _no_grad_binary(np.greater_equal, "greater_equal", "__ge__", "ge")
floor_divide = _no_grad_binary(np.floor_divide, "floor_divide", "__floordiv__")
logical_and = _no_grad_binary(np.logical_and, "logical_and", "__and__")
logical_or = _no_grad_binary(np.logical_or, "logical_or", "__or__")
logical_xor = _no_grad_binary(np.logical_xor, "logical_xor", "__xor__")
Tensor.__rfloordiv__ = lambda self, other: floor_divide(other, self)

remainder_p = Primitive(
    "remainder", np.remainder,
    vjp=(lambda out_bar, out, x, y: out_bar,
         lambda out_bar, out, x, y: -out_bar * floor_divide(x, y)),
    jvp=lambda tangents, out, x, y: _sum_tangents(
        tangents[0], None if tangents[1] is None else -tangents[1] * floor_divide(x, y)))


@tensor_method("remainder", "mod", "__mod__")
def remainder(x, y):
    """Python-style modulus (the sign of the divisor), as PyTorch's `%`."""
    return apply(remainder_p, *promote(x, y))


Tensor.__rmod__ = lambda self, other: remainder(other, self)


@tensor_method("logical_not", "__invert__")
def logical_not(x):
    return Tensor._make(np.logical_not(x._data))
