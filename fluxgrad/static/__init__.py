"""`fluxgrad.static`: build a Program once, transform it, run it many times.

    fluxgrad.enable_static()
    x = fluxgrad.static.data('x', shape=[None, 2], dtype='float32')
    y = fluxgrad.tanh(x @ w)                        # every public op stages when given Variables
    exe = fluxgrad.static.Executor()
    y_val, = exe.run(feed={'x': array}, fetch_list=[y])

Modules: `program` (the IR: Variable, Equation, Program), `dims` (unknown sizes),
`staging` (apply -> equations, the default programs), `executor` (Executor, Scope,
`evaluate` for sub-programs), `transforms` (grad, forward_grad, linearize, transpose),
`jacobian` (lazy Jacobian/Hessian), `passes` (DCE, CSE, folding, simplification),
`control_flow` (`nn.cond`, `nn.while_loop`, `nn.scan`), `parameters` (Layers' parameters as
persistable Variables), `_ops` (the primitives static mode adds: full_like, full, iota, shape,
stop_gradient), `printing` (`Print`), `compat` (PaddlePaddle spellings that change nothing
here: `name_scope`, `device_guard`, `CompiledProgram`, ...).

A Layer called in static mode keeps persistable Variables as its parameters from then on
(their values live in the scope). In `Variable.shape` an unknown size is an int (its
sentinel, see `dims`) that prints by its name, `N0`, so shape arithmetic such as
`x.reshape(x.shape[0], -1)` stages sizes that are re-bound on every run.
"""
import contextlib

import numpy as np

from .._core import dtypes
from .._core.static_mode import state as _state
from . import dims as _dims
from .executor import Executor, Scope, global_scope
from .program import Equation, Program, Variable
from .staging import programs as _programs
from . import passes
from .transforms import forward_grad, gradients, grad
from . import nn
from .io import load, load_inference_model, save, save_inference_model
from .printing import Print
from .compat import (BuildStrategy, CompiledProgram, ExecutionStrategy, create_global_var,
                     device_guard, name_scope)
from ..metric import accuracy

__all__ = ["data", "Program", "Variable", "Equation", "program_guard", "default_main_program",
           "default_startup_program", "Executor", "Scope", "global_scope", "gradients",
           "InputSpec", "nn", "passes", "enable_static", "disable_static", "in_dynamic_mode",
           "create_parameter", "scope_guard", "cpu_places", "grad", "forward_grad",
           "append_backward", "save", "load", "save_inference_model", "load_inference_model",
           "Print", "name_scope", "device_guard", "CompiledProgram", "BuildStrategy",
           "ExecutionStrategy", "accuracy", "create_global_var"]

from .py_func import py_func  # noqa: E402
__all__ += ["py_func"]


def enable_static():
    _state.armed = True
    _state.enabled = True


def disable_static():
    _state.enabled = False


def in_dynamic_mode():
    return not _state.enabled


def default_main_program():
    return _programs.main


def default_startup_program():
    return _programs.startup


@contextlib.contextmanager
def program_guard(main_program, startup_program=None):
    """Ops staged inside go to `main_program`; parameters' initialisers to `startup_program`."""
    from .staging import guard
    if not isinstance(main_program, Program) or (
            startup_program is not None and not isinstance(startup_program, Program)):
        raise TypeError("program_guard: expected fluxgrad.static.Program objects")
    with guard(main_program, startup_program):
        yield


@contextlib.contextmanager
def scope_guard(scope):
    from . import executor
    old = executor._global_scope
    executor._global_scope = scope
    try:
        yield
    finally:
        executor._global_scope = old


def cpu_places(device_count=None):
    from ..places import CPUPlace
    return [CPUPlace() for _ in range(device_count or 1)]


def data(name, shape, dtype=None, lod_level=0):
    """A Variable fed at run time. `None` or -1 in `shape` is a size known only then (one
    program serves every batch size); every unknown axis k of a program is the same size."""
    program = _programs.main
    dt = dtypes.as_dtype(dtype) if dtype is not None else dtypes.default_float
    dims = []
    for axis, s in enumerate(shape):
        if s is None or (not isinstance(s, bool) and isinstance(s, (int, np.integer)) and s == -1):
            dims.append(_dims.symbol_for_axis(axis))
        elif isinstance(s, (int, np.integer)) and not isinstance(s, bool) and s >= 0:
            dims.append(int(s))
        else:
            raise ValueError(f"static.data({name!r}): shape entries are non-negative ints, None "
                             f"or -1, got {s!r} in {list(shape)}")
    _state.armed = True
    var = program.new_var(tuple(dims), dt.np, name=name, is_data=True)
    program.data.append(var)
    return var


class InputSpec:
    """The shape, dtype and name of an input (None/-1: unknown size)."""

    def __init__(self, shape, dtype="float32", name=None, stop_gradient=False):
        self.shape = tuple(shape)
        self.dtype = dtypes.as_dtype(dtype)
        self.name = name
        self.stop_gradient = stop_gradient

    @classmethod
    def from_tensor(cls, tensor, name=None):
        return cls(tensor.shape, tensor.dtype, name)

    def __repr__(self):
        return f"InputSpec(shape={list(self.shape)}, dtype={self.dtype}, name={self.name!r})"


def create_parameter(shape, dtype, name=None, is_bias=False, default_initializer=None,
                     attr=None):
    """A persistable trainable Variable, initialised by the startup program; `attr`: a
    `fluxgrad.ParamAttr` (its initializer, name, learning rate, regularizer)."""
    from ..nn.module import Module
    from ..param_attr import to_attr
    attr = to_attr(attr, "static.create_parameter", "attr")
    param = Module.create_parameter(None, shape, dtype, is_bias, default_initializer, attr)
    from .parameters import to_static_parameter
    return to_static_parameter(param, name if name is not None else getattr(attr, "name", None))


def append_backward(loss, parameter_list=None, no_grad_set=None, callbacks=None):
    """PaddlePaddle's `append_backward`: stages the gradients of `loss` with respect to the
    program's trainable parameters (or `parameter_list`: Variables or names) and returns
    [(parameter, gradient)] (pairs without a gradient path are left out)."""
    program = loss.program
    if parameter_list is None:
        params = [p for p in program.all_parameters() if p._requires_grad]
    else:
        params = [program.var(p) if isinstance(p, str) else p for p in parameter_list]
    skip = {v if isinstance(v, str) else v.name for v in (no_grad_set or ())}
    params = [p for p in params if p.name not in skip]
    grads = gradients([loss], params)
    return [(p, g) for p, g in zip(params, grads) if g is not None]

