"""The Bessel functions of the first and second kind of orders 0 and 1 and the Airy function
Ai, as torch.special's bessel_j0, bessel_j1, bessel_y0, bessel_y1 and airy_ai (the Cephes
approximations PyTorch uses, in `_cephes`; equal to scipy.special's to rounding).

Unlike PyTorch's, they are differentiable, to any order, through the derivatives that close
the family: J0' = -J1, J1' = J0 - J1 / x (1/2 at 0), Y0' = -Y1, Y1' = Y0 - Y1 / x,
Ai' = airy_ai_prime (its own record) and Ai'' = x Ai. Y0 and Y1 are -inf at 0 and NaN for
x < 0; Ai is NaN at +-inf. Integer and bool inputs give float32, as in PyTorch.
PyTorch 2.13's values are off by up to 9e-7 (J, Y, mostly beyond x = 5) and 3e-6 (Ai between
-10 and -2.09) from a slip in its translation of Cephes (see `_cephes`); these are not.
"""
from .._core.dispatch import apply
from . import _cephes
from ._family import elementwise, float_result
from .elementwise import where

__all__ = ["bessel_j0", "bessel_j1", "bessel_y0", "bessel_y1", "airy_ai"]


def _kernel(fn):
    return lambda x: fn(x).astype(x.dtype, copy=False)


def _j1_derivative(x, out):
    at_zero = x == 0
    return where(at_zero, 0.5, bessel_j0(x) - out / where(at_zero, 1.0, x))


bessel_j0_p = elementwise("bessel_j0", _kernel(_cephes.j0), lambda x, out: -bessel_j1(x))
bessel_j1_p = elementwise("bessel_j1", _kernel(_cephes.j1), _j1_derivative, saves_out=True)
bessel_y0_p = elementwise("bessel_y0", _kernel(_cephes.y0), lambda x, out: -bessel_y1(x))
bessel_y1_p = elementwise("bessel_y1", _kernel(_cephes.y1),
                          lambda x, out: bessel_y0(x) - out / x, saves_out=True)
airy_ai_p = elementwise("airy_ai", _kernel(lambda x: _cephes.airy(x)[0]),
                        lambda x, out: airy_ai_prime(x))
airy_ai_prime_p = elementwise("airy_ai_prime", _kernel(lambda x: _cephes.airy(x)[1]),
                              lambda x, out: x * airy_ai(x))


def bessel_j0(input):
    """J0, the Bessel function of the first kind of order 0."""
    return apply(bessel_j0_p, float_result(input))


def bessel_j1(input):
    """J1, the Bessel function of the first kind of order 1."""
    return apply(bessel_j1_p, float_result(input))


def bessel_y0(input):
    """Y0, the Bessel function of the second kind of order 0 (-inf at 0, NaN below)."""
    return apply(bessel_y0_p, float_result(input))


def bessel_y1(input):
    """Y1, the Bessel function of the second kind of order 1 (-inf at 0, NaN below)."""
    return apply(bessel_y1_p, float_result(input))


def airy_ai(input):
    """Ai, the Airy function of the first kind (the solution of y'' = x y decaying at +inf)."""
    return apply(airy_ai_p, float_result(input))


def airy_ai_prime(input):
    """Ai', the derivative of the Airy function Ai (not in torch.special)."""
    return apply(airy_ai_prime_p, float_result(input))
