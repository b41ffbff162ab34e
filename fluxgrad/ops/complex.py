"""Complex tensors: their parts (`real`, `imag`, `view_as_real`), building them (`complex`,
`polar`, `view_as_complex`), the modulus and the argument (`abs`, `angle`), the conjugate.

Gradients follow PyTorch's convention: for a real loss L of z = x + iy, the gradient of z is
dL/dx + i dL/dy. A map that is linear over the reals then has, as its VJP, its transpose over
the reals: `real`'s is the embedding of a real cotangent, `view_as_real`'s is
`view_as_complex`, `conj`'s is `conj`. Holomorphic ops (in the other modules) multiply the
cotangent by their conjugate derivative (see `_conj`).

`real` and `imag` of a complex tensor are views, as in PyTorch: writing into them writes
into the tensor. `conj` copies (fluxgrad keeps no lazy conjugate bit), so `is_conj()` is
always False and `resolve_conj` returns its input.
"""
import math

import numpy as np

from .._core import dtypes
from .._core.dispatch import apply
from .._core.errors import DTypeError, ShapeError
from .._core.primitive import Primitive
from .._core.tensor import Tensor, tensor_method
from ._batch import broadcasting
from ._conj import conj_rule
from ._family import float_result, tensor_input
from .elementwise import atan2, cast, cos, isnan, sin, where

__all__ = ["real", "imag", "conj", "conj_physical", "resolve_conj", "view_as_real",
           "view_as_complex", "complex", "polar", "angle", "isreal", "sgn"]


def _pack(re, im):
    """re + i im as a complex array of the parts' precision (also where a part is inf, which
    re + 1j * im would turn into nan)."""
    re, im = np.asarray(re), np.asarray(im)
    out = np.empty(np.broadcast_shapes(re.shape, im.shape),
                   np.result_type(re.dtype, im.dtype, np.complex64))
    out.real, out.imag = re, im
    return out


def _part_view(np_part, other):
    """The view rule of `real` / `imag`: the base with this part replaced by `value`."""
    def new_base(base, value):
        return apply(complex_p, value, other(base)) if np_part is np.real else \
            apply(complex_p, other(base), value)
    return new_base


real_p = Primitive(
    "real", np.real,
    vjp=(lambda out_bar, out, x: apply(complex_p, out_bar, 0.0),),
    jvp=lambda tangents, out, x: apply(real_p, tangents[0]),
    saves_inputs=False, linear="all", batch=broadcasting("real"),
    view=_part_view(np.real, lambda base: apply(imag_p, base)))

imag_p = Primitive(
    "imag", np.imag,
    vjp=(lambda out_bar, out, x: apply(complex_p, 0.0, out_bar),),
    jvp=lambda tangents, out, x: apply(imag_p, tangents[0]),
    saves_inputs=False, linear="all", batch=broadcasting("imag"),
    view=_part_view(np.imag, lambda base: apply(real_p, base)))

complex_p = Primitive(
    "complex", _pack,
    vjp=(lambda out_bar, out, x, y: apply(real_p, out_bar),
         lambda out_bar, out, x, y: apply(imag_p, out_bar)),
    jvp=lambda tangents, out, x, y: apply(
        complex_p, 0.0 if tangents[0] is None else tangents[0],
        0.0 if tangents[1] is None else tangents[1]),
    saves_inputs=False, linear="all", batch=broadcasting("complex"))

view_as_real_p = Primitive(
    "view_as_real", lambda x: np.stack((x.real, x.imag), axis=-1),
    vjp=(lambda out_bar, out, x: apply(view_as_complex_p, out_bar),),
    jvp=lambda tangents, out, x: apply(view_as_real_p, tangents[0]),
    saves_inputs=False, linear="all", batch=broadcasting("view_as_real"))

view_as_complex_p = Primitive(
    "view_as_complex", lambda x: _pack(x[..., 0], x[..., 1]),
    vjp=(lambda out_bar, out, x: apply(view_as_real_p, out_bar),),
    jvp=lambda tangents, out, x: apply(view_as_complex_p, tangents[0]),
    saves_inputs=False, linear="all", batch=broadcasting("view_as_complex"))


def _sgn(x, out):
    """x / |x|, 0 where x is 0 (dividing by 1 there keeps every derivative finite)."""
    return x / where(out == 0, 1.0, out)


def _modulus(x):
    """|x| rounded once, as C's hypotf (PyTorch's) gives it: NumPy's complex64 modulus can be
    an ulp off (|exp(i pi/4)| = 0.99999994)."""
    if x.dtype == np.complex64:
        return np.abs(x.astype(np.complex128)).astype(np.float32)
    return np.abs(x)


# |z| of a complex z: its gradient is sgn(z) (PyTorch's; 0 at 0), not holomorphic
complex_abs_p = Primitive(
    "complex_abs", _modulus,
    vjp=(lambda out_bar, out, x: out_bar * _sgn(x, out),),
    jvp=lambda tangents, out, x: apply(real_p, conj_rule(_sgn(x, out)) * tangents[0]),
    saves_out=True, batch=broadcasting("complex_abs"))


def complex_abs(x):
    """|x| of a complex tensor: a real tensor of its parts' precision."""
    return apply(complex_abs_p, x)


def _complex_input(x, op):
    x = tensor_input(x, op)
    if x._data.dtype.kind != "c":
        raise RuntimeError(f"{op} is only supported for complex tensors, got a {x.dtype} tensor "
                           f"of shape {list(x.shape)}; make one with fluxgrad.complex(re, im) "
                           "or x.to(fluxgrad.complex64)")
    return x


@tensor_method("conj", "conj_physical")
def conj(x):
    """The complex conjugate (a real tensor as it is)."""
    return conj_rule(tensor_input(x, "conj"))


conj_physical = conj


@tensor_method("resolve_conj")
def resolve_conj(x):
    """`x` itself: fluxgrad's conjugates are never lazy."""
    return tensor_input(x, "resolve_conj")


def real(x):
    """The real part, a view of a complex tensor (a real tensor as it is)."""
    x = tensor_input(x, "real")
    return apply(real_p, x) if x._data.dtype.kind == "c" else x


def imag(x):
    """The imaginary part, a view of a complex tensor (refused for a real one, as PyTorch)."""
    x = tensor_input(x, "imag")
    if x._data.dtype.kind != "c":
        raise RuntimeError(f"imag is not implemented for tensors with non-complex dtypes "
                           f"(got {x.dtype}); a real tensor's imaginary part is "
                           "fluxgrad.zeros_like(x)")
    return apply(imag_p, x)


def _set_part(part):
    def setter(self, value):
        from .inplace import fill  # (inplace builds on this module's neighbours)
        view = part(self)
        if isinstance(value, Tensor):
            view.copy_(value)
        else:
            fill(view, value)
    return setter


Tensor.real = property(real, _set_part(real), doc="The real part (a view).")
Tensor.imag = property(imag, _set_part(imag), doc="The imaginary part (a view).")


def view_as_real(x):
    """A complex tensor's parts along a new last dimension of size 2 (real, imaginary)."""
    return apply(view_as_real_p, _complex_input(x, "view_as_real"))


def view_as_complex(x):
    """The complex tensor whose parts are the last dimension (of size 2) of `x`."""
    x = tensor_input(x, "view_as_complex")
    if x._data.dtype.kind != "f" or x._data.dtype.itemsize < 4:
        raise RuntimeError(f"view_as_complex is only supported for float and double tensors, "
                           f"but got a tensor of scalar type: {x.dtype}")
    if not x.ndim or x.shape[-1] != 2:
        raise ShapeError(f"view_as_complex: Tensor must have a last dimension of size 2, got "
                         f"shape {list(x.shape)}")
    return apply(view_as_complex_p, x)


def _parts(re, im, op):
    re, im = tensor_input(re, op), tensor_input(im, op)
    for x in (re, im):
        if x._data.dtype.kind != "f":
            raise DTypeError(f"{op}: expected both inputs to be Half, Float or Double tensors "
                             f"but got {re.dtype} and {im.dtype}")
    if re._data.dtype != im._data.dtype:
        raise DTypeError(f"{op}: expected both inputs to have the same dtype, got {re.dtype} "
                         f"and {im.dtype}; convert one with .to({re.dtype})")
    if re._data.dtype.itemsize < 4:
        re, im = cast(re, dtypes.float32), cast(im, dtypes.float32)  # (no complex32)
    return re, im


def complex(real, imag):
    """real + i imag, from two floating tensors of one dtype (float64: complex128)."""
    return apply(complex_p, *_parts(real, imag, "complex"))


def polar(abs, angle):
    """abs * (cos(angle) + i sin(angle))."""
    abs, angle = _parts(abs, angle, "polar")
    return apply(complex_p, abs * cos(angle), abs * sin(angle))


@tensor_method("angle")
def angle(x):
    """The argument of each element in (-pi, pi]; of a real tensor: pi where negative, else 0
    (nan where nan), with zero gradient."""
    x = tensor_input(x, "angle")
    if x._data.dtype.kind == "c":
        return atan2(apply(imag_p, x), apply(real_p, x))
    x = float_result(x)
    return where(isnan(x), x, where(x < 0, math.pi, 0.0).to(x.dtype))


@tensor_method("sgn")
def sgn(x):
    """x / |x| for complex x (0 at 0); the sign of a real x."""
    x = tensor_input(x, "sgn")
    if x._data.dtype.kind != "c":
        return x.sign()
    return _sgn(x, complex_abs(x))


@tensor_method("isreal")
def isreal(x):
    """Whether each element has a zero imaginary part (every element of a real tensor)."""
    x = tensor_input(x, "isreal")
    if x._data.dtype.kind == "c":
        return apply(imag_p, x) == 0
    return Tensor(np.ones(x.shape, bool))


for _name, _dtype in (("cfloat", dtypes.complex64), ("cdouble", dtypes.complex128)):
    setattr(Tensor, _name, lambda self, memory_format=None, _dtype=_dtype: cast(self, _dtype))
