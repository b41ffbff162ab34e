"""Tracing: a Python function of Tensors -> an optimised static Program.

`trace(fn, args, kwargs, tensors, names, check_captures)` calls `fn` with a data Variable of
a fresh Program in place of each Tensor leaf (same shape and dtype, named after the
argument), so every op stages through the ordinary dispatch; the result's Tensor leaves are
the outputs (Variables of the program, or constants when they don't depend on the inputs).
The program is then optimised by `static.passes.optimize`. Returns a `Traced`.

Refused clearly: a Python `if`/`while` on a traced value (the static Variable's own error,
pointing to `static.nn.cond` / `while_loop`); with `check_captures` (a trace for grad mode),
a captured Tensor that requires grad (it would be frozen into the program as a constant, and
its gradient silently lost); random numbers drawn from fluxgrad's default generator while
tracing (they would be frozen; the generator's state is restored); `Tensor.backward()`
while tracing (training steps are not traced yet).
"""
import functools
import keyword

from .._core import engine as _engine
from .._core.static_mode import state as _static_state
from .._core.tensor import Tensor
from .. import autograd, random as _random
from ..static import passes, staging
from ..static.program import Program, Variable
from . import signature


class Traced:
    __slots__ = ("program", "inputs", "outputs", "out_structure", "equations_before")

    def __init__(self, program, inputs, outputs, out_structure, equations_before):
        self.program = program
        self.inputs = inputs  # data Variables, one per Tensor leaf of the arguments
        self.outputs = outputs  # per result leaf: a Variable of the program or a Tensor
        self.out_structure = out_structure
        self.equations_before = equations_before  # before the passes


def trace(fn, args, kwargs, tensors, names, check_captures=True):
    program = Program()
    inputs = []
    for tensor, name in zip(tensors, names):
        var = program.new_var(tensor._data.shape, tensor._data.dtype, name=name, is_data=True)
        program.data.append(var)
        inputs.append(var)
    _static_state.armed = True
    rng = _random.default_generator
    rng_before = rng.np, rng.get_state()
    saved = _engine.backward, autograd.backward
    _engine.backward = autograd.backward = functools.partial(_refused_backward, fn)
    try:
        with staging.guard(program, Program()):
            leaves = iter(inputs)
            result = fn(*signature.substitute(args, leaves),
                        **signature.substitute(kwargs, leaves))
    finally:
        _engine.backward, autograd.backward = saved
    if rng.np is not rng_before[0] or rng.get_state() != rng_before[1]:
        rng.np = rng_before[0]
        rng.set_state(rng_before[1])
        raise NotImplementedError(
            f"fluxgrad.compile({_name(fn)}): it draws random numbers (rand, randn, dropout, "
            "...), which tracing would freeze into the program as constants; random ops in "
            "compiled functions are not supported yet: call it without compile")
    out_leaves = []
    structure = signature.flatten_value(result, out_leaves)
    for i, leaf in enumerate(out_leaves):
        if isinstance(leaf, Variable) and leaf.program is not program:
            raise ValueError(f"fluxgrad.compile({_name(fn)}): result leaf {i} is a static "
                             "Variable of another program; return values computed from the "
                             "arguments")
    if check_captures:
        _refuse_captured_grads(program, fn)
    before = len(program.equations)
    variables = [o for o in out_leaves if isinstance(o, Variable)]
    program = passes.optimize(program, variables)
    outputs = [_resolve(program, o) for o in out_leaves]
    return Traced(program, inputs, outputs, structure, before)


def _refused_backward(fn, *args, **kwargs):
    raise NotImplementedError(
        f"fluxgrad.compile({_name(fn)}): backward() inside a compiled function (a whole "
        "training step) is not supported yet; compile the loss function and call backward() "
        "and opt.step() outside it, or use func.grad / value_and_grad inside it")


def _resolve(program, x):
    while isinstance(x, Variable) and id(x) in program.aliases:
        x = program.aliases[id(x)]
    return x


def _refuse_captured_grads(program, fn):
    for eq in program.equations:
        for x in eq.inputs:
            if isinstance(x, Tensor) and not isinstance(x, Variable) and x._requires_grad:
                raise NotImplementedError(
                    f"fluxgrad.compile({_name(fn)}): {eq.prim.name} (at {eq.source}) reads a "
                    f"tensor {list(x._data.shape)} that requires grad but is not an argument of "
                    "the compiled function (a closure or a module's parameter); its gradient "
                    "would be lost. Pass it as an argument, or detach it")


def input_names(fn, args, kwargs, n):
    """Readable, distinct Python names for the `n` Tensor leaves: the parameters' names."""
    import inspect
    try:
        params = [p.name for p in inspect.signature(fn).parameters.values()
                  if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD)]
    except (TypeError, ValueError):
        params = []
    names, seen = [], set()

    def add(base, x):
        if isinstance(x, Tensor):
            name = "".join(c if c.isalnum() or c == "_" else "_" for c in base).strip("_")
            if not name.isidentifier() or keyword.iskeyword(name):
                name = f"x_{name}"
            candidate, k = name, 1
            while candidate in seen:
                candidate, k = f"{name}_{k}", k + 1
            seen.add(candidate)
            names.append(candidate)
        elif isinstance(x, (tuple, list)):
            for i, v in enumerate(x):
                add(f"{base}_{i}", v)
        elif isinstance(x, dict):
            for k, v in x.items():
                add(f"{base}_{k}", v)
    for i, a in enumerate(args):
        add(params[i] if i < len(params) else f"arg{i}", a)
    for k, v in kwargs.items():
        add(k, v)
    assert len(names) == n
    return names


def _name(fn):
    return getattr(fn, "__name__", type(fn).__name__)
