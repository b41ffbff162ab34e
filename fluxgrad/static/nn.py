"""`fluxgrad.static.nn`: control flow as sub-programs (`cond`, `while_loop`, `scan`, and
PaddlePaddle's `case` and `switch_case` as nested `cond`s), and PaddlePaddle's layers as
functions that create their parameters: `fc`, `conv2d`, `batch_norm`, `layer_norm`,
`embedding`, `dropout` (each made by the fluxgrad layer that computes it, whose parameters become the
program's; `name` names them `<name>.w_0` / `<name>.b_0`; `param_attr` / `bias_attr` are
`fluxgrad.ParamAttr`s: initializer, name, learning rate, regularizer, trainable)."""
import math

from .control_flow import cond, scan, while_loop  # noqa: F401

__all__ = ["cond", "while_loop", "scan", "case", "switch_case", "fc", "conv2d", "batch_norm",
           "layer_norm", "embedding", "dropout"]

_ACTIVATIONS = ("relu", "sigmoid", "tanh", "softmax", "gelu", "leaky_relu", "elu", "silu")


def fc(x, size, num_flatten_dims=1, weight_attr=None, bias_attr=None, activation=None,
       name=None):
    """PaddlePaddle's fully connected layer: `x` flattened to 2-d after its first
    `num_flatten_dims` dims, times a new weight [features, size] (Xavier uniform), plus a new
    bias [size] (zeros; `bias_attr=False`: none), then `activation` (a name, as 'relu').
    `weight_attr` / `bias_attr`: `fluxgrad.ParamAttr`s (or initializers) of the new ones.
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
        w = create_parameter([features, size], v.dtype, name=_param_name(name, "w", k),
                             attr=weight_attr)
        flat = v.reshape(*v.shape[:num_flatten_dims], features) \
            if v.ndim > num_flatten_dims + 1 else v
        term = ops.matmul(flat, w)
        out = term if out is None else out + term
    if bias_attr is not False:
        out = out + create_parameter([size], out.dtype, name=_param_name(name, "b", 0),
                                     is_bias=True, attr=bias_attr)
    return out if activation is None else getattr(F, activation)(out)


def _param_name(name, kind, k):
    return None if name is None else f"{name}.{kind}_{k}"


def case(pred_fn_pairs, default=None, name=None):
    """PaddlePaddle's `case`: the function of the first pair (pred, fn) whose pred holds, else
    `default()` (None: the last pair's function), decided when the program runs."""
    pairs = list(pred_fn_pairs)
    if not pairs or any(not isinstance(p, (tuple, list)) or len(p) != 2 or not callable(p[1])
                        for p in pairs):
        raise TypeError("static.nn.case: pred_fn_pairs must be a non-empty list of "
                        "(boolean Variable, function) pairs")
    if default is None:
        pairs, default = pairs[:-1], pairs[-1][1]
    result = default
    for pred, fn in reversed(pairs):
        result = (lambda pred, fn, otherwise: lambda: cond(pred, fn, otherwise))(
            pred, fn, result)
    return result()


def switch_case(branch_index, branch_fns, default=None, name=None):
    """PaddlePaddle's `switch_case`: the function of `branch_fns` (a dict or list of
    (index, fn) pairs, or a list of functions, indexed by position) whose index equals
    `branch_index` (an int Variable of one value), else `default()` (None: the function of
    the largest index)."""
    if isinstance(branch_fns, dict):
        pairs = list(branch_fns.items())
    else:
        pairs = [f if isinstance(f, (tuple, list)) else (k, f) for k, f in enumerate(branch_fns)]
    if not pairs or any(not isinstance(k, int) or not callable(f) for k, f in pairs):
        raise TypeError("static.nn.switch_case: branch_fns must map ints to functions, got "
                        f"{branch_fns!r}")
    pairs.sort(key=lambda p: p[0])
    if default is None:
        pairs, default = pairs[:-1], pairs[-1][1]
    return case([(branch_index == k, f) for k, f in pairs], default)


def _activation(out, act, op):
    from ..nn import functional as F
    if act is None:
        return out
    if act not in _ACTIVATIONS:
        raise ValueError(f"static.nn.{op}: act {act!r} is not one of {list(_ACTIVATIONS)}")
    return getattr(F, act)(out)


def _named(layer, name):
    """`layer`'s parameters as the program's, named as their ParamAttr named them, else
    `<name>.w_0` (weight) and `<name>.b_0`."""
    from .parameters import to_static_parameter
    for key, p in list(layer._parameters.items()):
        if p is None:
            continue
        if p.name is not None:
            layer._parameters[key] = to_static_parameter(p, p.name)
        elif name is not None:
            layer._parameters[key] = to_static_parameter(
                p, f"{name}.{'b' if key == 'bias' else 'w'}_0")
    return layer


def conv2d(input, num_filters, filter_size, stride=1, padding=0, dilation=1, groups=1,
           param_attr=None, bias_attr=None, use_cudnn=True, act=None, name=None,
           data_format="NCHW"):
    """PaddlePaddle's 2-d convolution layer over `input` [N, C, H, W] ('NHWC': [N, H, W, C]):
    `num_filters` new filters of `filter_size` (a bias unless `bias_attr=False`), then `act`.
    `padding` may be 'SAME' (stride 1) or 'VALID'."""
    from .. import nn
    if data_format not in ("NCHW", "NHWC"):
        raise ValueError(f"static.nn.conv2d: data_format must be 'NCHW' or 'NHWC', got "
                         f"{data_format!r}")
    if input.ndim != 4:
        raise ValueError(f"static.nn.conv2d: expects a 4-d input, got shape {list(input.shape)}")
    x = input if data_format == "NCHW" else input.permute(0, 3, 1, 2)
    if isinstance(padding, str):
        if padding.upper() not in ("SAME", "VALID"):
            raise ValueError(f"static.nn.conv2d: padding {padding!r} is not 'SAME' or 'VALID'")
        padding = "same" if padding.upper() == "SAME" else 0
    layer = _named(nn.Conv2d(x.shape[1], num_filters, filter_size, stride, padding, dilation,
                             groups, weight_attr=param_attr, bias_attr=bias_attr)
                   .to(dtype=x.dtype), name)
    out = layer(x)
    out = out if data_format == "NCHW" else out.permute(0, 2, 3, 1)
    return _activation(out, act, "conv2d")


def batch_norm(input, act=None, is_test=False, momentum=0.9, epsilon=1e-05, param_attr=None,
               bias_attr=None, data_layout="NCHW", in_place=False, name=None,
               moving_mean_name=None, moving_variance_name=None,
               do_model_average_for_mean_and_var=True, use_global_stats=False):
    """PaddlePaddle's batch norm layer over the channels (axis 1; 'NHWC': the last): batch
    statistics in training, the moving ones (moving = momentum * moving + (1 - momentum) *
    batch) when `is_test` or `use_global_stats`, and in a `clone(for_test=True)`; then `act`."""
    from .. import nn
    if data_layout not in ("NCHW", "NHWC"):
        raise ValueError(f"static.nn.batch_norm: data_layout must be 'NCHW' or 'NHWC', got "
                         f"{data_layout!r}")
    if not 2 <= input.ndim <= 5:
        raise ValueError(f"static.nn.batch_norm: expects a 2-d to 5-d input, got shape "
                         f"{list(input.shape)}")
    channels_last = data_layout == "NHWC" and input.ndim > 2
    x = input.movedim(-1, 1) if channels_last else input
    kind = {2: nn.BatchNorm1d, 3: nn.BatchNorm1d, 4: nn.BatchNorm2d, 5: nn.BatchNorm3d}
    from .. import param_attr as attrs
    layer = kind[x.ndim](x.shape[1], eps=epsilon, momentum=1.0 - momentum).to(dtype=x.dtype)
    attrs.apply(layer.weight, attrs.to_attr(param_attr, "static.nn.batch_norm", "param_attr"))
    attrs.apply(layer.bias, attrs.to_attr(bias_attr, "static.nn.batch_norm", "bias_attr"))
    layer = _named(layer, name)
    from .parameters import to_static_buffer
    for key, buffer_name in (("running_mean", moving_mean_name),
                             ("running_var", moving_variance_name)):
        if buffer_name is not None:
            layer._buffers[key] = to_static_buffer(layer._buffers[key], buffer_name)
    if is_test or use_global_stats:
        layer.eval()
    out = layer(x)
    return _activation(out.movedim(1, -1) if channels_last else out, act, "batch_norm")


def layer_norm(input, scale=True, shift=True, begin_norm_axis=1, epsilon=1e-05,
               param_attr=None, bias_attr=None, act=None, name=None):
    """PaddlePaddle's layer norm: normalises over the axes from `begin_norm_axis` on, times a
    new scale (ones; `scale=False`: none) plus a new shift (zeros; `shift=False`: none)."""
    from ..nn import functional as F
    from . import create_parameter
    if not 1 <= begin_norm_axis < input.ndim:
        raise ValueError(f"static.nn.layer_norm: begin_norm_axis must be in [1, "
                         f"{input.ndim - 1}] for an input of shape {list(input.shape)}, got "
                         f"{begin_norm_axis}")
    shape = tuple(input.shape[begin_norm_axis:])
    size = math.prod(shape)
    weight = create_parameter([size], input.dtype, name=_param_name(name, "w", 0),
                              default_initializer=_constant(1.0), attr=param_attr) \
        if scale else None
    bias = create_parameter([size], input.dtype, name=_param_name(name, "b", 0),
                            is_bias=True, attr=bias_attr) if shift else None
    out = F.layer_norm(input, shape, None if weight is None else weight.reshape(shape),
                       None if bias is None else bias.reshape(shape), epsilon)
    return _activation(out, act, "layer_norm")


def embedding(input, size, is_sparse=False, is_distributed=False, padding_idx=None,
              param_attr=None, dtype="float32", name=None):
    """PaddlePaddle's embedding: rows of a new table [size[0], size[1]] at the int ids of
    `input`; the row `padding_idx` (negative: from the end) is zeros and gets no gradient."""
    from .. import nn
    if len(size) != 2:
        raise ValueError(f"static.nn.embedding: size must be [vocabulary, dimension], got "
                         f"{size!r}")
    if padding_idx is not None and padding_idx < 0:
        padding_idx += size[0]
    layer = _named(nn.Embedding(size[0], size[1], padding_idx=padding_idx,
                                weight_attr=param_attr).to(dtype=dtype), name)
    return layer(input)


def dropout(x, dropout_prob, is_test=False, seed=None, name=None,
            dropout_implementation="downgrade_in_infer"):
    """PaddlePaddle's static dropout: zero each element with probability `dropout_prob`.
    'downgrade_in_infer' (the default): training `x * mask`, inference `x * (1 - p)`;
    'upscale_in_train': training `x * mask / (1 - p)`, inference `x`. Inference is `is_test`
    or a `clone(for_test=True)`. An int `seed` drops the same elements at every run."""
    from .. import ops
    from ..random_ops import uniform
    from .for_test import infers_as
    if dropout_implementation not in ("downgrade_in_infer", "upscale_in_train"):
        raise ValueError(f"static.nn.dropout: dropout_implementation must be "
                         f"'downgrade_in_infer' or 'upscale_in_train', got "
                         f"{dropout_implementation!r}")
    p = float(dropout_prob)
    if not 0 <= p <= 1:
        raise ValueError(f"static.nn.dropout: dropout_prob must be in [0, 1], got {dropout_prob}")
    upscale = dropout_implementation == "upscale_in_train"
    test = x if upscale else x * (1.0 - p)
    if is_test:
        return test
    keep = ops.greater_equal(uniform(x.shape, "float64", generator=seed), p)
    out = x * ops.cast(keep, x.dtype)
    if upscale:
        out = out * (1.0 / (1.0 - p)) if p < 1 else out
    infers_as(out, test)
    return out


def _constant(value):
    from ..nn import init
    return lambda t: init.constant_(t, value)
