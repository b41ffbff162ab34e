"""Special functions that no composite of other ops gives: lgamma, digamma, polygamma,
erfinv, the modified Bessel functions I0, I1, the Hurwitz zeta and the regularized incomplete
gamma functions (arrays computed in `_gamma`).

The derivatives close the family: lgamma' = digamma, digamma' = polygamma(1),
polygamma(n)' = polygamma(n + 1), erfinv' = sqrt(pi)/2 exp(erfinv^2), I0' = I1,
I1' = I0 - I1 / x (1/2 at 0), d zeta(x, q)/dq = -x zeta(x + 1, q),
d gammainc(a, x)/dx = x^(a-1) e^-x / Gamma(a) = -d gammaincc(a, x)/dx. As in PyTorch, zeta has
no derivative in x nor the incomplete gamma functions in a (backward through them raises).
Integer and bool inputs give float32, as in PyTorch.
modified_bessel_i0/i1 and spherical_bessel_j0 are torch.special's spellings without derivative
(PyTorch gives none; i0 and special.i1 are the differentiable ones); so are modified_bessel_k0/k1
and their scaled forms e^x K(x), computed by the trapezoidal rule on K's integral
representation (exponentially accurate: within about 2e-15 of PyTorch's Cephes values).
"""
import math

import numpy as np

from .._core.dispatch import apply
from .._core.primitive import Primitive
from .._core.tensor import tensor_method
from . import _gamma
from ._batch import broadcasting
from ._family import elementwise, float_result, promote
from .elementwise import exp, no_grad_primitive, where

__all__ = ["lgamma", "digamma", "polygamma", "erfinv", "i0", "igamma", "igammac",
           "modified_bessel_i0", "modified_bessel_i1", "spherical_bessel_j0",
           "modified_bessel_k0", "modified_bessel_k1", "scaled_modified_bessel_k0",
           "scaled_modified_bessel_k1"]

_HALF_SQRT_PI = math.sqrt(math.pi) / 2

lgamma_p = elementwise("lgamma", _gamma.lgamma, lambda x, out: digamma(x))
digamma_p = elementwise("digamma", _gamma.digamma, lambda x, out: polygamma(1, x))
erfinv_p = elementwise("erfinv", _gamma.erfinv, lambda x, out: exp(out * out) * _HALF_SQRT_PI,
                       saves_out=True, saves_inputs=False)
i0_p = elementwise("i0", _gamma.i0, lambda x, out: i1(x))


def _i1_derivative(x, out):
    at_zero = x == 0
    return where(at_zero, 0.5, i0(x) - out / where(at_zero, 1.0, x))


i1_p = elementwise("i1", _gamma.i1, _i1_derivative, saves_out=True)

polygamma_p = Primitive(
    "polygamma", lambda x, *, n: _gamma.polygamma(n, x),
    vjp=(lambda out_bar, out, x, *, n: out_bar * polygamma(n + 1, x),),
    jvp=lambda tangents, out, x, *, n: tangents[0] * polygamma(n + 1, x),
    batch=broadcasting("polygamma"))


@tensor_method("lgamma")
def lgamma(x):
    """log |Gamma(x)| (inf at the poles 0, -1, -2, ...)."""
    return apply(lgamma_p, float_result(x))


@tensor_method("digamma")
def digamma(x):
    """psi(x) = Gamma'(x) / Gamma(x)."""
    return apply(digamma_p, float_result(x))


def polygamma(n, x):
    """The n-th derivative of digamma (n = 0: digamma itself)."""
    if isinstance(n, bool) or not isinstance(n, (int, np.integer)):
        raise TypeError(f"polygamma: n must be a non-negative int, got {n!r}")
    n = int(n)
    if n < 0:
        raise RuntimeError("polygamma(n, x) does not support negative n.")
    if n == 0:
        return digamma(x)
    return apply(polygamma_p, float_result(x), n=n)


@tensor_method("erfinv")
def erfinv(x):
    """The inverse of erf on (-1, 1) (+-inf at +-1, nan outside)."""
    return apply(erfinv_p, float_result(x))


@tensor_method("i0")
def i0(x):
    """The modified Bessel function of the first kind, order 0."""
    return apply(i0_p, float_result(x))


def i1(x):
    """The modified Bessel function of the first kind, order 1."""
    return apply(i1_p, float_result(x))


@tensor_method("polygamma")
def _polygamma_method(x, n):
    return polygamma(n, x)


def _no_derivative(op, argument):
    def rule(*args, **params):
        raise NotImplementedError(f"the derivative of {op} with respect to {argument} is not "
                                  "implemented (nor in PyTorch); detach that argument")
    return rule


def _with_second_only(name, derivative, op, first):
    """A two-input elementwise record differentiable in its second input only."""
    refuse = _no_derivative(op, first)

    def jvp(tangents, out, x, y):
        if tangents[0] is not None:
            refuse()
        return tangents[1] * derivative(x, y)
    return Primitive(name, getattr(_gamma, name),
                     vjp=(refuse, lambda out_bar, out, x, y: out_bar * derivative(x, y)),
                     jvp=jvp, batch=broadcasting(name))


def _gamma_density(a, x):
    """x^(a-1) e^-x / Gamma(a): the derivative of gammainc(a, x) in x."""
    from .math_extras import xlogy
    return exp(xlogy(a - 1, x) - x - lgamma(a))


zeta_p = _with_second_only("zeta", lambda x, q: -x * zeta(x + 1, q), "zeta", "x (the exponent)")
gammainc_p = _with_second_only("gammainc", _gamma_density, "gammainc", "input (a)")
gammaincc_p = _with_second_only("gammaincc", lambda a, x: -_gamma_density(a, x), "gammaincc",
                                "input (a)")


def _operands(x, y, op=None):
    """x and y in their floating result dtype; `op` (named) refuses two integer operands, as
    PyTorch's incomplete gamma functions do."""
    from .math_extras import as_operand
    x, y = promote(as_operand(x), as_operand(y))
    if op is not None and x._data.dtype.kind in "biu":
        raise NotImplementedError(f"{op} is defined for floating tensors, not {x.dtype}; "
                                  "convert with .float() or .double()")
    x, y = float_result(x), float_result(y)
    return promote(x, y)  # (a number given keeps the tensor's dtype)


def zeta(x, q):
    """The Hurwitz zeta function sum_k (k + q)^-x (x > 1; the Riemann zeta at q = 1)."""
    return apply(zeta_p, *_operands(x, q))


@tensor_method("igamma")
def igamma(input, other):
    """The regularized lower incomplete gamma function P(a, x) (a = input, x = other)."""
    return apply(gammainc_p, *_operands(input, other, "igamma"))


@tensor_method("igammac")
def igammac(input, other):
    """The regularized upper incomplete gamma function Q(a, x) = 1 - P(a, x)."""
    return apply(gammaincc_p, *_operands(input, other, "igammac"))


def _spherical_j0(x):
    """sin(x) / x, by its Taylor series for |x| < 1/2 (PyTorch's split), 0 at +-inf."""
    x64 = np.asarray(x, np.float64)
    with np.errstate(all="ignore"):
        x2 = x64 * x64
        series = 1 + x2 * (-1 / 6 + x2 * (1 / 120 + x2 * (-1 / 5040 + x2 * (
            1 / 362880 + x2 * (-1 / 39916800 + x2 * (1 / 6227020800))))))
        out = np.where(np.abs(x64) < 0.5, series, np.sin(x64) / x64)
    return np.where(np.isinf(x64), 0.0, out).astype(np.asarray(x).dtype, copy=False)


_modified_bessel_i0_p = no_grad_primitive("modified_bessel_i0", _gamma.i0)
_modified_bessel_i1_p = no_grad_primitive("modified_bessel_i1", _gamma.i1)
_spherical_bessel_j0_p = no_grad_primitive("spherical_bessel_j0", _spherical_j0)


def modified_bessel_i0(x):
    """I0(x), without derivative (as torch.special.modified_bessel_i0; i0 has one)."""
    return apply(_modified_bessel_i0_p, float_result(x))


def modified_bessel_i1(x):
    """I1(x), without derivative (as torch.special.modified_bessel_i1; special.i1 has one)."""
    return apply(_modified_bessel_i1_p, float_result(x))


def spherical_bessel_j0(x):
    """The spherical Bessel function j0(x) = sin(x) / x (1 at 0), without derivative."""
    return apply(_spherical_bessel_j0_p, float_result(x))


def _scaled_k_float64(x, order):
    """e^x K_order(x), order 0 or 1, for float64 x (inf at 0, nan below, 0 at inf).

    e^x K_n(x) is the integral over t >= 0 of exp(-2 x sinh(t/2)^2) cosh(n t); the
    trapezoidal rule on 128 nodes up to where the integrand falls below e^-40 is accurate to
    rounding (the integrand is analytic and decays doubly exponentially). Below x = 1e-10 the
    leading terms of K0 and K1, -log(x/2) - euler_gamma and 1/x, are exact to rounding."""
    flat = x.reshape(-1)
    out = np.empty_like(flat)
    nodes = np.arange(128)
    with np.errstate(all="ignore"):
        for start in range(0, flat.size, 8192):
            v = flat[start:start + 8192, None]
            h = 2 * np.arcsinh(np.sqrt(20 / v)) / (nodes.size - 1)
            t = h * nodes
            f = np.exp(-2 * v * np.sinh(t / 2) ** 2) * (np.cosh(t) if order else 1.0)
            out[start:start + 8192] = h[:, 0] * (f.sum(axis=1) - f[:, 0] / 2)
        tiny = -(np.log(flat / 2) + np.euler_gamma) if order == 0 else 1 / flat
        out = np.where(flat < 1e-10, tiny * np.exp(flat), out)
    out = np.where(flat == np.inf, 0.0, np.where(flat < 0, np.nan, out))
    return np.where(np.isnan(flat), np.nan, out).reshape(x.shape)


def _scaled_k(x, *, order):
    return _scaled_k_float64(np.asarray(x, np.float64), order).astype(x.dtype, copy=False)


def _k(x, *, order):
    x64 = np.asarray(x, np.float64)
    with np.errstate(all="ignore"):
        out = _scaled_k_float64(x64, order) * np.exp(-x64)
    return np.where(x64 == 0, np.inf, out).astype(x.dtype, copy=False)


_modified_bessel_k_p = no_grad_primitive("modified_bessel_k", _k)
_scaled_modified_bessel_k_p = no_grad_primitive("scaled_modified_bessel_k", _scaled_k)


def modified_bessel_k0(x):
    """The modified Bessel function of the second kind K0(x) (inf at 0, nan for x < 0),
    without derivative (as PyTorch)."""
    return apply(_modified_bessel_k_p, float_result(x), order=0)


def modified_bessel_k1(x):
    """The modified Bessel function of the second kind K1(x) (inf at 0, nan for x < 0),
    without derivative (as PyTorch)."""
    return apply(_modified_bessel_k_p, float_result(x), order=1)


def scaled_modified_bessel_k0(x):
    """e^x K0(x), finite for large x where K0 underflows; without derivative."""
    return apply(_scaled_modified_bessel_k_p, float_result(x), order=0)


def scaled_modified_bessel_k1(x):
    """e^x K1(x), finite for large x where K1 underflows; without derivative."""
    return apply(_scaled_modified_bessel_k_p, float_result(x), order=1)
