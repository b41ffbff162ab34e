"""`nn.utils.spectral_norm` / `remove_spectral_norm`: PyTorch's hook-based spectral
normalisation.

`spectral_norm(module, "weight")` keeps the parameter as `weight_orig` and two buffers
`weight_u`, `weight_v` (the singular vectors' estimates, drawn at random); a forward pre-hook
sets `module.weight = weight_orig / sigma`, where sigma = u . (W v) estimates the largest
singular value of the weight as a matrix [size of `dim`, rest]. In training each call first
runs `n_power_iterations` power-method steps on u and v (in place, outside autograd).
"""
from ... import ops
from ..._core.grad_mode import no_grad
from ...random import randn
from .. import functional as F
from ..parameter import Parameter
from ._norms import as_matrix, hooked_parameter, power_iteration, spectral_dim

__all__ = ["spectral_norm", "remove_spectral_norm"]


class SpectralNorm:
    """The forward pre-hook of one spectrally normalised tensor."""

    def __init__(self, name, n_power_iterations, dim, eps):
        if n_power_iterations <= 0:
            raise ValueError("Expected n_power_iterations to be positive, but got "
                             f"n_power_iterations={n_power_iterations}")
        self.name, self.n_power_iterations, self.dim, self.eps = name, n_power_iterations, dim, eps

    def compute_weight(self, module, do_power_iteration):
        weight = getattr(module, self.name + "_orig")
        u, v = getattr(module, self.name + "_u"), getattr(module, self.name + "_v")
        weight_mat = as_matrix(weight, self.dim)
        if do_power_iteration:
            power_iteration(weight_mat, u, v, self.n_power_iterations, self.eps, u_first=False)
        u, v = u.clone(), v.clone()  # the values this call's graph saw
        sigma = ops.dot(u, ops.mv(weight_mat, v))
        return weight / sigma

    def __call__(self, module, inputs):
        setattr(module, self.name, self.compute_weight(module, module.training))


def spectral_norm(module, name="weight", n_power_iterations=1, eps=1e-12, dim=None):
    """Divide `module.<name>` by its largest singular value before each call."""
    weight = hooked_parameter(module, name, SpectralNorm, "spectral_norm")
    fn = SpectralNorm(name, n_power_iterations, spectral_dim(module, dim) % weight.ndim, eps)
    with no_grad():
        h, w = as_matrix(weight, fn.dim).shape
        u = F.normalize(randn(h, dtype=weight.dtype), dim=0, eps=eps)
        v = F.normalize(randn(w, dtype=weight.dtype), dim=0, eps=eps)
    del module._parameters[name]
    module.register_parameter(name + "_orig", weight)
    setattr(module, name, weight.detach())
    module.register_buffer(name + "_u", u)
    module.register_buffer(name + "_v", v)
    module.register_forward_pre_hook(fn)
    return module


def remove_spectral_norm(module, name="weight"):
    """Undo `spectral_norm`: `module.<name>` is a parameter again, holding the normalised
    weight."""
    for key, hook in list(module._forward_pre_hooks.items()):
        if isinstance(hook, SpectralNorm) and hook.name == name:
            weight = hook.compute_weight(module, do_power_iteration=False)
            del module._forward_pre_hooks[key]
            del module._parameters[name + "_orig"]
            del module._buffers[name + "_u"]
            del module._buffers[name + "_v"]
            del module.__dict__[name]
            module.register_parameter(name, Parameter(weight.detach()))
            return module
    raise ValueError(f"spectral_norm of '{name}' not found in {module}")
