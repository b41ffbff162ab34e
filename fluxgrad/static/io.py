"""Saving and loading static programs and their persistable values, as PaddlePaddle names it.

- `save(program, model_path)`: the program's parameters' values (from the global scope) to
  `model_path + '.pdparams'`, its other persistable values (optimizer state, running
  statistics) to `.pdopt`, the program to `.pdmodel`; `load(program, model_path)` writes
  the values back into the scope (each checked against its Variable's shape and dtype).
- `save_inference_model(path_prefix, feed_vars, fetch_vars, executor)`: the part of the
  program the fetches need (the Executor's plan: no training updates), with the values of
  the persistables it reads, to `path_prefix + '.pdmodel'` / `.pdiparams`;
  `load_inference_model(path_prefix, executor)` gives `[program, feed_names, fetch_vars]`
  and puts the values into the scope.
Programs are pickled with each primitive saved by its name (looked up in the registry on
loading); numbers derived in Python from an unknown size (`static.dims.Derived`) carry a
function and can't be saved: refused, naming the equation.
"""
import io
import pickle

import numpy as np

from .._core.primitive import REGISTRY, Primitive
from . import executor as _executor
from .dims import Derived
from .program import Program, Variable


def _variable(cls, program, name, dims, dtype, persistable, is_data, requires_grad):
    v = cls._new(program, name, dims, dtype, persistable, is_data)
    v._requires_grad = requires_grad
    return v


class _Pickler(pickle.Pickler):
    """Saves a Variable as its type (not its stand-in array), in the program being saved."""

    def __init__(self, file, program):
        super().__init__(file, protocol=4)
        self.program = program

    def reducer_override(self, obj):
        if isinstance(obj, Variable):
            return _variable, (type(obj), self.program, obj.name, obj.dims, obj._data.dtype,
                               obj.persistable, obj.is_data, obj._requires_grad)
        return NotImplemented

    def persistent_id(self, obj):
        if isinstance(obj, Primitive):
            return ("primitive", obj.name)
        if isinstance(obj, Derived):
            raise ValueError(f"static.save: the program holds a number computed in Python from "
                             f"an unknown size ({obj!r}), which can't be saved; compute it with "
                             "tensor ops (x / x.shape[0]) instead")
        return None


class _Unpickler(pickle.Unpickler):
    def persistent_load(self, pid):
        kind, name = pid
        if kind != "primitive" or name not in REGISTRY:
            raise pickle.UnpicklingError(f"static.load: the saved program uses the op {name!r}, "
                                         "which this fluxgrad does not register")
        return REGISTRY[name]


def _dump(obj, program, path):
    buffer = io.BytesIO()
    _Pickler(buffer, program).dump(obj)
    with open(path, "wb") as f:
        f.write(buffer.getvalue())


def _read(path):
    with open(path, "rb") as f:
        return _Unpickler(f).load()


def _values(variables, scope, op):
    out = {}
    for v in variables:
        value = scope.values.get(v.name)
        if value is None:
            raise RuntimeError(f"{op}: the persistable variable {v.name!r} ({v.type_str}) has "
                               "no value in the scope; run the startup program first")
        out[v.name] = np.array(value)
    return out


def _write(values, variables, scope, op, path):
    """Check every value against its Variable, then write them all (or none)."""
    for v in variables:
        if v.name not in values:
            raise KeyError(f"{op}: {path} holds no value for {v.name!r} ({v.type_str})")
        value = values[v.name]
        if value.shape != v._data.shape or value.dtype != v._data.dtype:
            raise ValueError(f"{op}: {path} holds {v.name!r} as {value.dtype}"
                             f"{list(value.shape)}, the program's is {v.type_str}")
    for v in variables:
        scope.values[v.name] = values[v.name]


def _persistables(program):
    from .parameters import ParamVariable
    persist = [v for v in program.vars.values() if v.persistable]
    return ([v for v in persist if isinstance(v, ParamVariable)],
            [v for v in persist if not isinstance(v, ParamVariable)])


def save(program, model_path, protocol=4, **configs):
    if not isinstance(program, Program):
        raise TypeError(f"static.save: expected a Program, got {type(program).__name__}")
    scope = _executor.global_scope()
    params, others = _persistables(program)
    values = (_values(params, scope, "static.save"), _values(others, scope, "static.save"))
    _dump(program, program, model_path + ".pdmodel")
    for (suffix, value) in zip((".pdparams", ".pdopt"), values):
        with open(model_path + suffix, "wb") as f:
            pickle.dump(value, f, protocol=protocol)


def load(program, model_path, executor=None, var_list=None):
    scope = _executor.global_scope()
    params, others = _persistables(program)
    if var_list is not None:
        names = {v if isinstance(v, str) else v.name for v in var_list}
        params = [v for v in params if v.name in names]
        others = [v for v in others if v.name in names]
    values = {}
    for suffix, variables in ((".pdparams", params), (".pdopt", others)):
        if variables:
            with open(model_path + suffix, "rb") as f:
                values.update(pickle.load(f))
    _write(values, params + others, scope, "static.load", model_path)


def save_inference_model(path_prefix, feed_vars, fetch_vars, executor=None, program=None,
                         **kwargs):
    from .staging import programs
    program = programs.main if program is None else program
    feed_vars = list(feed_vars) if isinstance(feed_vars, (list, tuple)) else [feed_vars]
    fetch_vars = list(fetch_vars) if isinstance(fetch_vars, (list, tuple)) else [fetch_vars]
    pruned = _pruned(program, fetch_vars)
    fed = {v.name for v in feed_vars}
    missing = [v.name for v in pruned.data if v.name not in fed]
    if missing:
        raise ValueError(f"save_inference_model: the fetched values read the data {missing}, "
                         f"which feed_vars ({sorted(fed)}) leave out")
    pruned.data = [v for v in feed_vars if v.name in pruned.vars]
    persist = [v for v in pruned.vars.values() if v.persistable]
    values = _values(persist, _executor.global_scope(), "save_inference_model")
    _dump((pruned, [v.name for v in feed_vars], fetch_vars), pruned, path_prefix + ".pdmodel")
    with open(path_prefix + ".pdiparams", "wb") as f:
        pickle.dump(values, f, protocol=4)


def _pruned(program, outputs):
    """The equations `outputs` need, and their Variables (no updates)."""
    needed = {id(o) for o in outputs}
    equations = []
    for eq in reversed(program.equations):
        if any(id(o) in needed for o in eq.outputs):
            equations.append(eq)
            needed.update(id(x) for x in eq.inputs if isinstance(x, Variable))
    p = Program()
    p.equations = equations[::-1]
    p.vars = {name: v for name, v in program.vars.items() if id(v) in needed}
    p.data = [v for v in program.data if id(v) in needed]
    p.aliases = {k: v for k, v in program.aliases.items() if k in needed}
    p.refused_sizes = {d: set(v) for d, v in program.refused_sizes.items()}
    p.size_conditions = dict(program.size_conditions)
    p._counter = program._counter
    return p


def load_inference_model(path_prefix, executor=None, **kwargs):
    program, feed_names, fetch_vars = _read(path_prefix + ".pdmodel")
    with open(path_prefix + ".pdiparams", "rb") as f:
        values = pickle.load(f)
    persist = [v for v in program.vars.values() if v.persistable]
    _write(values, persist, _executor.global_scope(), "load_inference_model", path_prefix)
    return [program, feed_names, fetch_vars]


__all__ = ["save", "load", "save_inference_model", "load_inference_model"]
