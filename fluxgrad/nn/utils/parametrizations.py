"""`nn.utils.parametrizations`: weight normalisation as a parametrization (PyTorch's
`parametrizations.weight_norm`), w = g * v / ||v||, with the magnitude g in `original0` and the
direction v in `original1`."""
from ...ops.matrix_functions import vector_norm
from ..module import Module
from . import parametrize

__all__ = ["weight_norm"]


def norm_except_dim(v, pow=2, dim=0):
    """The `pow`-norm of v over every dimension but `dim`, kept as size-1 dimensions (dim -1:
    the norm of the whole tensor, a 0-d tensor), as torch.norm_except_dim."""
    if dim == -1:
        return vector_norm(v, pow)
    dim = dim % v.ndim
    return vector_norm(v, pow, dim=tuple(d for d in range(v.ndim) if d != dim), keepdim=True)


def weight_normalized(v, g, dim):
    """v * (g / ||v||) with the norm taken as norm_except_dim(v, 2, dim) (torch._weight_norm)."""
    return v * (g / norm_except_dim(v, 2, dim))


class _WeightNorm(Module):
    def __init__(self, dim=0):
        super().__init__()
        self.dim = -1 if dim is None else dim

    def forward(self, weight_g, weight_v):
        return weight_normalized(weight_v, weight_g, self.dim)

    def right_inverse(self, weight):
        return norm_except_dim(weight, 2, self.dim), weight


def weight_norm(module, name="weight", dim=0):
    """Reparametrize `module.<name>` as g * v / ||v|| (the norm over every dimension but `dim`;
    dim=None: the whole tensor); g is `parametrizations.<name>.original0`, v `original1`."""
    parametrize.register_parametrization(module, name, _WeightNorm(dim), unsafe=True)
    return module
