"""Layers: containers, linear, convolution, pooling, normalisation, dropout, embedding, activations.

Each layer initialises its parameters like PyTorch's default and computes with
`nn.functional`.
"""
import inspect
import math
from collections import OrderedDict

import numpy as np

from .. import ops as _ops
from .. import param_attr
from .._core import dtypes
from .._core.errors import AssertedArgument, DTypeNotImplemented, ShapeError
from .._core.grad_mode import no_grad
from ..creation import ones, tensor, zeros
from . import functional as F
from . import init
from .module import Module
from .parameter import Parameter

__all__ = ["Sequential", "ModuleList", "LayerList", "ModuleDict", "LayerDict", "ParameterDict",
           "ParameterList", "Identity", "Linear", "Bilinear", "Flatten", "Unflatten", "Dropout",
           "Embedding",
           "Conv1d", "Conv2d", "ConvTranspose1d", "ConvTranspose2d", "MaxPool1d", "MaxPool2d",
           "AvgPool1d", "AvgPool2d", "AdaptiveAvgPool1d", "AdaptiveAvgPool2d", "BatchNorm1d",
           "BatchNorm2d", "BatchNorm", "LayerNorm", "GroupNorm", "ReLU", "ReLU6", "LeakyReLU",
           "ELU", "SELU", "CELU", "GELU", "SiLU", "Swish", "Mish", "Sigmoid", "Tanh", "Softplus",
           "Softsign", "Hardtanh", "Hardsigmoid", "Hardswish", "LogSigmoid", "Tanhshrink",
           "Hardshrink", "Softshrink", "Softmax", "LogSoftmax", "PReLU", "Conv1D", "Conv2D",
           "Conv2DTranspose", "MaxPool2D", "AdaptiveAvgPool2D"]
__all__ += ["MultiheadAttention", "Softmin", "MaxUnpool2d", "Conv3d", "ConvTranspose3d",
            "AvgPool3d", "Upsample", "UpsamplingNearest2d", "UpsamplingBilinear2d"]


def _empty(*shape):
    for n in shape:
        if not isinstance(n, (int, np.integer)):
            raise TypeError(f"a layer's sizes must be ints, got {type(n).__name__} {n!r} in the "
                            f"parameter shape {list(shape)}; pass whole numbers")
        if n < 0:
            raise ShapeError(f"a layer's sizes must be non-negative, got the parameter shape "
                             f"{list(shape)}; check the sizes given to the layer")
    return Parameter(np.empty(shape, dtypes.default_float.np))


# --- containers ---------------------------------------------------------------------------
class Sequential(Module):
    """Modules applied one after another: `Sequential(a, b)` or `Sequential(OrderedDict(...))`."""

    def __init__(self, *layers):
        super().__init__()
        if len(layers) == 1 and isinstance(layers[0], (dict, OrderedDict)):
            for name, layer in layers[0].items():
                self.add_module(name, layer)
        else:
            for i, layer in enumerate(layers):
                if isinstance(layer, (tuple, list)) and len(layer) == 2:
                    self.add_module(*layer)  # PaddlePaddle's (name, layer) pairs
                else:
                    self.add_module(str(i), layer)

    def forward(self, input):
        for layer in self._modules.values():
            input = layer(input)
        return input

    def __getitem__(self, index):
        layers = list(self._modules.values())
        if isinstance(index, slice):
            return Sequential(OrderedDict(list(self._modules.items())[index]))
        return layers[index]

    def __len__(self):
        return len(self._modules)

    def __iter__(self):
        return iter(self._modules.values())

    def append(self, layer):
        self.add_module(str(len(self._modules)), layer)
        return self

    def extend(self, layers):
        for layer in layers:
            self.append(layer)
        return self

    def insert(self, index, module):
        n = len(self._modules)
        if not -n <= index <= n:
            raise IndexError(f"Index out of range: {index}")
        layers = list(self._modules.values())
        layers.insert(index + n if index < 0 else index, module)
        self._renumber(layers)
        return self

    def __setitem__(self, index, module):
        key = list(self._modules)[index]
        self.add_module(key, module)

    def __delitem__(self, index):
        layers = list(self._modules.values())
        del layers[index]
        self._renumber(layers)

    def pop(self, index):
        layer = self[index]
        del self[index]
        return layer

    def _renumber(self, layers):
        # PyTorch keeps the names 0..n-1 after an insert or a deletion
        self._modules.clear()
        for i, layer in enumerate(layers):
            self.add_module(str(i), layer)


class ModuleList(Module):
    """A list of modules, registered (so their parameters are found) but not called in order."""

    def __init__(self, modules=None):
        super().__init__()
        for m in modules or ():
            self.append(m)

    def append(self, module):
        self.add_module(str(len(self._modules)), module)
        return self

    def extend(self, modules):
        for m in modules:
            self.append(m)
        return self

    __iadd__ = extend

    def __add__(self, other):
        return ModuleList(list(self) + list(other))

    def pop(self, index):
        module = self[index]
        items = list(self._modules.values())
        del items[index]
        self._modules.clear()
        self.extend(items)
        return module

    def insert(self, index, module):
        items = list(self._modules.values())
        items.insert(index, module)
        self._modules.clear()
        for m in items:
            self.append(m)

    def __getitem__(self, index):
        if isinstance(index, slice):
            return ModuleList(list(self._modules.values())[index])
        return list(self._modules.values())[index]

    def __setitem__(self, index, module):
        key = list(self._modules)[index]
        self.add_module(key, module)

    def __len__(self):
        return len(self._modules)

    def __iter__(self):
        return iter(self._modules.values())

    def __repr__(self):
        # PyTorch's: a run of modules that print alike prints once, as "(0-2): 3 x Block(...)"
        runs = []
        for i, child in enumerate(self._modules.values()):
            text = repr(child)
            if runs and runs[-1][2] == text:
                runs[-1][1] = i
            else:
                runs.append([i, i, text])
        return self._repr_with([f"({first}): {text}" if first == last else
                                f"({first}-{last}): {last - first + 1} x {text}"
                                for first, last, text in runs])


class _KeyedContainer(Module):
    """The dict methods of ModuleDict and ParameterDict, over the module table `_table`
    their entries are registered in (`__setitem__` says how an entry is registered)."""

    _table = None

    def __init__(self, entries=None):
        super().__init__()
        if entries is not None:
            self.update(entries)

    def _entries(self):
        return self.__dict__[self._table]

    def __getitem__(self, key):
        return self._entries()[key]

    def __delitem__(self, key):
        del self._entries()[key]

    def __contains__(self, key):
        return key in self._entries()

    def __len__(self):
        return len(self._entries())

    def __iter__(self):
        return iter(self._entries())

    def keys(self):
        return self._entries().keys()

    def values(self):
        return self._entries().values()

    def items(self):
        return self._entries().items()

    def get(self, key, default=None):
        return self._entries().get(key, default)

    def pop(self, key):
        return self._entries().pop(key)

    def update(self, entries):
        for key, value in (entries.items() if hasattr(entries, "items") else entries):
            self[key] = value


class ModuleDict(_KeyedContainer):
    """A dict of modules, registered under their keys."""

    _table = "_modules"

    def __setitem__(self, key, module):
        self.add_module(key, module)


class ParameterDict(_KeyedContainer):
    """A dict of parameters, registered under their keys (so they are found by
    `parameters()` and saved in the state_dict)."""

    _table = "_parameters"

    def __setitem__(self, key, param):
        self.register_parameter(key, param if param is None or isinstance(param, Parameter)
                                else Parameter(param))

    def extra_repr(self):
        return "\n".join(f"  ({key}): {_describe_parameter(p, p.type())}"
                         for key, p in self.items())


def _describe_parameter(p, kind):
    """PyTorch's line for a parameter in a ParameterList / ParameterDict: its kind (dtype or
    type name) and sizes, not its values."""
    size = "x".join(str(n) for n in p.shape)
    return f"Parameter containing: [{kind} of size {size}]"


class ParameterList(Module):
    def __init__(self, parameters=None):
        super().__init__()
        for p in parameters or ():
            self.append(p)

    def append(self, param):
        self.register_parameter(str(len(self._parameters)), param)
        return self

    def __getitem__(self, index):
        return list(self._parameters.values())[index]

    def __len__(self):
        return len(self._parameters)

    def __iter__(self):
        return iter(self._parameters.values())

    def extend(self, parameters):
        for p in parameters:
            self.append(p)
        return self

    def extra_repr(self):
        return "\n".join(f"  ({i}): {_describe_parameter(p, p.dtype)}"
                         for i, p in enumerate(self))


LayerList, LayerDict = ModuleList, ModuleDict


def _attrs(layer, weight_attr, bias_attr):
    """PaddlePaddle's `weight_attr` / `bias_attr` as ParamAttrs (False: no parameter)."""
    owner = type(layer).__name__
    if weight_attr is False:
        raise ValueError(f"{owner}: weight_attr=False: the layer needs its weight; only "
                         "bias_attr may be False")
    return (param_attr.to_attr(weight_attr, owner, "weight_attr"),
            param_attr.to_attr(bias_attr, owner, "bias_attr"))


# --- linear ---------------------------------------------------------------------------------
class Identity(Module):
    def __init__(self, *args, **kwargs):
        super().__init__()

    def forward(self, input):
        return input


class Linear(Module):
    """`y = x W^T + b` with W [out_features, in_features], initialised as PyTorch.
    PaddlePaddle's `weight_attr` / `bias_attr` (see `fluxgrad.ParamAttr`) see the weight as
    Paddle lays it out, [in_features, out_features]."""

    def __init__(self, in_features, out_features, bias=True, dtype=None, *, weight_attr=None,
                 bias_attr=None, name=None):
        super().__init__()
        weight_attr, bias_attr = _attrs(self, weight_attr, bias_attr)
        self.in_features, self.out_features = int(in_features), int(out_features)
        self.weight = _empty(self.out_features, self.in_features)
        self.bias = _empty(self.out_features) if bias and bias_attr is not False else None
        self.reset_parameters()
        param_attr.apply(self.weight, weight_attr, param_attr.transposed_view(self.weight))
        if self.bias is not None:
            param_attr.apply(self.bias, bias_attr)
        if dtype is not None:
            self.to(dtype)

    def reset_parameters(self):
        init.kaiming_uniform_(self.weight, a=math.sqrt(5))
        if self.bias is not None:
            bound = 1 / math.sqrt(self.in_features) if self.in_features else 0
            init.uniform_(self.bias, -bound, bound)

    def forward(self, input):
        if input.shape[-1:] != (self.in_features,):
            raise ShapeError(f"Linear({self.in_features}, {self.out_features}): expected input "
                             f"with last dimension {self.in_features}, got shape "
                             f"{list(input.shape)}")
        return F.linear(input, self.weight, self.bias)

    def extra_repr(self):
        return (f"in_features={self.in_features}, out_features={self.out_features}, "
                f"bias={self.bias is not None}")


class Bilinear(Module):
    """`y_k = x1^T W_k x2 + b_k`."""

    def __init__(self, in1_features, in2_features, out_features, bias=True):
        super().__init__()
        self.in1_features, self.in2_features = in1_features, in2_features
        self.out_features = out_features
        self.weight = _empty(out_features, in1_features, in2_features)
        self.bias = _empty(out_features) if bias else None
        bound = 1 / math.sqrt(in1_features)
        init.uniform_(self.weight, -bound, bound)
        if self.bias is not None:
            init.uniform_(self.bias, -bound, bound)

    def forward(self, input1, input2):
        return F.bilinear(input1, input2, self.weight, self.bias)

    def extra_repr(self):
        return (f"in1_features={self.in1_features}, in2_features={self.in2_features}, "
                f"out_features={self.out_features}, bias={self.bias is not None}")


class Flatten(Module):
    def __init__(self, start_dim=1, end_dim=-1):
        super().__init__()
        self.start_dim, self.end_dim = start_dim, end_dim

    def forward(self, input):
        return _ops.flatten(input, self.start_dim, self.end_dim)

    def extra_repr(self):
        return f"start_dim={self.start_dim}, end_dim={self.end_dim}"


class Unflatten(Module):
    def __init__(self, dim, unflattened_size):
        super().__init__()
        self.dim, self.unflattened_size = dim, tuple(unflattened_size)

    def forward(self, input):
        return _ops.unflatten(input, self.dim, self.unflattened_size)

    def extra_repr(self):
        return f"dim={self.dim}, unflattened_size={self.unflattened_size}"


class Dropout(Module):
    def __init__(self, p=0.5, inplace=False):
        super().__init__()
        if not 0 <= p <= 1:
            raise ValueError(f"Dropout: p must be in [0, 1], got {p}")
        self.p, self.inplace = p, inplace

    def forward(self, input):
        return F.dropout(input, self.p, self.training, self.inplace)

    def extra_repr(self):
        return f"p={self.p}, inplace={self.inplace}"


class Embedding(Module):
    """A lookup table: integer indices -> rows of `weight` [num_embeddings, embedding_dim] ~ N(0, 1)."""

    def __init__(self, num_embeddings, embedding_dim, padding_idx=None, max_norm=None,
                 norm_type=2.0, scale_grad_by_freq=False, sparse=False, _weight=None,
                 _freeze=False, *, weight_attr=None, name=None):
        super().__init__()
        weight_attr, _ = _attrs(self, weight_attr, None)
        self.num_embeddings, self.embedding_dim = num_embeddings, embedding_dim
        if padding_idx is not None and not -num_embeddings <= padding_idx < num_embeddings:
            raise AssertedArgument(f"Embedding: padding_idx {padding_idx} is out of range for "
                                   f"{num_embeddings} embeddings; it must be in "
                                   f"[{-num_embeddings}, {num_embeddings - 1}]")
        self.padding_idx = None if padding_idx is None else padding_idx % num_embeddings
        self.max_norm, self.norm_type = max_norm, norm_type
        self.scale_grad_by_freq, self.sparse = scale_grad_by_freq, sparse
        if _weight is not None:
            if list(_weight.shape) != [num_embeddings, embedding_dim]:
                raise ShapeError(f"Embedding: _weight has shape {list(_weight.shape)}, expected "
                                 f"[{num_embeddings}, {embedding_dim}]")
            self.weight = Parameter(_weight, requires_grad=not _freeze)
        else:
            self.weight = _empty(num_embeddings, embedding_dim)
            init.normal_(self.weight)
            param_attr.apply(self.weight, weight_attr)
            if self.padding_idx is not None:
                self.weight._data[self.padding_idx] = 0

    @classmethod
    def from_pretrained(cls, embeddings, freeze=True, padding_idx=None, max_norm=None,
                        norm_type=2.0, scale_grad_by_freq=False, sparse=False):
        """An Embedding whose weight holds the 2-d `embeddings`; frozen unless freeze=False."""
        if embeddings.dim() != 2:
            raise ShapeError(f"Embedding.from_pretrained: embeddings must be 2-d, got shape "
                             f"{list(embeddings.shape)}")
        rows, cols = embeddings.shape
        return cls(rows, cols, padding_idx, max_norm, norm_type, scale_grad_by_freq, sparse,
                   _weight=embeddings, _freeze=freeze)

    def forward(self, input):
        return F.embedding(input, self.weight, self.padding_idx, self.max_norm, self.norm_type,
                           self.scale_grad_by_freq, self.sparse)

    def extra_repr(self):
        s = f"{self.num_embeddings}, {self.embedding_dim}"
        if self.padding_idx is not None:
            s += f", padding_idx={self.padding_idx}"
        if self.max_norm is not None:
            s += f", max_norm={self.max_norm}"
        if self.norm_type != 2:
            s += f", norm_type={self.norm_type}"
        if self.scale_grad_by_freq:
            s += f", scale_grad_by_freq={self.scale_grad_by_freq}"
        if self.sparse:
            s += ", sparse=True"
        return s


class NonDynamicallyQuantizableLinear(Linear):
    """PyTorch's class name for MultiheadAttention's out_proj (a plain Linear), so that models
    print alike."""


# --- convolution ----------------------------------------------------------------------------
def _tuple(v, n):
    return (int(v),) * n if isinstance(v, (int, np.integer)) else tuple(int(x) for x in v)


class _ConvNd(Module):
    _dims = 2
    _transposed = False

    def __init__(self, in_channels, out_channels, kernel_size, stride=1, padding=0, dilation=1,
                 groups=1, bias=True, padding_mode="zeros", output_padding=0, *,
                 weight_attr=None, bias_attr=None):
        super().__init__()
        weight_attr, bias_attr = _attrs(self, weight_attr, bias_attr)
        n = self._dims
        if in_channels % groups or out_channels % groups:
            raise ValueError(f"{type(self).__name__}: groups={groups} must divide in_channels "
                             f"({in_channels}) and out_channels ({out_channels})")
        if padding_mode not in ("zeros", "reflect", "replicate", "circular"):
            raise ValueError(f"{type(self).__name__}: padding_mode must be one of 'zeros', "
                             f"'reflect', 'replicate' or 'circular', got {padding_mode!r}")
        if self._transposed and padding_mode != "zeros":
            raise ValueError(f'Only "zeros" padding mode is supported for {type(self).__name__}')
        self.padding_mode = padding_mode
        self.in_channels, self.out_channels = in_channels, out_channels
        self.kernel_size = _tuple(kernel_size, n)
        self.stride, self.dilation = _tuple(stride, n), _tuple(dilation, n)
        if isinstance(padding, str) and padding not in ("same", "valid"):
            raise ValueError(f"{type(self).__name__}: invalid padding string {padding!r}; use "
                             "'same', 'valid' or the number of zeros on each side")
        if padding == "same" and any(s != 1 for s in self.stride):
            raise ValueError(f"{type(self).__name__}: padding='same' is not supported for "
                             f"strided convolutions (stride={self.stride}); use stride=1 or "
                             "give the padding as numbers")
        self.padding = padding if isinstance(padding, str) else _tuple(padding, n)
        self.output_padding = _tuple(output_padding, n)
        self.groups = groups
        if self._transposed:
            self.weight = _empty(in_channels, out_channels // groups, *self.kernel_size)
        else:
            self.weight = _empty(out_channels, in_channels // groups, *self.kernel_size)
        self.bias = _empty(out_channels) if bias and bias_attr is not False else None
        self.reset_parameters()
        param_attr.apply(self.weight, weight_attr)
        if self.bias is not None:
            param_attr.apply(self.bias, bias_attr)

    def reset_parameters(self):
        init.kaiming_uniform_(self.weight, a=math.sqrt(5))
        if self.bias is not None:
            fan_in, _ = init.fan_in_and_fan_out(self.weight)
            bound = 1 / math.sqrt(fan_in) if fan_in else 0
            init.uniform_(self.bias, -bound, bound)

    def _check(self, x):
        channels = x.ndim - self._dims - 1  # the channel axis: 0 unbatched, 1 batched
        if channels not in (0, 1) or x.shape[channels] != self.in_channels:
            layout = "[C, L] or [N, C, L]" if self._dims == 1 else "[C, H, W] or [N, C, H, W]"
            raise ShapeError(f"{type(self).__name__}: expected input {layout} with C="
                             f"{self.in_channels} channels, got shape {list(x.shape)}")

    def _padded(self, x):
        """`x` and the padding left for the convolution: with a padding_mode other than
        'zeros', `x` is padded here (by that mode) and the convolution pads nothing."""
        if self.padding_mode == "zeros":
            return x, self.padding
        if self.padding == "same":
            totals = [d * (k - 1) for d, k in zip(self.dilation, self.kernel_size)]
            sides = [(t // 2, t - t // 2) for t in totals]
        elif self.padding == "valid":
            sides = [(0, 0)] * self._dims
        else:
            sides = [(p, p) for p in self.padding]
        pads = tuple(v for pair in reversed(sides) for v in pair)  # F.pad: last dim first
        return F.pad(x, pads, mode=self.padding_mode), (0,) * self._dims

    def extra_repr(self):
        s = (f"{self.in_channels}, {self.out_channels}, kernel_size={self.kernel_size}, "
             f"stride={self.stride}")
        if self.padding != (0,) * self._dims:
            s += f", padding={self.padding}"
        if self.dilation != (1,) * self._dims:
            s += f", dilation={self.dilation}"
        if self.output_padding != (0,) * self._dims:
            s += f", output_padding={self.output_padding}"
        if self.groups != 1:
            s += f", groups={self.groups}"
        if self.bias is None:
            s += ", bias=False"
        if self.padding_mode != "zeros":
            s += f", padding_mode={self.padding_mode}"
        return s


class Conv2d(_ConvNd):
    """2-d convolution over [N, C, H, W] (or unbatched [C, H, W]); padding may be an int, a
    pair, 'same' or 'valid'."""

    def forward(self, input):
        self._check(input)
        input, padding = self._padded(input)
        return F.conv2d(input, self.weight, self.bias, self.stride, padding, self.dilation,
                        self.groups)


class Conv1d(_ConvNd):
    _dims = 1

    def forward(self, input):
        self._check(input)
        input, padding = self._padded(input)
        padding = padding if isinstance(padding, str) else padding[0]
        return F.conv1d(input, self.weight, self.bias, self.stride[0], padding, self.dilation[0],
                        self.groups)


class ConvTranspose2d(_ConvNd):
    _transposed = True

    def __init__(self, in_channels, out_channels, kernel_size, stride=1, padding=0,
                 output_padding=0, groups=1, bias=True, dilation=1, padding_mode="zeros", *,
                 weight_attr=None, bias_attr=None):
        super().__init__(in_channels, out_channels, kernel_size, stride, padding, dilation,
                         groups, bias, padding_mode, output_padding, weight_attr=weight_attr,
                         bias_attr=bias_attr)

    def forward(self, input, output_size=None):
        self._check(input)
        return F.conv_transpose2d(input, self.weight, self.bias, self.stride, self.padding,
                                  self.output_padding, self.groups, self.dilation, output_size)


class ConvTranspose1d(ConvTranspose2d):
    _dims = 1

    def forward(self, input, output_size=None):
        self._check(input)
        output_padding = self.output_padding[0]
        if output_size is not None:  # the padding that gives this length
            stride, padding, dilation = self.stride[0], self.padding[0], self.dilation[0]
            output_padding = int(tuple(output_size)[-1]) - (
                (input.shape[-1] - 1) * stride - 2 * padding
                + dilation * (self.kernel_size[0] - 1) + 1)
        return F.conv_transpose1d(input, self.weight, self.bias, self.stride[0], self.padding[0],
                                  output_padding, self.groups, self.dilation[0])


# --- pooling --------------------------------------------------------------------------------
class MaxPool2d(Module):
    def __init__(self, kernel_size, stride=None, padding=0, dilation=1, return_indices=False,
                 ceil_mode=False):
        super().__init__()
        self.kernel_size, self.stride, self.padding = kernel_size, stride, padding
        self.dilation, self.ceil_mode = dilation, ceil_mode
        self.return_indices = return_indices

    def forward(self, input):
        return F.max_pool2d(input, self.kernel_size, self.stride, self.padding, self.dilation,
                            self.ceil_mode, self.return_indices)

    def extra_repr(self):
        return (f"kernel_size={self.kernel_size}, stride={self.stride or self.kernel_size}, "
                f"padding={self.padding}, dilation={self.dilation}, ceil_mode={self.ceil_mode}")


class MaxPool1d(MaxPool2d):
    def forward(self, input):
        return F.max_pool1d(input, self.kernel_size, self.stride, self.padding, self.dilation,
                            self.ceil_mode, self.return_indices)


class AvgPool2d(Module):
    def __init__(self, kernel_size, stride=None, padding=0, ceil_mode=False,
                 count_include_pad=True, divisor_override=None, exclusive=None):
        super().__init__()
        self.kernel_size, self.stride, self.padding = kernel_size, stride, padding
        self.ceil_mode, self.divisor_override = ceil_mode, divisor_override
        self.count_include_pad = count_include_pad if exclusive is None else not exclusive

    def forward(self, input):
        return F.avg_pool2d(input, self.kernel_size, self.stride, self.padding, self.ceil_mode,
                            self.count_include_pad, self.divisor_override)

    def extra_repr(self):
        return (f"kernel_size={self.kernel_size}, stride={self.stride or self.kernel_size}, "
                f"padding={self.padding}")


class AvgPool1d(AvgPool2d):
    def forward(self, input):
        return F.avg_pool1d(input, self.kernel_size, self.stride, self.padding, self.ceil_mode,
                            self.count_include_pad)


class AdaptiveAvgPool2d(Module):
    def __init__(self, output_size):
        super().__init__()
        self.output_size = output_size

    def forward(self, input):
        return F.adaptive_avg_pool2d(input, self.output_size)

    def extra_repr(self):
        return f"output_size={self.output_size}"


class AdaptiveAvgPool1d(AdaptiveAvgPool2d):
    def forward(self, input):
        return F.adaptive_avg_pool1d(input, self.output_size)


# --- normalisation ------------------------------------------------------------------------
class _BatchNorm(Module):
    _ndims = (2, 3, 4)
    _version = 2
    _added_buffers = ("num_batches_tracked",)

    def __init__(self, num_features, eps=1e-5, momentum=0.1, affine=True,
                 track_running_stats=True, *, bias=True):
        super().__init__()
        self.num_features, self.eps, self.momentum = num_features, eps, momentum
        self.affine, self.track_running_stats = affine, track_running_stats
        self.weight = Parameter(ones(num_features)) if affine else None
        self.bias = Parameter(zeros(num_features)) if affine and bias else None
        if track_running_stats:
            self.register_buffer("running_mean", zeros(num_features))
            self.register_buffer("running_var", ones(num_features))
            self.register_buffer("num_batches_tracked", tensor(0))
        else:
            self.running_mean = self.running_var = None

    def reset_running_stats(self):
        if self.track_running_stats:
            with no_grad():
                self.running_mean.zero_()
                self.running_var.fill_(1)
                self.num_batches_tracked.zero_()

    def reset_parameters(self):
        self.reset_running_stats()
        if self.affine:
            init.ones_(self.weight)
            if self.bias is not None:
                init.zeros_(self.bias)

    def forward(self, input):
        if input._data.dtype.kind not in "fc":
            raise DTypeNotImplemented(f"{type(self).__name__}: batch_norm is not implemented "
                                      f"for {input.dtype} input; convert it with .float()")
        if input.ndim not in self._ndims or input.shape[1] != self.num_features:
            raise ShapeError(f"{type(self).__name__}({self.num_features}): expected an input of "
                             f"{' or '.join(str(d) for d in self._ndims)} dimensions with "
                             f"{self.num_features} channels on axis 1, got shape "
                             f"{list(input.shape)}")
        use_batch = self.training or not self.track_running_stats
        momentum = self.momentum
        if self.training and self.track_running_stats:
            staged = getattr(input, "program", None) is not None
            if staged:
                F.update_running(self.num_batches_tracked, self.num_batches_tracked + 1, input)
            else:
                self.num_batches_tracked._data += 1
            if momentum is None:  # PyTorch's cumulative moving average
                if staged:
                    raise NotImplementedError(
                        f"{type(self).__name__}(momentum=None) can't be compiled: its average "
                        "weight 1 / num_batches_tracked is read as a number; give a momentum")
                momentum = 1.0 / float(self.num_batches_tracked._data)
        return F.batch_norm(input, self.running_mean if self.track_running_stats else None,
                            self.running_var if self.track_running_stats else None, self.weight,
                            self.bias, use_batch, momentum, self.eps)

    def extra_repr(self):
        return (f"{self.num_features}, eps={self.eps}, momentum={self.momentum}, "
                f"affine={self.affine}, bias={self.bias is not None}, "
                f"track_running_stats={self.track_running_stats}")


class BatchNorm1d(_BatchNorm):
    _ndims = (2, 3)


class BatchNorm2d(_BatchNorm):
    _ndims = (4,)


BatchNorm = _BatchNorm


class LayerNorm(Module):
    def __init__(self, normalized_shape, eps=1e-5, elementwise_affine=True, bias=True):
        super().__init__()
        if isinstance(normalized_shape, (int, np.integer)):
            normalized_shape = (int(normalized_shape),)
        self.normalized_shape, self.eps = tuple(normalized_shape), eps
        self.elementwise_affine = elementwise_affine
        self.weight = Parameter(ones(self.normalized_shape)) if elementwise_affine else None
        self.bias = Parameter(zeros(self.normalized_shape)) if elementwise_affine and bias \
            else None

    def forward(self, input):
        return F.layer_norm(input, self.normalized_shape, self.weight, self.bias, self.eps)

    def extra_repr(self):
        return (f"{self.normalized_shape}, eps={self.eps}, "
                f"elementwise_affine={self.elementwise_affine}, bias={self.bias is not None}")


class GroupNorm(Module):
    def __init__(self, num_groups, num_channels, eps=1e-5, affine=True, bias=True):
        super().__init__()
        if num_channels % num_groups:
            raise ValueError(f"GroupNorm: num_channels ({num_channels}) must be divisible by "
                             f"num_groups ({num_groups})")
        self.num_groups, self.num_channels, self.eps = num_groups, num_channels, eps
        self.affine = affine
        self.weight = Parameter(ones(num_channels)) if affine else None
        self.bias = Parameter(zeros(num_channels)) if affine and bias else None

    def forward(self, input):
        return F.group_norm(input, self.num_groups, self.weight, self.bias, self.eps)

    def extra_repr(self):
        return (f"{self.num_groups}, {self.num_channels}, eps={self.eps}, affine={self.affine}, "
                f"bias={self.bias is not None}")


# --- activations ----------------------------------------------------------------------------
def _activation(name, fn_name, *arg_names, defaults=()):
    # `inplace` is PyTorch's last argument; it reaches the functions that take it
    takes_inplace = "inplace" in inspect.signature(getattr(F, fn_name)).parameters

    def __init__(self, *args, **kwargs):
        Module.__init__(self)
        values = dict(zip(arg_names, defaults), inplace=False)
        values.update(zip(arg_names + ("inplace",), args))
        for k, v in kwargs.items():
            if k in values:
                values[k] = v
        for k, v in values.items():
            object.__setattr__(self, k, v)

    def forward(self, input):
        args = [getattr(self, a) for a in arg_names]
        if self.inplace and takes_inplace:
            return getattr(F, fn_name)(input, *args, inplace=True)
        return getattr(F, fn_name)(input, *args)

    def extra_repr(self):
        shown = [f"{a}={getattr(self, a)!r}" if isinstance(getattr(self, a), str)
                 else f"{a}={getattr(self, a)}" for a in arg_names]
        return ", ".join(shown + (["inplace=True"] if self.inplace else []))
    return type(name, (Module,), {"__init__": __init__, "forward": forward,
                                  "extra_repr": extra_repr,
                                  "__doc__": f"Module form of nn.functional.{fn_name}."})


ReLU = _activation("ReLU", "relu")
ReLU6 = _activation("ReLU6", "relu6")
LeakyReLU = _activation("LeakyReLU", "leaky_relu", "negative_slope", defaults=(0.01,))
ELU = _activation("ELU", "elu", "alpha", defaults=(1.0,))
SELU = _activation("SELU", "selu")
CELU = _activation("CELU", "celu", "alpha", defaults=(1.0,))
GELU = _activation("GELU", "gelu", "approximate", defaults=("none",))
SiLU = _activation("SiLU", "silu")
Swish = SiLU
Mish = _activation("Mish", "mish")
Sigmoid = _activation("Sigmoid", "sigmoid")
Tanh = _activation("Tanh", "tanh")
Softplus = _activation("Softplus", "softplus", "beta", "threshold", defaults=(1.0, 20.0))
Softsign = _activation("Softsign", "softsign")
Hardtanh = _activation("Hardtanh", "hardtanh", "min_val", "max_val", defaults=(-1.0, 1.0))
Hardsigmoid = _activation("Hardsigmoid", "hardsigmoid")
Hardswish = _activation("Hardswish", "hardswish")
LogSigmoid = _activation("LogSigmoid", "logsigmoid")
Tanhshrink = _activation("Tanhshrink", "tanhshrink")
Hardshrink = _activation("Hardshrink", "hardshrink", "lambd", defaults=(0.5,))
Softshrink = _activation("Softshrink", "softshrink", "lambd", defaults=(0.5,))
Hardshrink.extra_repr = Softshrink.extra_repr = lambda self: f"{self.lambd}"


class Softmax(Module):
    def __init__(self, dim=None, axis=None):
        super().__init__()
        self.dim = axis if axis is not None else (-1 if dim is None else dim)

    def forward(self, input):
        return _ops.softmax(input, self.dim)

    def extra_repr(self):
        return f"dim={self.dim}"


class LogSoftmax(Softmax):
    def forward(self, input):
        return _ops.log_softmax(input, self.dim)


class Softmin(Softmax):
    def forward(self, input):
        return _ops.softmin(input, self.dim)


class MultiheadAttention(Module):
    """PyTorch's nn.MultiheadAttention: `num_heads` heads of scaled dot-product attention over
    projections of query, key and value, with the same parameters (in_proj_weight, or
    q/k/v_proj_weight when kdim or vdim differ from embed_dim; in_proj_bias; out_proj;
    bias_k, bias_v), masks and outputs, so that a state_dict moves between the two."""

    def __init__(self, embed_dim, num_heads, dropout=0.0, bias=True, add_bias_kv=False,
                 add_zero_attn=False, kdim=None, vdim=None, batch_first=False):
        super().__init__()
        if embed_dim % num_heads:
            raise AssertedArgument(f"MultiheadAttention: embed_dim ({embed_dim}) must be "
                                   f"divisible by num_heads ({num_heads})")
        self.embed_dim, self.num_heads = embed_dim, num_heads
        self.head_dim = embed_dim // num_heads
        self.kdim = embed_dim if kdim is None else kdim
        self.vdim = embed_dim if vdim is None else vdim
        self._qkv_same_embed_dim = self.kdim == embed_dim and self.vdim == embed_dim
        self.dropout, self.batch_first, self.add_zero_attn = dropout, batch_first, add_zero_attn
        if self._qkv_same_embed_dim:
            self.in_proj_weight = _empty(3 * embed_dim, embed_dim)
            for name in ("q_proj_weight", "k_proj_weight", "v_proj_weight"):
                self.register_parameter(name, None)
        else:
            self.register_parameter("in_proj_weight", None)
            self.q_proj_weight = _empty(embed_dim, embed_dim)
            self.k_proj_weight = _empty(embed_dim, self.kdim)
            self.v_proj_weight = _empty(embed_dim, self.vdim)
        if bias:
            self.in_proj_bias = _empty(3 * embed_dim)
        else:
            self.register_parameter("in_proj_bias", None)
        self.out_proj = NonDynamicallyQuantizableLinear(embed_dim, embed_dim, bias=bias)
        if add_bias_kv:
            self.bias_k, self.bias_v = _empty(1, 1, embed_dim), _empty(1, 1, embed_dim)
        else:
            self.register_parameter("bias_k", None)
            self.register_parameter("bias_v", None)
        self._reset_parameters()

    def _reset_parameters(self):
        for w in (self.in_proj_weight, self.q_proj_weight, self.k_proj_weight,
                  self.v_proj_weight):
            if w is not None:
                init.xavier_uniform_(w)
        if self.in_proj_bias is not None:
            init.constant_(self.in_proj_bias, 0.0)
            init.constant_(self.out_proj.bias, 0.0)
        for b in (self.bias_k, self.bias_v):
            if b is not None:
                init.xavier_normal_(b)

    def forward(self, query, key, value, key_padding_mask=None, need_weights=True,
                attn_mask=None, average_attn_weights=True, is_causal=False):
        """(attention output, attention weights or None). Inputs [L, N, E] ([N, L, E] with
        batch_first, [L, E] unbatched). key_padding_mask [N, S]: True (or -inf) ignores that
        key. attn_mask [L, S] or [N * num_heads, L, S]: True (or -inf) keeps a query from a
        key. The weights are averaged over the heads unless average_attn_weights=False."""
        if is_causal and attn_mask is None:
            raise ValueError("MultiheadAttention: is_causal is a hint that attn_mask is the "
                             "causal mask; pass that mask as attn_mask too")
        batched = query.ndim == 3
        if not batched:
            query, key, value = (t.unsqueeze(1) for t in (query, key, value))
            if key_padding_mask is not None:
                key_padding_mask = key_padding_mask.unsqueeze(0)
        elif self.batch_first:
            query, key, value = (t.transpose(0, 1) for t in (query, key, value))
        self._check_inputs(query, key, key_padding_mask, attn_mask)
        out, weights = self._attend(query, key, value, key_padding_mask, need_weights,
                                    attn_mask, average_attn_weights)
        if not batched:
            return out.squeeze(1), None if weights is None else weights.squeeze(0)
        return (out.transpose(0, 1) if self.batch_first else out), weights

    def _check_inputs(self, query, key, key_padding_mask, attn_mask):
        """PyTorch's asserts on the (batched, [L, N, E]) inputs, with the shapes named."""
        if query.shape[-1] != self.embed_dim:
            raise AssertedArgument(f"MultiheadAttention: was expecting embedding dimension of "
                                   f"{self.embed_dim}, but got query of shape "
                                   f"{list(query.shape)}")
        for name, mask in (("attn_mask", attn_mask), ("key_padding_mask", key_padding_mask)):
            if mask is not None and mask._data.dtype.kind not in "bf":
                raise AssertedArgument(f"MultiheadAttention: only bool and floating types of "
                                       f"{name} are supported, got {mask.dtype}")
        expected = (key.shape[1], key.shape[0])
        if key_padding_mask is not None and tuple(key_padding_mask.shape) != expected:
            raise AssertedArgument(f"MultiheadAttention: expected key_padding_mask of shape "
                                   f"[batch, source length] = {list(expected)}, got "
                                   f"{list(key_padding_mask.shape)}")

    def _projections(self, query, key, value):
        e = self.embed_dim
        if self._qkv_same_embed_dim:
            w_q, w_k, w_v = self.in_proj_weight[:e], self.in_proj_weight[e:2 * e], \
                self.in_proj_weight[2 * e:]
        else:
            w_q, w_k, w_v = self.q_proj_weight, self.k_proj_weight, self.v_proj_weight
        b = self.in_proj_bias
        b_q, b_k, b_v = (None,) * 3 if b is None else (b[:e], b[e:2 * e], b[2 * e:])
        return F.linear(query, w_q, b_q), F.linear(key, w_k, b_k), F.linear(value, w_v, b_v)

    def _attend(self, query, key, value, key_padding_mask, need_weights, attn_mask,
                average_attn_weights):
        length, batch, e = query.shape
        heads, head_dim = self.num_heads, self.head_dim
        q, k, v = self._projections(query, key, value)
        masks = [None if m is None else _float_mask(m, q) for m in (attn_mask, key_padding_mask)]
        if self.bias_k is not None:
            k = _ops.cat([k, self.bias_k.expand(1, batch, e)])
            v = _ops.cat([v, self.bias_v.expand(1, batch, e)])
            masks = [None if m is None else F.pad(m, (0, 1)) for m in masks]

        def split(t):  # [S, N, E] -> [N * heads, S, head_dim]
            return t.reshape(t.shape[0], batch * heads, head_dim).transpose(0, 1)
        q, k, v = split(q), split(k), split(v)
        if self.add_zero_attn:
            zeros_ = zeros(batch * heads, 1, head_dim, dtype=q.dtype)
            k, v = _ops.cat([k, zeros_], 1), _ops.cat([v, zeros_], 1)
            masks = [None if m is None else F.pad(m, (0, 1)) for m in masks]
        keys = k.shape[1]
        scores = _ops.matmul(q * math.sqrt(1.0 / head_dim), k.mT)
        attn_mask, key_padding_mask = masks
        if attn_mask is not None:
            scores = scores + (attn_mask if attn_mask.ndim == 3 else attn_mask.unsqueeze(0))
        if key_padding_mask is not None:
            scores = scores + key_padding_mask.reshape(batch, 1, 1, keys).expand(
                batch, heads, 1, keys).reshape(batch * heads, 1, keys)
        weights = F.softmax(scores, -1)
        if self.training and self.dropout > 0:
            weights = F.dropout(weights, self.dropout)
        out = _ops.matmul(weights, v).transpose(0, 1).reshape(length, batch, e)
        out = self.out_proj(out)
        if not need_weights:
            return out, None
        weights = weights.reshape(batch, heads, length, keys)
        return out, weights.mean(1) if average_attn_weights else weights


def _float_mask(mask, like):
    """A mask to add to attention scores: a bool mask's True entries are -inf."""
    if mask.dtype == dtypes.bool_:
        return tensor(np.where(mask.numpy(), -np.inf, 0.0), dtype=like.dtype)
    return mask.to(like.dtype)


class Conv3d(_ConvNd):
    """3-d convolution over [N, C, D, H, W]."""
    _dims = 3

    def forward(self, input):
        input, padding = self._padded(input)
        return F.conv3d(input, self.weight, self.bias, self.stride, padding, self.dilation,
                        self.groups)


class ConvTranspose3d(ConvTranspose2d):
    _dims = 3

    def forward(self, input, output_size=None):
        return F.conv_transpose3d(input, self.weight, self.bias, self.stride, self.padding,
                                  self.output_padding, self.groups, self.dilation, output_size)


class AvgPool3d(Module):
    def __init__(self, kernel_size, stride=None, padding=0, ceil_mode=False,
                 count_include_pad=True, divisor_override=None):
        super().__init__()
        self.kernel_size, self.stride, self.padding = kernel_size, stride, padding
        self.ceil_mode, self.divisor_override = ceil_mode, divisor_override
        self.count_include_pad = count_include_pad

    def forward(self, input):
        return F.avg_pool3d(input, self.kernel_size, self.stride, self.padding, self.ceil_mode,
                            self.count_include_pad, self.divisor_override)

    def extra_repr(self):
        return (f"kernel_size={self.kernel_size}, stride={self.stride or self.kernel_size}, "
                f"padding={self.padding}")


class MaxUnpool2d(Module):
    """The inverse of MaxPool2d(return_indices=True) (see F.max_unpool2d)."""
    _dims = 2

    def __init__(self, kernel_size, stride=None, padding=0):
        super().__init__()
        each = lambda v: tuple(v) if isinstance(v, (tuple, list)) else (v,) * self._dims  # noqa: E731
        self.kernel_size = each(kernel_size)
        self.stride = each(stride if stride is not None else kernel_size)
        self.padding = each(padding)

    def forward(self, input, indices, output_size=None):
        return F.max_unpool2d(input, indices, self.kernel_size, self.stride, self.padding,
                              output_size)

    def extra_repr(self):
        return (f"kernel_size={self.kernel_size}, stride={self.stride or self.kernel_size}, "
                f"padding={self.padding}")


class Upsample(Module):
    """Resizes its input with F.interpolate (the same arguments)."""

    def __init__(self, size=None, scale_factor=None, mode="nearest", align_corners=None,
                 recompute_scale_factor=None):
        super().__init__()
        self.size = size
        self.scale_factor = (float(scale_factor) if isinstance(scale_factor, (int, float))
                             else scale_factor)
        self.mode = mode
        self.align_corners = align_corners
        self.recompute_scale_factor = recompute_scale_factor

    def forward(self, input):
        return F.interpolate(input, self.size, self.scale_factor, self.mode, self.align_corners,
                             self.recompute_scale_factor)

    def extra_repr(self):
        what = (f"scale_factor={self.scale_factor!r}" if self.size is None
                else f"size={self.size!r}")
        return f"{what}, mode={self.mode!r}"


class UpsamplingNearest2d(Upsample):
    def __init__(self, size=None, scale_factor=None):
        super().__init__(size, scale_factor, mode="nearest")


class UpsamplingBilinear2d(Upsample):
    def __init__(self, size=None, scale_factor=None):
        super().__init__(size, scale_factor, mode="bilinear", align_corners=True)


class PReLU(Module):
    """max(0, x) + a * min(0, x) with a learnable slope (one, or one per channel)."""

    def __init__(self, num_parameters=1, init=0.25):
        super().__init__()
        self.num_parameters = num_parameters
        self.weight = Parameter(np.full(num_parameters, init, dtypes.default_float.np))

    def forward(self, input):
        return F.prelu(input, self.weight)

    def extra_repr(self):
        return f"num_parameters={self.num_parameters}"


Conv1D, Conv2D, Conv2DTranspose = Conv1d, Conv2d, ConvTranspose2d
MaxPool2D, AdaptiveAvgPool2D = MaxPool2d, AdaptiveAvgPool2d
