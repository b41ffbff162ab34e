"""Tracing: a Python function of Tensors -> an optimised static Program.

`trace(fn, args, kwargs, tensors, names, check_captures, lift)` calls `fn` with a data
Variable of a fresh Program in place of each Tensor leaf (same shape and dtype, named after
the argument), so every op stages through the ordinary dispatch; the result's Tensor leaves
are the outputs (Variables of the program, or constants when they don't depend on the
inputs). What is staged under `no_grad` (and `detach()`, `.data`) is cut from later
differentiation of the program, as eager mode records no graph there. With `lift`, the
eager state the function reads and writes (parameters, buffers, `.grad`, optimizer state: see
`state`) becomes further inputs and outputs, and `backward()` / `opt.step()` inside it are
staged; `Traced.state` says how to read and write that state at each call (None when the
trace touched none). Writes
through views (`y[:, 0] += 1`, `y.view(-1)[i] = v`) are staged as out-of-place ops that
write on into the base (see `views`). A write into an argument (`x.add_(1)`, `x[0] = 0`,
`x.data.mul_(2)`, through a view of x) makes x's final value an output, after the state's
(`Traced.arg_writes`), which each call writes into the argument's memory (`arguments`);
refused (NotImplementedError) when grad mode is on and an argument requires grad, where
eager mode would record the write in the graph (eager mode's own refusals, for a leaf that
requires grad, are raised as there). The program is then optimised by
`static.passes.optimize`. Returns a `Traced`.

Refused clearly: a Python `if`/`while` on a traced value (the static Variable's own error,
pointing to `static.nn.cond` / `while_loop`); with `check_captures` (a trace for grad mode),
a captured Tensor that requires grad (it would be frozen into the program as a constant, and
its gradient silently lost) unless the function also writes state (a training step);
`Tensor.backward()` while tracing without `lift` (what `state` refuses, it refuses too);
random numbers drawn from fluxgrad's default generator by NumPy directly while tracing
(nn.init, get_rng(): they would be frozen; the generator's state is restored). Random ops
(rand, dropout, ...) are staged like any op (see `static.staging`) and leave the generator
alone while tracing: each call of the compiled code draws anew. vmap and forward mode run
their rules first; the ops those issue on the Variables stage (see `static.staging`).
"""
import contextlib
import functools
import keyword

from .._core import engine as _engine
from .._core.grad_mode import state as _grad_state
from .._core.static_mode import state as _static_state
from .._core.tensor import Tensor
from .. import autograd, random as _random
from ..static import passes, staging, transforms
from ..static.program import Program, Variable
from . import signature, state as _state, views as _views


class Traced:
    __slots__ = ("program", "inputs", "outputs", "out_structure", "equations_before", "state",
                 "n_results", "arg_writes", "arg_results", "reads_layout")

    def __init__(self, program, inputs, outputs, out_structure, equations_before, state=None,
                 n_results=None, arg_writes=(), arg_results=None, reads_layout=True):
        self.program = program
        self.inputs = inputs  # data Variables: one per Tensor leaf of the arguments, then
        # the lifted state's (`state.read()` gives their arrays)
        self.outputs = outputs  # per result leaf: a Variable of the program or a Tensor;
        # then the new values of the state `state.write` writes back
        self.out_structure = out_structure
        self.equations_before = equations_before  # before the passes
        self.state = state  # a `state.Binding`, or None
        self.n_results = len(outputs) if n_results is None else n_results  # result leaves
        self.arg_writes = arg_writes  # (argument, output): the arguments written in place and
        # the outputs (after the state's) holding their final values (see `arguments`)
        self.arg_results = arg_results or {}  # result leaf -> the written argument it is
        self.reads_layout = reads_layout  # whether the trace depends on the arguments' memory
        # layouts (`views`: their strides, whether they are views; a write into one): if not,
        # its code serves arguments of any strides


def trace(fn, args, kwargs, tensors, names, check_captures=True, lift=False, dims=None):
    program = Program()
    inputs = []
    for i, (tensor, name) in enumerate(zip(tensors, names)):  # dims: shapes with unknown sizes
        var = program.new_var(tensor._data.shape if dims is None else dims[i],
                              tensor._data.dtype, name=name, is_data=True)
        program.data.append(var)
        inputs.append(var)
    _static_state.armed = True
    rng = _random.default_generator
    rng_before = rng.np, rng.np.bit_generator.state
    tracer = _state.Tracer(program, fn, inputs, tensors) if lift else None
    views = _views.Views(tracer, zip(inputs, tensors))
    saved = _static_state.stage, _engine.backward, autograd.backward, staging.programs.tracing
    _static_state.stage = functools.partial(
        views.stage, functools.partial(_lifting_stage, saved[0], tracer))
    _engine.backward = autograd.backward = tracer.backward if lift else \
        functools.partial(_refused_backward, fn)
    staging.programs.tracing = True  # random draws stage: every call draws anew
    try:
        with staging.guard(program, Program()), \
                tracer.patched() if lift else contextlib.nullcontext(), views.patched():
            leaves = iter(inputs)
            result = fn(*signature.substitute(args, leaves),
                        **signature.substitute(kwargs, leaves))
            views.refresh_all()  # a view returned, or held as state, reads the last writes
    finally:
        (_static_state.stage, _engine.backward, autograd.backward,
         staging.programs.tracing) = saved
    if rng.np is not rng_before[0] or rng.np.bit_generator.state != rng_before[1]:
        # staged draws leave the generator alone while tracing: this one was made by NumPy
        # directly (nn.init, a layer built inside, get_rng()) and would be frozen
        rng.np = rng_before[0]
        rng.np.bit_generator.state = rng_before[1]
        raise NotImplementedError(
            f"fluxgrad.compile({_name(fn)}): it draws random numbers outside fluxgrad's random "
            "ops (nn.init, a layer created inside the function, get_rng(), manual_seed), which "
            "tracing would freeze into the program as constants; create layers and initialise "
            "weights outside the compiled function (rand, randn, dropout, ... inside it draw "
            "anew at every call)")
    out_leaves = []
    structure = signature.flatten_value(result, out_leaves)
    for i, leaf in enumerate(out_leaves):
        if isinstance(leaf, Variable) and leaf.program is not program:
            raise ValueError(f"fluxgrad.compile({_name(fn)}): result leaf {i} is a static "
                             "Variable of another program; return values computed from the "
                             "arguments")
    if check_captures:
        _refuse_captured_grads(program, fn, tracer)
    n_results = len(out_leaves)
    written, values = tracer.written() if lift else ((), ())
    out_leaves += values
    arg_writes = []
    for i, (var, data) in enumerate(zip(inputs, program.data)):
        if var is not data:  # an in-place op wrote it: `data` is its value at the call
            arg_writes.append((i, len(out_leaves)))
            out_leaves.append(var)
    if arg_writes:
        inputs = program.data[:len(inputs)]
    before = len(program.equations)
    variables = [o for o in out_leaves if isinstance(o, Variable)]
    program = _adopted(passes.optimize(program, variables), program)
    outputs = [_resolve(program, o) for o in out_leaves]
    arg_results = {j: i for i, k in arg_writes for j in range(n_results)
                   if out_leaves[j] is out_leaves[k]}
    if arg_writes and check_captures:
        _refuse_differentiable_writes(fn, program, inputs, tensors, outputs, n_results,
                                      arg_writes)
    binding = None
    if lift and tracer.slots:
        # the lifted state the optimised program reads (unread state is not even read)
        used = {id(x) for eq in program.equations for x in eq.inputs}
        used.update(id(o) for o in outputs)
        lifted = [v for v in program.data[len(inputs):] if id(v) in used]
        binding = _state.Binding(tracer, written, n_results, lifted)
        inputs = inputs + lifted
        if binding.writes and check_captures and not tracer.backwarded:
            _refuse_differentiable_results(fn, tensors, outputs)
    return Traced(program, inputs, outputs, structure, before, binding, n_results,
                  arg_writes, arg_results, views.read_layout or bool(arg_writes))


def _refuse_differentiable_results(fn, tensors, outputs):
    """A call that writes state runs outside the eager graph: its results can't carry
    gradients back to arguments that require grad."""
    if any(t._requires_grad for t in tensors) and any(
            isinstance(o, Variable) and o._data.dtype.kind in "fc" for o in outputs):
        raise NotImplementedError(
            f"fluxgrad.compile({_name(fn)}): it writes eager state (e.g. batch-norm running "
            "statistics) and returns results that need gradients for its arguments; compiled "
            "code can't do both yet. Call it under no_grad(), put backward() and opt.step() "
            "inside it (a training step), or call it without compile")


def _refuse_differentiable_writes(fn, program, inputs, tensors, outputs, n_results, writes):
    """In grad mode, eager mode records a write into an argument in the graph: compiled
    code can't when results need gradients, or when the value written depends on an
    argument that requires grad (the written argument would take that history)."""
    sources = [v for v, t in zip(inputs, tensors) if t._requires_grad]
    if not sources:
        return
    where = f"fluxgrad.compile({_name(fn)}): it writes into an argument in place"
    results = [o for o in outputs[:n_results] if isinstance(o, Variable)]
    if transforms._path(program, sources, results)[0]:
        raise NotImplementedError(
            f"{where} and returns results that need gradients for its arguments; compiled "
            "code can't do both yet. Call it under no_grad(), or call it without compile")
    written = [outputs[k] for _, k in writes if isinstance(outputs[k], Variable)]
    if transforms._path(program, sources, written)[0]:
        raise NotImplementedError(
            f"{where} a value computed from an argument that requires grad, which eager mode "
            "records in the graph (the argument takes that history); compiled code can't "
            "yet. Write under no_grad(), or call the function without compile")


def _lifting_stage(stage, tracer, prim, inputs, params):
    out = stage(prim, inputs if tracer is None else tracer.lift(inputs), params)
    if not _grad_state.enabled and prim.differentiable and out is not NotImplemented:
        # eager mode records no graph under no_grad: a later backward() must not reach it
        from ..static._ops import stop_gradient
        return stop_gradient(out) if prim.n_outputs == 1 else tuple(map(stop_gradient, out))
    return out


def _refused_backward(fn, *args, **kwargs):
    raise NotImplementedError(
        f"fluxgrad.compile({_name(fn)}): backward() inside a function traced for its "
        "gradient is not supported; call the function without compile, or use func.grad / "
        "value_and_grad inside it")


def _adopted(program, traced):
    """`program` (the optimised copy of `traced`) as the program of its Variables: else they
    would keep `traced` alive, with the constants of the equations the passes removed (a
    first optimizer step's zero state, folded away: the size of the parameters)."""
    if program is not traced:
        for v in program.vars.values():
            if v.program is traced:
                v.program = program
    return program


def _resolve(program, x):
    while isinstance(x, Variable) and id(x) in program.aliases:
        x = program.aliases[id(x)]
    return x


def _refuse_captured_grads(program, fn, tracer):
    for slot in tracer.captured_grad_reads() if tracer is not None else ():
        raise NotImplementedError(
            f"fluxgrad.compile({_name(fn)}): an op (at {slot.source}) reads a tensor "
            f"{list(slot.owner._data.shape)} that requires grad but is not an argument of the "
            "compiled function (a closure or a module's parameter), and the function does not "
            "call backward() on it; its gradient would be lost. Pass it as an argument, detach "
            "it, or compile the whole training step (backward() and opt.step() inside)")
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
