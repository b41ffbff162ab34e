"""The orthogonal polynomials of `torch.special` (Chebyshev T, U, V, W and their shifted forms
on [0, 1], Hermite H and He, Laguerre L, Legendre P): `name(x, n)` with x and the degree n
tensors or numbers, broadcast together. As in PyTorch they have no derivative (their results
are never part of the graph) and integer operands give float32. Arrays in `_orthogonal` (`_o`).
"""
from .._core.dispatch import apply
from . import _orthogonal as _o
from ._family import float_result, promote
from .elementwise import no_grad_primitive

__all__ = ["chebyshev_polynomial_t", "chebyshev_polynomial_u", "chebyshev_polynomial_v",
           "chebyshev_polynomial_w", "shifted_chebyshev_polynomial_t",
           "shifted_chebyshev_polynomial_u", "shifted_chebyshev_polynomial_v",
           "shifted_chebyshev_polynomial_w", "hermite_polynomial_h", "hermite_polynomial_he",
           "laguerre_polynomial_l", "legendre_polynomial_p"]


def _polynomial(name, evaluate):
    prim = no_grad_primitive(name, evaluate)

    def polynomial(x, n):
        from .math_extras import as_operand
        x, n = promote(as_operand(x), as_operand(n))
        return apply(prim, float_result(x), float_result(n))
    polynomial.__name__ = name
    polynomial.__doc__ = (f"{name.replace('_', ' ')} of degree n (truncated to an integer; "
                          "0 for a negative n) at x, elementwise (no gradient).")
    return polynomial


chebyshev_polynomial_t = _polynomial("chebyshev_polynomial_t", _o.chebyshev_t)
chebyshev_polynomial_u = _polynomial("chebyshev_polynomial_u", _o.chebyshev_u)
chebyshev_polynomial_v = _polynomial("chebyshev_polynomial_v", _o.chebyshev_v)
chebyshev_polynomial_w = _polynomial("chebyshev_polynomial_w", _o.chebyshev_w)
shifted_chebyshev_polynomial_t = _polynomial(
    "shifted_chebyshev_polynomial_t", _o.shifted_chebyshev_t)
shifted_chebyshev_polynomial_u = _polynomial(
    "shifted_chebyshev_polynomial_u", _o.shifted_chebyshev_u)
shifted_chebyshev_polynomial_v = _polynomial(
    "shifted_chebyshev_polynomial_v", _o.shifted_chebyshev_v)
shifted_chebyshev_polynomial_w = _polynomial(
    "shifted_chebyshev_polynomial_w", _o.shifted_chebyshev_w)
hermite_polynomial_h = _polynomial("hermite_polynomial_h", _o.hermite_h)
hermite_polynomial_he = _polynomial("hermite_polynomial_he", _o.hermite_he)
laguerre_polynomial_l = _polynomial("laguerre_polynomial_l", _o.laguerre_l)
legendre_polynomial_p = _polynomial("legendre_polynomial_p", _o.legendre_p)
