"""Transforms of programs: reverse mode (`grad`) and forward mode (`forward_grad`).

Both walk the equations between `inputs` and `outputs` (equations of primitives
without a derivative cut the path) and call the primitives' own rules on the
Variables, which stages the derivative equations into the same program:
- `vjp` (prim off): each equation's VJP rule, in reverse order; cotangents whose
  shape or dtype differs from their input's are reduced with `sum_to` / cast, as
  the eager engine does;
- `forward_grad`: each equation's JVP rule, in order;
- `linearize` + `transpose` (prim on): the JVP rules staged on placeholder tangents
  (the linear part of the program is every equation that reads a tangent), then
  that linear part run backwards: each linear equation's transpose is its
  primitive's VJP rule for the inputs it is linear in (`Primitive.linear` says
  which), and the forward linear equations are dropped. A path through a while_loop (whose
  op says `transposable = False`) is differentiated by staged VJPs instead.
Derivatives of derivatives work the same way, since staged rules are equations
like any other. Every transform ends with `program.check()`.
"""
import numpy as np

from .._core import engine
from .._core.tensor import Tensor
from . import staging
from ._ops import full_like
from .dims import Dim
from .program import Variable

__all__ = ["grad", "gradients", "forward_grad", "vjp", "linearize", "transpose"]


def _as_list(xs):
    return [xs] if isinstance(xs, Tensor) else list(xs)


def is_static(*groups):
    """Whether a tensor or sequence of tensors among `groups` holds a static Variable."""
    for g in groups:
        for x in ([g] if isinstance(g, Tensor) else (g or ())):
            if isinstance(x, Variable):
                return True
    return False


def _program_of(variables, caller):
    for v in variables:
        if isinstance(v, Variable):
            return staging.programs.main if v.persistable else v.program
    raise TypeError(f"{caller}: expected static Variables")


def _path(program, inputs, outputs):
    """The differentiable equations on a path from `inputs` to `outputs`, in order, and the
    ids of the Variables that depend on the inputs."""
    reach = {id(x) for x in inputs}
    forward = []
    for eq in program.equations:
        if eq.prim.differentiable and any(isinstance(x, Variable) and id(x) in reach
                                          for x in eq.inputs):
            forward.append(eq)
            reach.update(id(o) for o in eq.outputs if o._data.dtype.kind in "fc")
    needed = {id(y) for y in outputs}
    path = []
    for eq in reversed(forward):
        if any(id(o) in needed for o in eq.outputs):
            path.append(eq)
            needed.update(id(x) for x in eq.inputs if isinstance(x, Variable))
    path.reverse()
    return path, reach


def _seeds(outputs, grad_outputs, caller):
    if grad_outputs is None:
        grad_outputs = [None] * len(outputs)
    grad_outputs = _as_list(grad_outputs)
    if len(grad_outputs) != len(outputs):
        raise ValueError(f"{caller}: {len(outputs)} outputs but {len(grad_outputs)} "
                         "grad_outputs; pass one per output (None for ones)")
    seeds = []
    for i, (y, g) in enumerate(zip(outputs, grad_outputs)):
        if g is None:
            seeds.append(full_like(y, 1))
            continue
        if not isinstance(g, Tensor):
            g = Tensor(g, dtype=y.dtype)
        if tuple(g._data.shape) != tuple(y._data.shape):
            raise ValueError(f"{caller}: grad_outputs[{i}] has shape {list(g.shape)}, "
                             f"outputs[{i}] is {y.type_str}")
        seeds.append(g)
    return seeds


def _fit(x_bar, x):
    """The engine's one unbroadcast step: x_bar reduced to x's shape and cast to its dtype."""
    if not isinstance(x_bar, Tensor):
        x_bar = full_like(x, x_bar)
    if x_bar._data.shape != x._data.shape:
        x_bar = engine.OPS["sum_to"](x_bar, x._data.shape)
    if x_bar._data.dtype != x._data.dtype:
        x_bar = engine.OPS["cast"](x_bar, x.dtype)
    return x_bar


def _accumulate(table, x, g):
    prev = table.get(id(x))
    table[id(x)] = g if prev is None else engine.OPS["add"](prev, g)


def _out_bars(eq, table, pop=False):
    get = table.pop if pop else table.get
    bars = [get(id(o), None) for o in eq.outputs]
    if all(b is None for b in bars):
        return None
    if eq.prim.n_outputs == 1:
        return bars[0]
    return tuple(b if b is not None or o._data.dtype.kind not in "fc" else _zeros(o, eq)
                 for b, o in zip(bars, eq.outputs))


def _zeros(o, eq):
    """Zeros like output `o` of `eq`: a constant when its shape is known (o may be a linear
    Variable that transpose removes), else staged from a primal input of the same shape."""
    if not any(isinstance(d, Dim) for d in o.dims):
        return Tensor(np.zeros(o._data.shape, o._data.dtype))
    return full_like(o, 0)


def _outs(eq):
    return eq.outputs[0] if eq.prim.n_outputs == 1 else eq.outputs


def vjp(outputs, inputs, grad_outputs=None):
    """Cotangents of `inputs` (None where no path leads), staging each VJP rule."""
    outputs, inputs = _as_list(outputs), _as_list(inputs)
    program = _program_of(outputs + inputs, "grad")
    with program.transaction():
        results = vjp_in(program, outputs, inputs, grad_outputs)
        program.check()
    return results


def vjp_in(program, outputs, inputs, grad_outputs=None):
    """`vjp` staged into `program` (a sub-program, whose outputs may be captured Variables)."""
    with staging.guard(program):
        seeds = _seeds(outputs, grad_outputs, "grad")
        path, reach = _path(program, inputs, outputs)
        table = {}
        for y, s in zip(outputs, seeds):
            _accumulate(table, y, s)
        for eq in reversed(path):
            out_bar = _out_bars(eq, table)
            if out_bar is None:
                continue
            needs = [isinstance(x, Variable) and id(x) in reach for x in eq.inputs]
            x_bars = eq.prim.pullback(out_bar, _outs(eq), eq.inputs, needs, eq.params)
            for x, need, x_bar in zip(eq.inputs, needs, x_bars):
                if need and x_bar is not None:
                    _accumulate(table, x, _fit(x_bar, x))
        return [table.get(id(x)) for x in inputs]


def forward_grad(outputs, inputs, grad_inputs=None):
    """Tangents of `outputs` along `grad_inputs` (ones by default), staging each JVP rule.
    A single output gives a Variable, else a list (zeros where no path leads)."""
    single = isinstance(outputs, Tensor)
    outputs, inputs = _as_list(outputs), _as_list(inputs)
    program = _program_of(outputs + inputs, "forward_grad")
    with program.transaction(), staging.guard(program):
        if grad_inputs is None:
            grad_inputs = [full_like(x, 1) for x in inputs]
        grad_inputs = _as_list(grad_inputs)
        if len(grad_inputs) != len(inputs):
            raise ValueError(f"forward_grad: {len(inputs)} inputs but {len(grad_inputs)} "
                             "grad_inputs")
        for i, (x, v) in enumerate(zip(inputs, grad_inputs)):
            if tuple(v._data.shape) != tuple(x._data.shape):
                raise ValueError(f"forward_grad: grad_inputs[{i}] has shape {list(v.shape)}, "
                                 f"inputs[{i}] is {x.type_str}")
        dots = _push(program, inputs, grad_inputs, outputs)
        results = [dots.get(id(y)) if id(y) in dots else full_like(y, 0) for y in outputs]
        program.check()
    return results[0] if single else results


def _push(program, inputs, tangents, outputs):
    path, _ = _path(program, inputs, outputs)
    dots = {}
    for x, t in zip(inputs, tangents):
        _accumulate(dots, x, t)
    for eq in path:
        in_dots = tuple(dots.get(id(x)) if isinstance(x, Variable) else None for x in eq.inputs)
        if all(t is None for t in in_dots):
            continue
        out_dot = eq.prim.jvp(in_dots, _outs(eq), *eq.inputs, **eq.params)
        if eq.prim.n_outputs == 1:
            out_dot = (out_dot,)
        for o, t in zip(eq.outputs, out_dot):
            if t is not None and o._data.dtype.kind in "fc":
                if not isinstance(t, Tensor):
                    t = full_like(o, t)
                elif t._data.shape != o._data.shape:
                    t = t.broadcast_to(o._data.shape)
                dots[id(o)] = t
    return dots


def linearize(program, inputs, outputs):
    """Stage the JVP of the path from `inputs` to `outputs` on placeholder tangents.

    Returns (tangent placeholders, output tangents, linear equations, ids of the linear
    Variables). The linear equations are removed from the program (they read the
    placeholders, which have no value); `transpose` consumes them."""
    start = len(program.equations)
    placeholders = [program.new_var(x.dims, x._data.dtype, name=f"{x.name}_dot") for x in inputs]
    with staging.guard(program):
        dots = _push(program, inputs, placeholders, outputs)
    linear_ids = {id(p) for p in placeholders}
    linear, kept = [], []
    for eq in program.equations[start:]:
        if any(isinstance(x, Variable) and id(x) in linear_ids for x in eq.inputs):
            linear.append(eq)
            linear_ids.update(id(o) for o in eq.outputs)
        else:
            kept.append(eq)
    program.equations[start:] = kept
    program.version += 1
    return placeholders, [dots.get(id(y)) for y in outputs], linear, linear_ids


def transpose(program, linear, linear_ids, out_dots, seeds, placeholders):
    """Cotangents of the placeholders: the linear equations run backwards from `seeds`."""
    table = {}
    with staging.guard(program):
        for d, s in zip(out_dots, seeds):
            if d is not None:
                _accumulate(table, d, _fit(s, d) if id(d) in linear_ids else s)
        for eq in reversed(linear):
            out_bar = _out_bars(eq, table, pop=True)
            if out_bar is None:
                continue
            mask = [isinstance(x, Variable) and id(x) in linear_ids for x in eq.inputs]
            _check_linear(eq, mask)
            x_bars = eq.prim.pullback(out_bar, _outs(eq), eq.inputs, mask, eq.params)
            for x, lin, x_bar in zip(eq.inputs, mask, x_bars):
                if lin and x_bar is not None:
                    _accumulate(table, x, _fit(x_bar, x))
    return [table.get(id(p)) for p in placeholders]


def _check_linear(eq, mask):
    declared = eq.prim.linear
    positions = [i for i, m in enumerate(mask) if m]
    ok = declared == "all" or (declared == "each" and len(positions) == 1) or (
        isinstance(declared, tuple) and all(i in declared for i in positions))
    if not ok:
        raise NotImplementedError(
            f"transpose: the op {eq.prim.name!r} is applied to tangents in inputs {positions}, "
            f"but it declares no transpose for them (Primitive.linear = {declared!r}); declare "
            "linear= on its record, or use prim off (fluxgrad.incubate.autograd.disable_prim())")


def grad_prim(outputs, inputs, grad_outputs=None):
    """Cotangents of `inputs` by linearize + transpose."""
    outputs, inputs = _as_list(outputs), _as_list(inputs)
    program = _program_of(outputs + inputs, "grad")
    with program.transaction():
        return _grad_prim(program, outputs, inputs, grad_outputs)


def _grad_prim(program, outputs, inputs, grad_outputs):
    path, _ = _path(program, inputs, outputs)
    if any(getattr(eq.prim, "transposable", True) is False for eq in path):
        # a loop's JVP keeps per-iteration values a transpose can't reach: staged VJPs instead
        results = vjp_in(program, outputs, inputs, grad_outputs)
        program.check()
        return results
    with staging.guard(program):
        seeds = _seeds(outputs, grad_outputs, "grad")
    start = len(program.equations)
    placeholders, out_dots, linear, linear_ids = linearize(program, inputs, outputs)
    results = transpose(program, linear, linear_ids, out_dots, seeds, placeholders)
    _drop_readers(program, start, linear_ids)
    for p in placeholders:
        del program.vars[p.name]
    program.version += 1
    program.check()
    return results


def _drop_readers(program, start, removed):
    """Drop the equations from `start` on that read a removed (linear) Variable: rules that
    compute every input's cotangent at once stage some for inputs the transpose ignores."""
    removed = set(removed)
    kept = []
    for eq in program.equations[start:]:
        if any(isinstance(x, Variable) and id(x) in removed for x in eq.inputs):
            removed.update(id(o) for o in eq.outputs)
        else:
            kept.append(eq)
    program.equations[start:] = kept
    program.version += 1


def grad(outputs, inputs, grad_outputs=None, prim=None):
    """Paddle's `incubate.autograd.grad` on programs: a Variable for a single input, else a
    list; zeros for an input no output depends on."""
    from ..incubate.autograd import prim_enabled
    single = isinstance(inputs, Tensor)
    inputs_list = _as_list(inputs)
    use_prim = prim_enabled() if prim is None else prim
    results = (grad_prim if use_prim else vjp)(outputs, inputs_list, grad_outputs)
    program = _program_of(inputs_list, "grad")
    with staging.guard(program):
        results = [full_like(x, 0) if g is None else g for x, g in zip(inputs_list, results)]
    return results[0] if single else results


def gradients(targets, inputs, target_gradients=None, no_grad_set=None):
    """`fluxgrad.static.gradients`: a list of gradients of `targets` w.r.t. `inputs` (None
    where no path leads), by the staged VJP rules."""
    return vjp(targets, inputs, target_gradients)
