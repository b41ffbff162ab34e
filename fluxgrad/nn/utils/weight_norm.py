"""The hook-based `nn.utils.weight_norm` (deprecated in PyTorch for
`nn.utils.parametrizations.weight_norm`): `weight` becomes a plain attribute recomputed as
g * v / ||v|| before every forward from the parameters `weight_g` and `weight_v`."""
import warnings

from ..parameter import Parameter
from .parametrizations import norm_except_dim, weight_normalized

__all__ = ["weight_norm", "remove_weight_norm"]


class WeightNorm:
    """The forward pre-hook that recomputes `module.<name>` from `<name>_g` and `<name>_v`."""

    def __init__(self, name, dim):
        self.name, self.dim = name, -1 if dim is None else dim

    def compute_weight(self, module):
        return weight_normalized(getattr(module, self.name + "_v"),
                                 getattr(module, self.name + "_g"), self.dim)

    def __call__(self, module, inputs):
        setattr(module, self.name, self.compute_weight(module))

    def remove(self, module):
        weight = self.compute_weight(module)
        delattr(module, self.name)
        del module._parameters[self.name + "_g"]
        del module._parameters[self.name + "_v"]
        setattr(module, self.name, Parameter(weight.detach()))


def weight_norm(module, name="weight", dim=0):
    """Split `module.<name>` into a magnitude `<name>_g` and a direction `<name>_v`; returns the
    module."""
    warnings.warn("torch.nn.utils.weight_norm is deprecated in favor of "
                  "torch.nn.utils.parametrizations.weight_norm.", FutureWarning, stacklevel=2)
    for hook in module._forward_pre_hooks.values():
        if isinstance(hook, WeightNorm) and hook.name == name:
            raise RuntimeError(f"Cannot register two weight_norm hooks on the same parameter "
                               f"{name}")
    fn = WeightNorm(name, dim)
    weight = getattr(module, name)
    if not isinstance(weight, Parameter):
        raise ValueError(f"weight_norm: {type(module).__name__}.{name} is not a parameter")
    del module._parameters[name]
    module.register_parameter(name + "_g", Parameter(norm_except_dim(weight, 2, fn.dim).detach()))
    module.register_parameter(name + "_v", Parameter(weight.detach()))
    setattr(module, name, fn.compute_weight(module))
    module.register_forward_pre_hook(fn)
    return module


def remove_weight_norm(module, name="weight"):
    """Undo `weight_norm`: `<name>` is a parameter again, holding the current weight."""
    for key, hook in list(module._forward_pre_hooks.items()):
        if isinstance(hook, WeightNorm) and hook.name == name:
            hook.remove(module)
            del module._forward_pre_hooks[key]
            return module
    raise ValueError(f"weight_norm of '{name}' not found in {module}")
