"""PyTorch's top-level spellings of functions that live elsewhere in fluxgrad, exported from
`fluxgrad` itself: the in-place functions (`torch.relu_(x)` is `x.relu_()`), the `*_copy`
functions (`torch.permute_copy(x, dims)` is `x.permute(dims)` as a new tensor), and the
`torch.*` forms of `torch.nn.functional` ops, with torch's own argument orders (which differ
from F's for batch_norm, instance_norm and embedding); and the Tensor methods torch has for
some of them (`x.hardshrink()`, `x.prelu(w)`, `x.unsafe_split(2)`)."""
from .._core.tensor import Tensor
from ..ops._family import refuse_python_value
from ..ops.shape import chunk, split
from . import functional as F

IN_PLACE = ("abs acos acosh arccos arccosh arcsin arcsinh arctan arctanh asin asinh atan atanh "
            "ceil celu clamp clamp_max clamp_min clip cos cosh deg2rad erf erfc exp exp2 expm1 "
            "fix floor frac gcd i0 lcm ldexp log log10 log1p log2 logit nan_to_num neg negative "
            "rad2deg reciprocal relu round rsqrt selu sigmoid sin sinc sinh sqrt square tan tanh "
            "trunc xlogy addmv fill zero").split()
COPIES = ("alias detach diagonal expand permute select slice split split_with_sizes squeeze t "
          "transpose unbind unfold unsqueeze view").split()


def _in_place(name):
    def function(input, *args, **kwargs):
        try:
            method = getattr(input, name + "_")
        except AttributeError:
            refuse_python_value(input, name + "_")
            raise
        return method(*args, **kwargs)
    function.__name__ = name + "_"
    function.__doc__ = f"`input.{name}_(...)`: {name}, written into input."
    return function


def _copy(name):
    method = {"alias": "view_as", "slice": "narrow"}.get(name, name)

    def function(input, *args, **kwargs):
        if name == "alias":
            args = (input,)
        if not isinstance(input, Tensor):
            refuse_python_value(input, name + "_copy")
        if name == "slice":  # torch.slice_copy(input, dim=0, start=None, end=None, step=1)
            return _slice(input, *args, **kwargs).clone()
        result = getattr(input, method)(*args, **kwargs)
        if isinstance(result, (tuple, list)):
            return type(result)(r.clone() for r in result)
        return result.clone()
    function.__name__ = name + "_copy"
    function.__doc__ = f"`input.{method}(...)` as a new tensor (no view)."
    return function


def _slice(input, dim=0, start=None, end=None, step=1):
    index = [slice(None)] * input.ndim
    index[dim] = slice(start, end, step)
    return input[tuple(index)]


def batch_norm(input, weight, bias, running_mean, running_var, training, momentum, eps,
               cudnn_enabled=True):
    """torch.batch_norm: F.batch_norm's arguments in another order."""
    return F.batch_norm(input, running_mean, running_var, weight, bias, training, momentum, eps)


def instance_norm(input, weight, bias, running_mean, running_var, use_input_stats, momentum,
                  eps, cudnn_enabled=True):
    """torch.instance_norm: F.instance_norm's arguments in another order."""
    return F.instance_norm(input, running_mean, running_var, weight, bias, use_input_stats,
                           momentum, eps)


def layer_norm(input, normalized_shape, weight=None, bias=None, eps=1e-5, cudnn_enable=True):
    return F.layer_norm(input, normalized_shape, weight, bias, eps)


def group_norm(input, num_groups, weight=None, bias=None, eps=1e-5, cudnn_enabled=True):
    return F.group_norm(input, num_groups, weight, bias, eps)


def embedding(weight, indices, padding_idx=-1, scale_grad_by_freq=False, sparse=False):
    """torch.embedding: the weight first (F.embedding takes the indices first)."""
    return F.embedding(indices, weight, None if padding_idx < 0 else padding_idx)


def dropout(input, p, train):
    return F.dropout(input, p, train)


def alpha_dropout(input, p, train):
    return F.alpha_dropout(input, p, train)


def feature_alpha_dropout(input, p, train):
    return F.feature_alpha_dropout(input, p, train)


def constant_pad_nd(input, pad, value=0):
    return F.pad(input, pad, "constant", value)


def unsafe_chunk(input, chunks, dim=0):
    return chunk(input, chunks, dim)


def unsafe_split(input, split_size_or_sections, dim=0):
    return split(input, split_size_or_sections, dim)


_SAME_AS_F = ("bilinear prelu rrelu hardshrink threshold max_pool3d adaptive_max_pool1d "
              "rms_norm").split()

__all__ = ["batch_norm", "instance_norm", "layer_norm", "group_norm", "embedding", "dropout",
           "alpha_dropout", "feature_alpha_dropout", "constant_pad_nd", "unsafe_chunk",
           "unsafe_split"]
for _name in IN_PLACE:
    globals()[_name + "_"] = _in_place(_name)
    __all__.append(_name + "_")
for _name in COPIES:
    globals()[_name + "_copy"] = _copy(_name)
    __all__.append(_name + "_copy")
for _name in _SAME_AS_F:
    globals()[_name] = getattr(F, _name)
    __all__.append(_name)

Tensor.hardshrink = F.hardshrink
Tensor.prelu = F.prelu
Tensor.unsafe_chunk = unsafe_chunk
Tensor.unsafe_split = unsafe_split
