"""Samples for the Bessel functions J0, J1, Y0, Y1 and the Airy functions Ai, Ai'
(fluxgrad/ops/bessel.py). PyTorch gives these no derivative, so the samples carry no torch_fn
(their values are checked against torch in tests/test_bessel.py and tests/test_opinfo.py):
the generic checks compare the rules with central differences, to second order.

Y0 and Y1 stay at x > 0 (their domain).
"""
import numpy as np

import fluxgrad as fg
from fluxgrad.ops.bessel import airy_ai_prime

from . import Sample, rng

_J_X = np.array([0.0, 1e-6, -0.7, 2.3, 4.9, 5.1, -6.5, 12.0, -31.0])
_Y_X = np.array([0.2, 1.0, 3.3, 4.9, 5.1, 9.0, 27.5])
_AI_X = np.array([-14.0, -6.2, -3.0, -1.5, 0.0, 0.4, 1.9, 2.3, 5.0, 9.5])

SAMPLES = [
    Sample("bessel_j0", fg.special.bessel_j0, [_J_X]),
    Sample("bessel_j1", fg.special.bessel_j1, [_J_X]),
    Sample("bessel_y0", fg.special.bessel_y0, [_Y_X]),
    Sample("bessel_y1", fg.special.bessel_y1, [_Y_X]),
    Sample("airy_ai", fg.special.airy_ai, [_AI_X]),
    Sample("bessel_j0", lambda x: fg.special.bessel_j0(x) * x, [rng(3).normal(0, 4, (3, 4))]),
    Sample("bessel_y1", fg.special.bessel_y1, [rng(4).uniform(0.5, 15.0, (2, 3))]),
    Sample("airy_ai_prime", airy_ai_prime, [_AI_X]),
]
