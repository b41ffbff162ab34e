"""`nn.utils.parametrizations`: weight_norm and spectral_norm as parametrizations
(`nn.utils.parametrize`), as PyTorch's.

`weight_norm(module)`: `parametrizations.weight.original0` is the norm g (over every
dimension but `dim`), `original1` the direction v; `module.weight` is v * g / ||v||.
`spectral_norm(module)`: `module.weight` is the original divided by its largest singular value,
estimated by power iteration on the buffers `_u`, `_v` of the parametrization (15 steps on
registration, then `n_power_iterations` at each access in training).
"""
from ... import ops
from ...random import randn
from .. import functional as F
from ..module import Module
from . import parametrize
from ._norms import as_matrix, norm_except_dim, power_iteration, spectral_dim
from ._norms import weight_norm as _weight_norm

__all__ = ["weight_norm", "spectral_norm"]


class _WeightNorm(Module):
    def __init__(self, dim=0):
        super().__init__()
        self.dim = -1 if dim is None else dim

    def forward(self, weight_g, weight_v):
        return _weight_norm(weight_v, weight_g, self.dim)

    def right_inverse(self, weight):
        return norm_except_dim(weight, self.dim), weight


class _SpectralNorm(Module):
    def __init__(self, weight, n_power_iterations=1, dim=0, eps=1e-12):
        super().__init__()
        ndim = weight.ndim
        if not -ndim <= dim < ndim:
            raise IndexError(f"Dimension out of range (expected to be in range of [-{ndim}, "
                             f"{ndim - 1}] but got {dim})")
        if n_power_iterations <= 0:
            raise ValueError("Expected n_power_iterations to be positive, but got "
                             f"n_power_iterations={n_power_iterations}")
        self.dim = dim % ndim
        self.eps = eps
        if ndim > 1:
            self.n_power_iterations = n_power_iterations
            weight_mat = as_matrix(weight.detach(), self.dim)
            h, w = weight_mat.shape
            self.register_buffer("_u", F.normalize(randn(h, dtype=weight.dtype), dim=0, eps=eps))
            self.register_buffer("_v", F.normalize(randn(w, dtype=weight.dtype), dim=0, eps=eps))
            power_iteration(weight_mat, self._u, self._v, 15, eps, u_first=True)

    def forward(self, weight):
        if weight.ndim == 1:
            return F.normalize(weight, dim=0, eps=self.eps)
        weight_mat = as_matrix(weight, self.dim)
        if self.training:
            power_iteration(weight_mat, self._u, self._v, self.n_power_iterations, self.eps,
                            u_first=True)
        sigma = ops.vdot(self._u.clone(), ops.mv(weight_mat, self._v.clone()))
        return weight / sigma

    def right_inverse(self, value):
        return value


def weight_norm(module, name="weight", dim=0):
    """Reparametrize `module.<name>` as a norm times a direction (see the module docstring)."""
    parametrize.register_parametrization(module, name, _WeightNorm(dim), unsafe=True)
    return module


def spectral_norm(module, name="weight", n_power_iterations=1, eps=1e-12, dim=None):
    """Divide `module.<name>` by its largest singular value (see the module docstring)."""
    weight = getattr(module, name, None)
    if weight is None or name not in module._parameters and name not in module._buffers:
        raise ValueError(f"Module '{module}' has no parameter or buffer with name '{name}'")
    parametrize.register_parametrization(
        module, name, _SpectralNorm(weight, n_power_iterations, spectral_dim(module, dim), eps))
    return module
