"""Parameters in static mode: persistable, trainable Variables initialised by the startup
program.

A Module's parameters are created eagerly as usual (so every initialiser works); the
first time the Module is called in static mode each one is replaced by a
`ParamVariable` of the same name in the main program, whose initial value (the eager
one) the startup program writes into the scope. The same eager parameter always maps
to the same Variable, so shared parameters stay shared.
"""
import itertools

from ..nn.parameter import Parameter
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
    if isinstance(param, Variable):
        return param
    hit = _converted.get(id(param))
    if hit is not None:
        return hit[1]
    program = programs.main
    if name is None:
        name = f"param_{next(_names)}"
        while name in program.vars:
            name = f"param_{next(_names)}"
    var = ParamVariable._new(program, name, param._data.shape, param._data.dtype,
                             persistable=True)
    var._requires_grad = param._requires_grad
    program.adopt(var)
    programs.startup.set_update(var, param._data.copy())
    _converted[id(param)] = (param, var)
    return var


def adopt_parameters(module):
    """Replace the eager parameters of `module` and its sub-modules by ParamVariables."""
    for m in module.modules():
        table = m._parameters
        for key, p in table.items():
            if p is not None and not isinstance(p, Variable):
                table[key] = to_static_parameter(p)
