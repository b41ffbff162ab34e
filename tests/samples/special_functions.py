"""Samples for the special functions (fluxgrad/ops/special_functions.py) and the bit-level ops
of fluxgrad/ops/math_extras.py (gcd, lcm, heaviside, isin without gradient; nextafter, whose
gradient is 1 in x).

digamma and polygamma stay at x > 0: PyTorch's trigamma (digamma's derivative) is wrong for
negative x, so torch is no reference there (lgamma's samples cross 0, its derivative is
digamma). erfinv stays inside (-0.9, 0.9), where its derivative is moderate.
"""
import numpy as np

import fluxgrad as fg

from . import Sample, away_from, normal, positive, rng


def _torch(name, *lead):
    def fn(*args):
        import torch
        target = torch.special if name == "i1" else torch
        return getattr(target, name)(*lead, *args)
    return fn


def _uniform(low, high, *shape, seed=0):
    return rng(seed).uniform(low, high, shape)


SAMPLES = []
for _shape in [(3, 4), (), (5,)]:
    SAMPLES += [
        Sample("lgamma", fg.lgamma, [positive(*_shape) * 3], _torch("lgamma")),
        Sample("digamma", fg.digamma, [positive(*_shape) * 2], _torch("digamma")),
        Sample("erfinv", fg.erfinv, [_uniform(-0.9, 0.9, *_shape)], _torch("erfinv")),
        Sample("i0", fg.i0, [normal(*_shape) * 3], _torch("i0")),
        Sample("i1", fg.special.i1, [normal(*_shape) * 3], _torch("i1")),
    ]
SAMPLES += [
    Sample("lgamma", lambda x: x.lgamma(), [away_from(_uniform(-3.5, 3.5, 4, 3),
                                                      np.arange(-4, 1), 0.2)],
           lambda x: x.lgamma()),
    Sample("digamma", lambda x: x.digamma() * x, [_uniform(0.2, 12.0, 7)],
           lambda x: x.digamma() * x),
    Sample("i0", fg.i0, [_uniform(-30, 30, 6)], _torch("i0"), rtol=1e-5),
    Sample("i1", fg.special.i1, [np.array([0.0, -21.0, 25.0, 0.3, 19.9])], _torch("i1"),
           rtol=1e-5),
    Sample("erfinv", lambda x: x.erfinv(), [_uniform(-0.6, 0.6, 2, 3)], lambda x: x.erfinv()),
]
for _n in (1, 2, 3):
    SAMPLES += [
        Sample("polygamma", lambda x, n=_n: fg.polygamma(n, x), [positive(3, 2) * 2],
               _torch("polygamma", _n)),
        Sample("polygamma", lambda x, n=_n: x.polygamma(n), [_uniform(0.3, 25.0, 5)],
               lambda x, n=_n: x.polygamma(n)),
    ]


def _ints(a, scale=10):
    return fg.round(a * scale).long()


SAMPLES += [
    Sample("gcd", lambda a, b: fg.gcd(_ints(a), _ints(b)), [normal(3, 4, seed=1),
                                                           normal(4, seed=2)],
           lambda a, b: (a * 10).round().long().gcd((b * 10).round().long())),
    Sample("lcm", lambda a, b: fg.lcm(_ints(a), _ints(b)), [normal(3, 4, seed=1),
                                                           normal(3, 1, seed=2)],
           lambda a, b: (a * 10).round().long().lcm((b * 10).round().long())),
    Sample("heaviside", lambda a, b: fg.heaviside(fg.round(a), b),
           [normal(3, 4, seed=3), normal(3, 4, seed=4)],
           lambda a, b: a.round().heaviside(b)),
    Sample("nextafter", fg.nextafter, [normal(3, 4, seed=5), normal(4, seed=6)],
           lambda a, b: a.nextafter(b)),
    Sample("isin", lambda a, b: fg.isin(fg.round(a), fg.round(b)).double(),
           [normal(3, 4, seed=7) * 3, normal(6, seed=8) * 3],
           lambda a, b: __import__("torch").isin(a.round(), b.round()).double()),
]

# Ops without derivative (as in PyTorch): values against torch; x crosses the special points
# |x| == 1 (and 0, 1 for the shifted polynomials) and degrees take both recurrence and
# trigonometric branches, negative and fractional ones included.
_POLYNOMIAL_X = np.array([[-1.0, -0.7, 0.0, 0.3, 1.0, 2.5], [-3.0, 0.5, 0.95, -0.2, 1.7, -1.3]])
_DEGREES = np.array([[0.0], [1.0], [2.0], [5.0], [7.9], [12.0], [-1.0], [3.0]])[:, :, None]
for _name in ["chebyshev_polynomial_t", "chebyshev_polynomial_u", "chebyshev_polynomial_v",
              "chebyshev_polynomial_w", "shifted_chebyshev_polynomial_t",
              "shifted_chebyshev_polynomial_u", "shifted_chebyshev_polynomial_v",
              "shifted_chebyshev_polynomial_w", "hermite_polynomial_h", "hermite_polynomial_he",
              "laguerre_polynomial_l", "legendre_polynomial_p"]:
    _x = (_POLYNOMIAL_X + 1) / 2 if _name.startswith("shifted") else _POLYNOMIAL_X
    SAMPLES += [
        Sample(_name, getattr(fg.special, _name), [_x, _DEGREES],
               lambda x, n, name=_name: getattr(__import__("torch").special, name)(x, n),
               rtol=1e-10),
        Sample(_name, lambda x, name=_name: getattr(fg.special, name)(x, 4), [_x[0]],
               lambda x, name=_name: getattr(__import__("torch").special, name)(x, 4),
               rtol=1e-10),
    ]
_BESSEL_X = np.array([0.0, 1e-9, -0.3, 0.49, 0.5, -2.0, 7.5, -30.0, 650.0])
for _name in ["modified_bessel_i0", "modified_bessel_i1", "spherical_bessel_j0"]:
    SAMPLES.append(Sample(_name, getattr(fg.special, _name), [_BESSEL_X],
                          lambda x, name=_name: getattr(__import__("torch").special, name)(x),
                          rtol=1e-12))
# K: 0 (inf), negative (nan), tiny (the leading terms), moderate, large (K underflows)
_K_X = np.array([0.0, -1.0, 1e-12, 3e-9, 0.2, 1.0, 2.5, 9.0, 60.0, 720.0, 1e5])
for _name, _op in [("modified_bessel_k0", "modified_bessel_k"),
                   ("modified_bessel_k1", "modified_bessel_k"),
                   ("scaled_modified_bessel_k0", "scaled_modified_bessel_k"),
                   ("scaled_modified_bessel_k1", "scaled_modified_bessel_k")]:
    SAMPLES.append(Sample(_op, getattr(fg.special, _name), [_K_X],
                          lambda x, name=_name: getattr(__import__("torch").special, name)(x),
                          rtol=1e-13))
