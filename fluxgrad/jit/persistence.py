"""PaddlePaddle's `jit.save(layer, path, input_spec=[...])` and `jit.load(path)`.

`save` stages the layer's forward (in eval mode, on a copy: the layer itself stays eager)
into a static program whose data are the `input_spec` entries (`static.InputSpec`s, or
example tensors; None / -1 sizes stay unknown), and writes the part the outputs need to
`path + '.pdmodel'` and the values of its parameters and buffers to `path + '.pdiparams'`,
named by their `state_dict` keys. These are fluxgrad's files (a pickled Program, as
`static.save_inference_model` writes), not PaddlePaddle's protobuf: Paddle can't read them,
nor fluxgrad Paddle's.

`load` gives a `TranslatedLayer`: a Layer whose forward runs the saved program on its
inputs (with its own scope, so loaded models don't share values) and returns tensors (one,
or a tuple as the forward did). Its `state_dict()` / `parameters()` are the saved values
(writes into them change what it computes). It runs inference: its results carry no
gradient (fine-tuning a loaded layer is not supported; rebuild the Layer and load its
`state_dict` instead).
"""
import copy
import os
import pickle

import numpy as np

from .._core.tensor import Tensor
from ..nn.module import Module
from ..nn.parameter import Parameter

__all__ = ["save", "load", "TranslatedLayer"]


def _module_of(layer):
    from .module import OptimizedModule
    from .compiled import Compiled
    if isinstance(layer, OptimizedModule):
        return layer._orig_mod
    if isinstance(layer, Compiled) and isinstance(layer.fn, Module):
        return layer.fn
    if isinstance(layer, Module):
        return layer
    raise TypeError(f"jit.save: expected a Layer (nn.Module), got {type(layer).__name__}; "
                    "a plain function has no parameters to save: wrap it in a Layer")


def _specs(input_spec):
    from ..static import InputSpec
    if not input_spec:
        raise ValueError("jit.save: pass input_spec=[fluxgrad.static.InputSpec(shape, dtype, "
                         "name), ...] (or example tensors), one per forward argument: the "
                         "saved program is staged from them")
    specs = []
    for k, spec in enumerate(input_spec):
        if isinstance(spec, Tensor):
            spec = InputSpec.from_tensor(spec)
        if not isinstance(spec, InputSpec):
            raise TypeError(f"jit.save: input_spec[{k}] must be an InputSpec or a tensor, got "
                            f"{type(spec).__name__}")
        specs.append(spec)
    names = [s.name or f"input_{k}" for k, s in enumerate(specs)]
    if len(set(names)) != len(names):
        raise ValueError(f"jit.save: the input names {names} repeat; give each InputSpec its "
                         "own name")
    return specs, names


def save(layer, path, input_spec=None, **configs):
    """See the module docstring."""
    from .. import static
    from .._core.static_mode import state
    from ..static import io as static_io
    from ..static.parameters import to_static_buffer, to_static_parameter
    module = _module_of(layer)
    specs, names = _specs(input_spec)
    twin = copy.deepcopy(module).eval()
    main, startup = static.Program(), static.Program()
    was_enabled, was_armed = state.enabled, state.armed
    static.enable_static()
    try:
        with static.program_guard(main, startup):
            keys = {}
            for key, p in twin.named_parameters():
                keys[to_static_parameter(p, key).name] = key
            for key, b in twin.named_buffers():
                keys[to_static_buffer(b, key).name] = key
            data = [static.data(n, s.shape, s.dtype) for n, s in zip(names, specs)]
            outputs = twin(*data)
    finally:
        state.enabled, state.armed = was_enabled, was_armed
    single = isinstance(outputs, Tensor)
    fetches = [outputs] if single else list(outputs)
    program = static_io._pruned(main, fetches)
    program.data = [v for v in data if v.name in program.vars]
    values = {name: np.array(value) for name, (var, value) in startup.updates.items()
              if name in program.vars}
    os.makedirs(os.path.dirname(path) or ".", exist_ok=True)  # as Paddle's, the folder too
    static_io._dump((program, names, fetches, single), program, path + ".pdmodel")
    with open(path + ".pdiparams", "wb") as f:
        pickle.dump({keys.get(name, name): value for name, value in values.items()}, f,
                    protocol=4)


def load(path, **configs):
    """See the module docstring."""
    from ..static import io as static_io
    program, names, fetches, single = static_io._read(path + ".pdmodel")
    with open(path + ".pdiparams", "rb") as f:
        values = pickle.load(f)
    return TranslatedLayer(program, names, fetches, single, values)


class TranslatedLayer(Module):
    """A layer loaded by `jit.load` (see the module docstring)."""

    def __init__(self, program, input_names, fetches, single, values):
        from ..static import Executor, Scope
        super().__init__()
        self.__dict__.update(_program=program, _input_names=input_names, _fetches=fetches,
                             _single=single, _executor=Executor(), _scope=Scope())
        for key, value in values.items():  # the program's persistables are named by key
            trainable = getattr(program.vars[key], "trainable", False)
            tensor = Parameter(value) if trainable else Tensor._make(value)
            self._scope.values[key] = tensor._data  # shared: writes reach the program
            owner, _, leaf = key.rpartition(".")
            holder = self._holder(owner)
            if isinstance(tensor, Parameter):
                holder._parameters[leaf] = tensor
            else:
                holder._buffers[leaf] = tensor

    def _holder(self, dotted):
        holder = self
        for part in dotted.split(".") if dotted else ():
            child = holder._modules.get(part)
            if child is None:
                child = holder._modules[part] = Module()
            holder = child
        return holder

    @property
    def program(self):
        return self._program

    def forward(self, *inputs):
        if len(inputs) != len(self._input_names):
            raise TypeError(f"TranslatedLayer: the saved forward takes {len(self._input_names)} "
                            f"inputs {self._input_names}, got {len(inputs)}")
        feed = {name: x._data if isinstance(x, Tensor) else np.asarray(x)
                for name, x in zip(self._input_names, inputs)}
        outs = self._executor.run(self._program, feed=feed, fetch_list=self._fetches,
                                  scope=self._scope, return_numpy=False)
        return outs[0] if self._single else tuple(outs)
