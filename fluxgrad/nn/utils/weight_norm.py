"""`nn.utils.weight_norm` / `remove_weight_norm`: PyTorch's hook-based weight normalisation.

`weight_norm(module, "weight", dim=0)` replaces the parameter `weight` by `weight_g` (its norm
over every dimension but `dim`; over all of them when dim is None) and `weight_v` (its
direction), and a forward pre-hook sets `module.weight = weight_v * (weight_g /
||weight_v||)` before each call. PyTorch deprecates it in favour of
`nn.utils.parametrizations.weight_norm`, and so warns.
"""
import warnings

from ..._core.grad_mode import no_grad
from ..parameter import Parameter
from ._norms import hooked_parameter, norm_except_dim, weight_norm as _weight_norm

__all__ = ["weight_norm", "remove_weight_norm"]


class WeightNorm:
    """The forward pre-hook of one weight-normalised tensor."""

    def __init__(self, name, dim):
        self.name = name
        self.dim = -1 if dim is None else dim

    def compute_weight(self, module):
        return _weight_norm(getattr(module, self.name + "_v"), getattr(module, self.name + "_g"),
                            self.dim)

    def __call__(self, module, inputs):
        setattr(module, self.name, self.compute_weight(module))


def weight_norm(module, name="weight", dim=0):
    """Reparametrize `module.<name>` as a norm `<name>_g` times a direction `<name>_v`."""
    warnings.warn("`torch.nn.utils.weight_norm` is deprecated in favor of "
                  "`torch.nn.utils.parametrizations.weight_norm`.", FutureWarning, stacklevel=2)
    weight = hooked_parameter(module, name, WeightNorm, "weight_norm")
    fn = WeightNorm(name, dim)
    with no_grad():
        g = norm_except_dim(weight, fn.dim)
    del module._parameters[name]
    module.register_parameter(name + "_g", Parameter(g.detach()))
    module.register_parameter(name + "_v", Parameter(weight.detach()))
    setattr(module, name, fn.compute_weight(module))
    module.register_forward_pre_hook(fn)
    return module


def remove_weight_norm(module, name="weight"):
    """Undo `weight_norm`: `module.<name>` is a parameter again, holding the current weight."""
    for key, hook in list(module._forward_pre_hooks.items()):
        if isinstance(hook, WeightNorm) and hook.name == name:
            weight = hook.compute_weight(module)
            del module.__dict__[name]
            del module._parameters[name + "_g"]
            del module._parameters[name + "_v"]
            module.register_parameter(name, Parameter(weight.detach()))
            del module._forward_pre_hooks[key]
            return module
    raise ValueError(f"weight_norm of '{name}' not found in {module}")
