"""Lazy layers (`LazyLinear`, `LazyConv*d`, `LazyConvTranspose*d`, `LazyBatchNorm*d`,
`LazyInstanceNorm*d`): the layer's input size (in_features, in_channels, num_features) is read
from its first input. That first call builds the layer, in place, as the class it stands for
(`LazyConv2d` becomes `Conv2d`), keeping its hooks and train/eval mode, as PyTorch's do; make
the optimizer after it (or load a state_dict into the layer, which builds it for the
weights' shapes). Before it the layer's sizes and options are there (the input size 0), and
its parameters and buffers are `nn.parameter.UninitializedParameter` /
`UninitializedBuffer` (shapeless, printed `<UninitializedParameter>`), as PyTorch's;
`num_batches_tracked` is the tensor 0 already."""
import inspect

from .extra_layers import BatchNorm3d, InstanceNorm1d, InstanceNorm2d, InstanceNorm3d
from .layers import (BatchNorm1d, BatchNorm2d, Conv1d, Conv2d, Conv3d, ConvTranspose1d,
                     ConvTranspose2d, ConvTranspose3d, Linear, _ConvNd)
from .module import Module
from .parameter import UninitializedBuffer, UninitializedParameter

__all__ = ["LazyModuleMixin", "LazyLinear", "LazyConv1d", "LazyConv2d", "LazyConv3d",
           "LazyConvTranspose1d", "LazyConvTranspose2d", "LazyConvTranspose3d",
           "LazyBatchNorm1d", "LazyBatchNorm2d", "LazyBatchNorm3d", "LazyInstanceNorm1d",
           "LazyInstanceNorm2d", "LazyInstanceNorm3d"]

_KEPT = ("_forward_pre_hooks", "_forward_hooks", "_backward_pre_hooks", "_backward_hooks",
         "training")


class LazyModuleMixin(Module):
    """Holds the constructor's arguments (all but the input size) until the first call."""
    cls_to_become = None

    def __init__(self, *args, dtype=None, device=None, **kwargs):
        Module.__init__(self)
        placeholder = self.cls_to_become(0, *args, **kwargs)  # its sizes and options, size 0
        for name, value in vars(placeholder).items():
            if not name.startswith("_") and name not in _KEPT:
                object.__setattr__(self, name, value)
        self._lazy_arguments = (args, kwargs, dtype)
        self._lazy_repr = placeholder.extra_repr()
        for name, param in placeholder._parameters.items():
            if param is not None:
                setattr(self, name, UninitializedParameter(param.requires_grad, dtype=dtype))
        for name, buffer in placeholder._buffers.items():
            if buffer is not None:
                self.register_buffer(
                    name, buffer if name == "num_batches_tracked" else
                    UninitializedBuffer(dtype=dtype), name not in placeholder._non_persistent)

    def has_uninitialized_params(self):
        """Whether the layer still waits for its first input (True until then, as PyTorch's;
        the layer it becomes has no such method)."""
        return "_lazy_arguments" in self.__dict__

    def _input_size(self, input):
        """The size the layer takes from `input`: its channel axis (0 when unbatched)."""
        channels = 0 if input.ndim == self._unbatched_ndim else 1
        return int(input.shape[channels])

    def initialize_parameters(self, input):
        """Build the layer for `input` and become `cls_to_become`."""
        self._become(self._input_size(input))

    def _materialize_from_state(self, state_dict, prefix):
        """Become the layer whose weights `state_dict` holds under `prefix` (load_state_dict
        into a layer not called yet, as PyTorch's lazy layers allow); nothing if it holds none."""
        for name in ("weight", "running_mean"):
            value = state_dict.get(prefix + name)
            if value is not None:
                break
        else:
            return
        shape, real = tuple(value.shape), self.cls_to_become
        if issubclass(real, Linear):
            size = shape[1]
        elif issubclass(real, _ConvNd):
            size = shape[0] if real._transposed else shape[1] * self.groups
        else:
            size = shape[0]
        self._become(size)

    def _become(self, size):
        args, kwargs, dtype = self._lazy_arguments
        built = self.cls_to_become(size, *args, **kwargs)
        if dtype is not None:
            built.to(dtype)
        state = self.__dict__
        kept = {name: state[name] for name in _KEPT}
        state.clear()
        state.update(built.__dict__)
        state.update(kept)
        self.__class__ = self.cls_to_become

    def __init_subclass__(cls, **kwargs):
        super().__init_subclass__(**kwargs)

        def forward(self, input, *args, **kwargs):
            self.initialize_parameters(input)
            return self.forward(input, *args, **kwargs)
        forward.__signature__ = inspect.signature(cls.cls_to_become.forward)  # torch's names
        cls.forward = forward

    def extra_repr(self):
        return self._lazy_repr


class LazyLinear(LazyModuleMixin, Linear):
    """Linear(in_features, out_features) with in_features = the first input's last size."""
    cls_to_become = Linear

    def _input_size(self, input):
        return int(input.shape[-1])


def _lazy(name, real, unbatched_ndim):
    doc = f"{real.__name__} whose input size is read from its first input (see the module doc)."
    return type(name, (LazyModuleMixin, real), {"cls_to_become": real, "__doc__": doc,
                                               "_unbatched_ndim": unbatched_ndim})


LazyConv1d = _lazy("LazyConv1d", Conv1d, 2)
LazyConv2d = _lazy("LazyConv2d", Conv2d, 3)
LazyConv3d = _lazy("LazyConv3d", Conv3d, 4)
LazyConvTranspose1d = _lazy("LazyConvTranspose1d", ConvTranspose1d, 2)
LazyConvTranspose2d = _lazy("LazyConvTranspose2d", ConvTranspose2d, 3)
LazyConvTranspose3d = _lazy("LazyConvTranspose3d", ConvTranspose3d, 4)
LazyBatchNorm1d = _lazy("LazyBatchNorm1d", BatchNorm1d, None)
LazyBatchNorm2d = _lazy("LazyBatchNorm2d", BatchNorm2d, None)
LazyBatchNorm3d = _lazy("LazyBatchNorm3d", BatchNorm3d, None)


def _lazy_instance_norm(name, real, unbatched_ndim):
    # PyTorch's lazy instance norms default to affine=True, track_running_stats=True (the
    # eager ones to False, False)
    def __init__(self, eps=1e-5, momentum=0.1, affine=True, track_running_stats=True,
                 device=None, dtype=None):
        LazyModuleMixin.__init__(self, eps, momentum, affine, track_running_stats, dtype=dtype)
    lazy = _lazy(name, real, unbatched_ndim)
    lazy.__init__ = __init__
    return lazy


LazyInstanceNorm1d = _lazy_instance_norm("LazyInstanceNorm1d", InstanceNorm1d, 2)
LazyInstanceNorm2d = _lazy_instance_norm("LazyInstanceNorm2d", InstanceNorm2d, 3)
LazyInstanceNorm3d = _lazy_instance_norm("LazyInstanceNorm3d", InstanceNorm3d, 4)
