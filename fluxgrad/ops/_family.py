"""Shorthands that turn a one-line description of an op into a full primitive record.

- `elementwise(name, impl, derivative)`: `derivative(x, out)` is f'(x); the VJP
  (out_bar * f') and the JVP (x_dot * f') both follow from it.
- `binary(name, impl, dx, dy)`: `dx(x, y, out)` / `dy(...)` are the partial
  derivatives; broadcasting is undone by the engine, not here.
- `linear(name, impl, transpose)`: the JVP is the op applied to the tangent,
  the VJP is `transpose(out_bar, x, **params)`.

Ops that fit no family build `Primitive` directly, with both rules side by side.

For complex inputs the VJP multiplies by the conjugate derivative (PyTorch's convention,
see `_conj`); `conj_rule` of a real value is the value itself. The families' VJP rules are
`out_bar * conj(derivative)`: they run on plain arrays as well
(`array_rules`), which a backward pass that records nothing uses.
"""
import numpy as np

from .._core import dtypes
from .._core.errors import ArgumentError, DTypeNotImplemented, ShapeError, refuse_python_value
from .._core.dispatch import apply
from .._core.primitive import Primitive
from .._core.tensor import Tensor, as_array, is_scalar
from ._batch import broadcasting
from ._conj import conj_rule


def elementwise(name, impl, derivative, *, saves_out=False, saves_inputs=True, array_rules=True):
    return Primitive(
        name, impl,
        vjp=(lambda out_bar, out, x: out_bar * conj_rule(derivative(x, out)),),
        jvp=lambda tangents, out, x: tangents[0] * derivative(x, out),
        saves_out=saves_out, saves_inputs=saves_inputs, batch=broadcasting(name),
        array_rules=array_rules)


def fused_backward(name, impl, d_y):
    """The backward of an op whose derivative depends on its output alone, as one op
    `g * f'(y)` (like PyTorch's tanh_backward): one dispatch instead of several.

    `impl(g, y)` computes it on arrays; `d_y(g, y)` is its partial derivative in y. Its
    derivative in g is the op itself. Returns (primitive, function); the function given
    arrays (a plain backward pass) returns `impl`'s array.
    """
    def op(g, y):
        if type(g) is np.ndarray and type(y) is np.ndarray:
            return impl(g, y)
        return apply(prim, g, y)

    def jvp(tangents, out, g, y):
        g_dot, y_dot = tangents
        terms = [op(g_dot, y) if g_dot is not None else None,
                 y_dot * d_y(g, y) if y_dot is not None else None]
        return terms[1] if terms[0] is None else terms[0] if terms[1] is None else (
            terms[0] + terms[1])
    prim = Primitive(name, impl,
                     vjp=(lambda out_bar, out, g, y: op(out_bar, conj_rule(y)),
                          lambda out_bar, out, g, y: out_bar * conj_rule(d_y(g, y))),
                     jvp=jvp, batch=broadcasting(name), linear=(0,), array_rules=True)
    return prim, op


def from_output(name, impl, backward):
    """An elementwise op whose VJP and JVP are `backward(t, out)`, i.e. t * f'(x) from out."""
    return Primitive(name, impl,
                     vjp=(lambda out_bar, out, x: backward(out_bar, conj_rule(out)),),
                     jvp=lambda tangents, out, x: backward(tangents[0], out),
                     saves_out=True, saves_inputs=False, batch=broadcasting(name),
                     array_rules=True)


def binary(name, impl, dx, dy, *, saves_out=False, saves_inputs=True, linear=None):
    def jvp(tangents, out, x, y):
        x_dot, y_dot = tangents
        terms = []
        if x_dot is not None:
            terms.append(x_dot * dx(x, y, out))
        if y_dot is not None:
            terms.append(y_dot * dy(x, y, out))
        return terms[0] if len(terms) == 1 else terms[0] + terms[1]
    return Primitive(
        name, impl,
        vjp=(lambda out_bar, out, x, y: out_bar * conj_rule(dx(x, y, out)),
             lambda out_bar, out, x, y: out_bar * conj_rule(dy(x, y, out))),
        jvp=jvp, saves_out=saves_out, saves_inputs=saves_inputs, batch=broadcasting(name),
        linear=linear, array_rules=True)


def linear(name, impl, transpose, *, view=False, batch=None):
    """A linear op of one tensor argument; its static arguments are keyword params."""
    prim = None

    def jvp(tangents, out, x, **params):
        return apply(prim, tangents[0], **params)
    prim = Primitive(name, impl,
                     vjp=(lambda out_bar, out, x, **params: transpose(out_bar, x, **params),),
                     jvp=jvp, view=view, saves_inputs=False,
                     batch=batch, linear="all")
    return prim


def as_tensor(x):
    return x if isinstance(x, Tensor) else Tensor(x)


def tensor_input(x, op):
    """`x` as the tensor input of the public function `op`: a Tensor as it is, an array
    converted, a Python number or list refused with PyTorch's TypeError."""
    if isinstance(x, Tensor):
        return x
    refuse_python_value(x, op)
    return Tensor(x)


def ndim_of(x, op):
    """`x.ndim`, a Python number or list refused as `op`'s input with PyTorch's TypeError."""
    try:
        return x.ndim
    except AttributeError:
        refuse_python_value(x, op)
        raise


def dtype_of(x, op):
    """The NumPy dtype of the tensor `x`, refused as `ndim_of` refuses."""
    try:
        return x._data.dtype
    except AttributeError:
        refuse_python_value(x, op)
        raise


def promote(x, y):
    """Operands for an elementwise op, cast to PyTorch's result dtype (scalars stay Python)."""
    if isinstance(x, Tensor):
        if isinstance(y, Tensor):
            if x._data.dtype == y._data.dtype:
                return x, y
        elif type(y) is complex:
            pass  # PyTorch's promotion, below (NumPy would make float32 + 1j complex128)
        elif type(y) is float or type(y) is int or (is_scalar(y) and
                                                      not isinstance(y, np.generic)):
            kind = x._data.dtype.kind
            if kind == "f" or (kind == "i" and isinstance(y, int) and not isinstance(y, bool)
                               and (x._data.dtype.itemsize == 8 or fits(y, x._data.dtype))):
                return x, y
        elif isinstance(y, np.generic):  # as a Python scalar (NumPy 2 lets np.float64 widen)
            return promote(x, y.item())
        else:
            return promote(x, _tensor_or_scalar(y))
    elif isinstance(y, Tensor):
        if type(x) is float or type(x) is int or is_scalar(x):
            y, x = promote(y, x)
            return x, y
        return promote(_tensor_or_scalar(x), y)
    else:
        x, y = _tensor_or_scalar(x), _tensor_or_scalar(y)
        if not isinstance(x, Tensor) and not isinstance(y, Tensor):
            if isinstance(y, np.generic) and not isinstance(x, np.generic):
                y, x = promote(Tensor._make(as_array(y)), x)  # the NumPy scalar's dtype leads
                return x, y
            x = Tensor._make(as_array(x))  # (Tensor(1) would be an empty tensor of size 1)
        return promote(x, y)
    target = dtypes.result_type(x, y)
    return cast_to(x, target), cast_to(y, target)


def promote_all(*operands):
    operands = [_tensor_or_scalar(x) for x in operands]
    target = dtypes.result_type(*operands)
    return [cast_to(x, target) for x in operands]


def cast_to(x, dtype):
    from .elementwise import cast
    if isinstance(x, Tensor):
        return x if x._data.dtype == dtype.np else cast(x, dtype)
    if dtype.category == 2 and not isinstance(x, float):
        return float(x)
    if dtype.category == 1 and not isinstance(x, bool) and not fits(x, dtype.np):
        return int(np.asarray(x, np.int64).astype(dtype.np))  # wraps around, as PyTorch
    return x


def refuse_kinds(x, kinds, op, error=DTypeNotImplemented):
    """Refuse a tensor whose dtype kind ('b' bool, 'i'/'u' integer) PyTorch has no kernel of
    `op` for (raising `error`, the class matching PyTorch's)."""
    if isinstance(x, Tensor) and x._data.dtype.kind in kinds:
        raise error(f"{op} is not implemented for {x.dtype} tensors, as in PyTorch; "
                    f"convert first (x.float(), or x.long() for bool)")


def fill_value(n, dtype, op):
    """The Python int `n` written into a tensor of integer `dtype` (a fill, an index_put): as
    PyTorch, refused past the dtype's range, except that a negative of an unsigned dtype's
    range wraps around."""
    top = np.iinfo(dtype.np).max
    if n > top or (n < 0 and -n > top and not fits(n, dtype.np)):
        raise ArgumentError(f"{op}: the value {n} can't be converted to {dtype} without "
                            f"overflow (its range is {np.iinfo(dtype.np).min} to {top})")
    return cast_to(n, dtype)


def fits(n, np_dtype):
    """Whether the Python int `n` is in the range of the integer dtype."""
    info = np.iinfo(np_dtype)
    return info.min <= n <= info.max


def _tensor_or_scalar(x):
    if isinstance(x, Tensor) or is_scalar(x):
        return x
    if isinstance(x, np.ndarray) and x.ndim == 0 and x.dtype.kind in "fib":
        return Tensor(x)
    return Tensor(x)


def float_result(x):
    """Integer and bool inputs of a floating op (exp, sqrt, true division) become float32
    (complex ones stay complex)."""
    if isinstance(x, Tensor) and x._data.dtype.kind not in "fc":
        return cast_to(x, dtypes.default_float)
    return x


def normalize_axis(axis, ndim, op):
    """An int, tuple or None axis as a sorted tuple of non-negative axes (None: all)."""
    if axis is None:
        return None
    axes = (axis,) if isinstance(axis, (int, np.integer)) else axis
    if not isinstance(axes, (tuple, list)) or not all(
            isinstance(a, (int, np.integer)) for a in axes):
        raise TypeError(f"{op}: dim (axis) must be an int, a tuple of ints or None, got "
                        f"{axis!r}")
    out = []
    for a in axes:
        a = int(a)
        if not -max(ndim, 1) <= a < max(ndim, 1):
            raise IndexError(f"{op}: axis {a} is out of range for a tensor of {ndim} dimensions")
        out.append(a % max(ndim, 1))
    if len(set(out)) != len(out):
        raise ShapeError(f"{op}: axis {axis} names the same dimension twice")
    return tuple(sorted(out))
