"""`fluxgrad.static.nn`: control flow as sub-programs (`cond`, `while_loop`, `scan`), and
PaddlePaddle's `fc` layer as a function that creates its parameters."""
import math

from .control_flow import cond, scan, while_loop  # noqa: F401

__all__ = ["cond", "while_loop", "scan", "fc"]

_ACTIVATIONS = ("relu", "sigmoid", "tanh", "softmax", "gelu", "leaky_relu", "elu", "silu")


def fc(x, size, num_flatten_dims=1, weight_attr=None, bias_attr=None, activation=None,
       name=None):
    """PaddlePaddle's fully connected layer: `x` flattened to 2-d after its first
    `num_flatten_dims` dims, times a new weight [features, size] (Xavier uniform), plus a new
    bias [size] (zeros; `bias_attr=False`: none), then `activation` (a name, as 'relu').
    A list of inputs: one weight each, their products summed, one bias."""
    from .. import ops
    from ..nn import functional as F
    from . import create_parameter
    xs = list(x) if isinstance(x, (list, tuple)) else [x]
    if activation is not None and activation not in _ACTIVATIONS:
        raise ValueError(f"static.nn.fc: activation {activation!r} is not one of "
                         f"{list(_ACTIVATIONS)}")
    out = None
    for k, v in enumerate(xs):
        if not 1 <= num_flatten_dims < v.ndim:
            raise ValueError(f"static.nn.fc: num_flatten_dims must be in [1, {v.ndim - 1}] "
                             f"for an input of shape {list(v.shape)}, got {num_flatten_dims}")
        features = math.prod(v.shape[num_flatten_dims:])
        w = create_parameter([features, size], v.dtype, name=_param_name(name, "w", k))
        flat = v.reshape(*v.shape[:num_flatten_dims], features) \
            if v.ndim > num_flatten_dims + 1 else v
        term = ops.matmul(flat, w)
        out = term if out is None else out + term
    if bias_attr is not False:
        out = out + create_parameter([size], out.dtype, name=_param_name(name, "b", 0),
                                     is_bias=True)
    return out if activation is None else getattr(F, activation)(out)


def _param_name(name, kind, k):
    return None if name is None else f"{name}.{kind}_{k}"
