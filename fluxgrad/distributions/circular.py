"""`VonMises`, torch's circular distribution: `loc` and values are angles (any real number,
read modulo 2 pi). log I0 and log I1 are torch's polynomial approximations (Abramowitz and
Stegun 9.8.1-9.8.4), so values match torch's; `sample` is Best and Fisher's rejection sampler,
run in float64 as torch's is. `mean` and `variance` are the circular ones."""
import math

from .. import ops
from .._core.grad_mode import no_grad
from ..creation import zeros
from ..random import rand
from . import constraints
from .distribution import Distribution, broadcast_all

__all__ = ["VonMises"]

_COEF_SMALL = ([1.0, 3.5156229, 3.0899424, 1.2067492, 0.2659732, 0.360768e-1, 0.45813e-2],
               [0.5, 0.87890594, 0.51498869, 0.15084934, 0.2658733e-1, 0.301532e-2,
                0.32411e-3])
_COEF_LARGE = ([0.39894228, 0.1328592e-1, 0.225319e-2, -0.157565e-2, 0.916281e-2,
                -0.2057706e-1, 0.2635537e-1, -0.1647633e-1, 0.392377e-2],
               [0.39894228, -0.3988024e-1, -0.362018e-2, 0.163801e-2, -0.1031555e-1,
                0.2282967e-1, -0.2895312e-1, 0.1787654e-1, -0.420059e-2])


def _poly(y, coef):
    result = coef[-1]
    for c in reversed(coef[:-1]):
        result = c + y * result
    return result


def log_modified_bessel(x, order):
    """log I_order(x) for x > 0, order 0 or 1."""
    small = _poly((x / 3.75) ** 2, _COEF_SMALL[order])
    if order == 1:
        small = ops.abs(x) * small
    small = ops.log(small)
    large = x - 0.5 * ops.log(x) + ops.log(_poly(3.75 / x, _COEF_LARGE[order]))
    return ops.where(x < 3.75, small, large)


class VonMises(Distribution):
    arg_constraints = {"loc": constraints.real, "concentration": constraints.positive}
    support = constraints.real
    has_rsample = False

    def __init__(self, loc, concentration, validate_args=None):
        self.loc, self.concentration = broadcast_all(loc, concentration)
        super().__init__(self.loc.shape, validate_args=validate_args)

    def log_prob(self, value):
        self._validate_sample(value)
        return (self.concentration * ops.cos(value - self.loc) - math.log(2 * math.pi)
                - log_modified_bessel(self.concentration, 0))

    def sample(self, sample_shape=()):
        with no_grad():
            loc = self.loc.detach().double()
            kappa = self.concentration.detach().double()
            tau = 1 + ops.sqrt(1 + 4 * kappa ** 2)
            rho = (tau - ops.sqrt(2 * tau)) / (2 * kappa)
            r = ops.where(kappa < 1e-5, 1 / kappa + kappa, (1 + rho ** 2) / (2 * rho))
            shape = self._extended(sample_shape)
            x = zeros(shape, dtype=loc.dtype)
            done = zeros(shape, dtype=bool)
            while not bool(done.all()):
                u1, u2, u3 = rand((3,) + tuple(shape), dtype=loc.dtype).unbind(0)
                z = ops.cos(math.pi * u1)
                f = (1 + r * z) / (r + z)
                c = kappa * (r - f)
                accept = ((c * (2 - c) - u2) > 0) | (ops.log(c / u2) + 1 - c >= 0)
                x = ops.where(accept & ~done, ops.sign(u3 - 0.5) * ops.acos(f), x)
                done = done | accept
            angle = ops.remainder(x + math.pi + loc, 2 * math.pi) - math.pi
            return angle.to(self.loc.dtype)

    @property
    def mean(self):
        return self.loc

    @property
    def mode(self):
        return self.loc

    @property
    def variance(self):
        return 1 - ops.exp(log_modified_bessel(self.concentration, 1)
                           - log_modified_bessel(self.concentration, 0))
