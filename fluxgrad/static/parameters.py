"""Parameters in static mode: persistable, trainable Variables initialised by the startup
program.

A Module's parameters are created eagerly as usual (so every initialiser works); the
first time the Module is called in static mode each one is replaced by a
`ParamVariable` of the same name in the main program, whose initial value (the eager
one) the startup program writes into the scope. The same eager parameter always maps
to the same Variable, so shared parameters stay shared. Buffers become persistable
Variables the same way (not trainable).
"""
import itertools

from ..nn.parameter import Parameter
from .for_test import stage_both_modes
from .program import Variable
from .staging import programs

_converted = {}
_names = itertools.count()


class ParamVariable(Parameter, Variable):
    """A persistable Variable that a Module registers as a parameter."""
    __slots__ = ()

    def __repr__(self):
        return Variable.__repr__(self)


def to_static_parameter(param, name=None):
    return _to_persistable(param, ParamVariable, name, "param")


def to_static_buffer(buffer, name=None):
    """A Module's buffer (batch norm's running statistics) as a persistable Variable that no
    optimizer trains: the startup program writes its eager value; a layer that updates it
    in training mode stages the new value as the Variable's update (`Program.set_update`)."""
    return _to_persistable(buffer, Variable, name, "buffer")


def _to_persistable(tensor, cls, name, prefix):
    if isinstance(tensor, Variable):
        return tensor
    hit = _converted.get(id(tensor))
    if hit is not None:
        return hit[1]
    program = programs.main
    if name is None:
        name = f"{prefix}_{next(_names)}"
        while name in program.vars:
            name = f"{prefix}_{next(_names)}"
    var = cls._new(program, name, tensor._data.shape, tensor._data.dtype, persistable=True)
    if cls is ParamVariable:
        var._requires_grad = tensor._requires_grad
    program.adopt(var)
    programs.startup.set_update(var, tensor._data.copy())
    _converted[id(tensor)] = (tensor, var)
    return var


def adopt_parameters(module):
    """Replace the eager parameters of `module` and its sub-modules by ParamVariables, and
    their buffers by persistable Variables; layers that differ in inference stage both
    modes (`for_test`)."""
    stage_both_modes(module)
    for m in module.modules():
        table = m._parameters
        for key, p in table.items():
            if p is not None and not isinstance(p, Variable):
                table[key] = to_static_parameter(p)
        buffers = m._buffers
        for key, b in buffers.items():
            if b is not None and not isinstance(b, Variable):
                buffers[key] = to_static_buffer(b)
