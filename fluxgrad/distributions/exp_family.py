"""`ExponentialFamily`, torch's base class of the families with density
exp(<theta, t(x)> - F(theta) + k(x)): a subclass gives `_natural_params` (theta),
`_log_normalizer(*theta)` (F) and `_mean_carrier_measure` (E[k(x)]), and gets `entropy`
as the Bregman divergence of F (its gradient taken by autograd, so it differentiates)."""
from .._core.engine import grad
from .distribution import Distribution

__all__ = ["ExponentialFamily"]


class ExponentialFamily(Distribution):
    @property
    def _natural_params(self):
        raise NotImplementedError(f"{type(self).__name__} defines no _natural_params")

    def _log_normalizer(self, *natural_params):
        raise NotImplementedError(f"{type(self).__name__} defines no _log_normalizer")

    @property
    def _mean_carrier_measure(self):
        raise NotImplementedError(f"{type(self).__name__} defines no _mean_carrier_measure")

    def entropy(self):
        """-E[k(x)] + F(theta) - <theta, grad F(theta)>."""
        natural = [p.detach().requires_grad_() for p in self._natural_params]
        log_normalizer = self._log_normalizer(*natural)
        gradients = grad(log_normalizer.sum(), natural, create_graph=True)
        result = log_normalizer - self._mean_carrier_measure
        for theta, g in zip(natural, gradients):
            result = result - (theta * g).reshape(tuple(self.batch_shape) + (-1,)).sum(-1)
        return result
