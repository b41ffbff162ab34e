"""`fluxgrad.special`, PyTorch's `torch.special`: the special functions under their scipy-style
names. The primitives live in fluxgrad/ops (special_functions, elementwise, activation,
softmax); the rest are composites of them.

The Bessel functions J0, J1, Y0, Y1 and airy_ai (PyTorch's Cephes values) are differentiable,
unlike PyTorch's (fluxgrad/ops/bessel.py). erfcx, i0e and i1e are composites: they overflow
where exp(x**2) or I0(x) do (|x| beyond about 26 for erfcx of negative x, 700 for i0e/i1e).
"""
import math

from .ops.activation import logit, sigmoid
from .ops.elementwise import (erf, erfc, exp, exp2, expm1, isnan, log, log1p, round, sinc,
                              where, abs as _abs)
from .ops.math_extras import as_operand, mvlgamma, xlogy
from .ops.reduce import logsumexp
from .ops.softmax import log_softmax, softmax
from .ops.bessel import airy_ai, bessel_j0, bessel_j1, bessel_y0, bessel_y1
from .ops.orthogonal_polynomials import *  # noqa: F401,F403
from .ops.orthogonal_polynomials import __all__ as _polynomials
from .ops.special_functions import (digamma, erfinv, i0, i1, igamma, igammac, lgamma,
                                    modified_bessel_i0, modified_bessel_i1,
                                    modified_bessel_k0, modified_bessel_k1, polygamma,
                                    scaled_modified_bessel_k0, scaled_modified_bessel_k1,
                                    spherical_bessel_j0, zeta)
from .ops._family import float_result

__all__ = ["digamma", "psi", "entr", "erf", "erfc", "erfcx", "erfinv", "exp2", "expit", "expm1",
           "gammaln", "i0", "i0e", "i1", "i1e", "log1p", "log_ndtr", "log_softmax", "logit",
           "logsumexp", "multigammaln", "ndtr", "ndtri", "polygamma", "round", "sinc",
           "softmax", "xlog1py", "xlogy", "zeta", "gammainc", "gammaincc",
           "modified_bessel_i0", "modified_bessel_i1", "spherical_bessel_j0",
           "modified_bessel_k0", "modified_bessel_k1", "scaled_modified_bessel_k0",
           "scaled_modified_bessel_k1", "bessel_j0", "bessel_j1", "bessel_y0", "bessel_y1",
           "airy_ai"] + _polynomials

_SQRT_HALF = math.sqrt(0.5)

psi = digamma
gammaln = lgamma
expit = sigmoid
multigammaln = mvlgamma
gammainc = igamma
gammaincc = igammac


def entr(x):
    """-x log x elementwise (0 at 0, -inf for x < 0)."""
    x = float_result(x)
    positive = x > 0
    inside = -x * log(where(positive, x, 1.0))
    return where(positive, inside, where(x == 0, 0.0, -math.inf))


def erfcx(x):
    """exp(x**2) * erfc(x), the scaled complementary error function."""
    x = float_result(x)
    return exp(x * x) * erfc(x)


def i0e(x):
    """exp(-|x|) * I0(x)."""
    x = float_result(x)
    return exp(-_abs(x)) * i0(x)


def i1e(x):
    """exp(-|x|) * I1(x)."""
    x = float_result(x)
    return exp(-_abs(x)) * i1(x)


def ndtr(x):
    """The standard normal distribution function."""
    return erfc(-float_result(x) * _SQRT_HALF) * 0.5


def log_ndtr(x):
    """log(ndtr(x)), accurate in the lower tail down to x of about -37."""
    return log(ndtr(x))


def ndtri(p):
    """The inverse of ndtr (the standard normal quantile function)."""
    return erfinv(float_result(p) * 2 - 1) * math.sqrt(2.0)


def xlog1py(x, y):
    """x * log1p(y), and 0 where x == 0 (unless y is NaN)."""
    x, y = float_result(as_operand(x)), float_result(as_operand(y))
    zero = (x == 0) & ~isnan(y)
    return where(zero, 0.0, x * log1p(where(zero, 0.0, y)))
