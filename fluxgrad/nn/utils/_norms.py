"""What the weight-norm and spectral-norm reparametrizations share (both APIs): their
arithmetic, and the checks of the hook-based ones."""
import builtins

from ... import ops
from ..._core.grad_mode import no_grad
from .. import functional as F
from ..parameter import Parameter


def norm_except_dim(v, dim):
    """The 2-norm of `v` over every dimension but `dim`, keeping the dimensions; over all of
    them (a 0-d result) when `dim` is -1, as torch.norm_except_dim."""
    if dim == -1:
        return ops.norm(v)
    dim %= builtins.max(v.ndim, 1)
    axes = tuple(a for a in range(v.ndim) if a != dim)
    return ops.norm(v, 2, axes, keepdim=True) if axes else ops.abs(v)


def weight_norm(v, g, dim):
    """v scaled to the norm g (torch._weight_norm)."""
    return v * (g / norm_except_dim(v, dim))


def as_matrix(weight, dim):
    """`weight` with dimension `dim` in front, flattened to [size of dim, rest]."""
    if dim != 0:
        weight = weight.permute(dim, *(d for d in range(weight.ndim) if d != dim))
    return weight.reshape(weight.shape[0], weight.numel() // builtins.max(weight.shape[0], 1))


def power_iteration(weight_mat, u, v, steps, eps, u_first):
    """`steps` power-method updates of the buffers u and v (in place, outside autograd), in
    the order of the API that calls it: u from v first (`u_first`), or v from u first."""
    with no_grad():
        for _ in range(steps):
            if u_first:
                u._data[...] = F.normalize(ops.mv(weight_mat, v), dim=0, eps=eps)._data
                v._data[...] = F.normalize(ops.mv(weight_mat.mT, u), dim=0, eps=eps)._data
            else:
                v._data[...] = F.normalize(ops.mv(weight_mat.mT, u), dim=0, eps=eps)._data
                u._data[...] = F.normalize(ops.mv(weight_mat, v), dim=0, eps=eps)._data
        u._bump_version()
        v._bump_version()


def spectral_dim(module, dim):
    """The dimension spectral norm keeps: `dim`, else 1 for a transposed convolution, else 0."""
    if dim is not None:
        return dim
    return 1 if "ConvTranspose" in type(module).__name__ else 0


def hooked_parameter(module, name, hook_type, op):
    """The parameter `name` of `module` that a hook of `hook_type` (named `op`) will normalise;
    refused when the module has no such parameter or such a hook on it already."""
    for hook in module._forward_pre_hooks.values():
        if isinstance(hook, hook_type) and hook.name == name:
            raise RuntimeError(f"Cannot register two {op} hooks on the same parameter {name}")
    weight = module._parameters.get(name)
    if not isinstance(weight, Parameter):
        raise ValueError(f"{op}: module {type(module).__name__} has no parameter named "
                         f"{name!r}")
    return weight
