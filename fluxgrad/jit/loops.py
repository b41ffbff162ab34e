"""Control flow in generated code: `while_loop` (and `scan`, a while_loop), its reverse-mode
loop and `cond` as Python statements, their sub-programs as generated functions written
before the main one, instead of the Executor's `evaluate` walking them at every iteration.

    def _body_1(i, y):                                # one line per equation, as the main one
        a = _asarray(_add(i, 1))
        b = _tanh(_add(_multiply(y, 0.5), 1.0))
        return (a, b)

    def forward(x, n):                                # the loop in the main function
        i_1, y_1 = _c3, x
        while _cond_1(i_1, y_1, n):
            i_1, y_1 = _body_1(i_1, y_1)
        ...

`emit(eq, args, outs, names, functions, comment)` gives the lines for one control-flow
equation (args: the code of its inputs; outs: names for its outputs, None for one nothing
reads; `functions` collects the new functions' source; `comment(eq, width)` gives the user's
line as a comment), or None where a sub-program has an equation whose size is known only at
run time (the Executor's `evaluate` refuses those too: the impl's call stays).

A loop keeps each iteration's values (its trajectory) only where its reverse-mode loop reads
them (the param `keep`, which `passes.dce` turns off), and of those only the ones it reads
(`kept`). A loop that writes a loop value at an index (`index_put`: scan's output buffer,
`ys[i] = y`) that its body reads nowhere else, and that its trajectory does not keep, writes
in place, into a copy of the initial value made before the loop: one buffer, not a new array
per iteration.
"""
import numpy as np

from ..ops.indexing import index_put_into
from ..static.control_flow import ControlOp, _needed_equations, cond_op, while_grad_op, \
    while_op
from ..static.program import Variable
from .._core.tensor import Tensor

__all__ = ["emit"]


def _trajectory(states):
    kept = np.empty((), object)
    kept[()] = states
    return kept


def emit(eq, args, outs, names, functions, comment):
    defined = len(functions)
    emitters = {id(while_op): _while, id(while_grad_op): _while_grad, id(cond_op): _cond}
    emitter = emitters.get(id(eq.prim))
    if emitter is None:
        return None
    # outputs nothing reads get their names all the same (a loop's variables are read inside
    # it), but a while_loop's unread trajectory is not made
    outs = [o if o is not None or (eq.prim is while_op and k == len(outs) - 1) else
            names.var(v) for k, (o, v) in enumerate(zip(outs, eq.outputs))]
    try:
        lines = emitter(eq, args, outs, names, functions, comment)
    except _Symbolic:
        del functions[defined:]
        return None
    return [lines[0] + comment(eq, len(lines[0]))] + lines[1:]


class _Symbolic(Exception):
    """A sub-program holds an equation with a size known only at run time."""


def _assign(targets, value):
    """`targets, = value` (a call returning a tuple), or the bare call for no targets."""
    return f"{', '.join(targets)}, = {value}" if targets else value


def _tuple(items):
    return f"({', '.join(items)}{',' if len(items) == 1 else ''})"


def _while(eq, args, outs, names, functions, comment):
    p = eq.params
    n, keep, kept = p["n"], p.get("keep", True), p.get("kept")
    kept = () if not keep else range(n) if kept is None else kept
    captures = list(p["captures"])
    caps = args[n:]
    in_place = [k for k in _written_at_an_index(p["body"], p["b_args"], p["b_outs"])
                if k not in kept]
    cond = _function(p["cond"], list(p["c_args"]) + captures, [p["c_out"]], names, functions,
                     comment, "cond")
    body = _function(p["body"], list(p["b_args"]) + captures, list(p["b_outs"]), names,
                     functions, comment, "body", in_place)
    state = outs[:n]
    lines = [f"{', '.join(state)} = {', '.join(args[:n])}"] if n else []
    lines += [f"{state[k]} = {state[k]}.copy()" for k in in_place]
    call_args = ", ".join(state + caps)
    if keep:
        trajectory = names.fresh("trajectory")
        lines.append(f"{trajectory} = []")
    lines.append(f"while {cond}({call_args})[0]:")
    if keep:
        lines.append(f"    {trajectory}.append("
                     f"{_tuple([v if k in kept else 'None' for k, v in enumerate(state)])})")
    lines.append(f"    {_assign(state, f'{body}({call_args})')}")
    if outs[n] is not None:
        lines.append(f"{outs[n]} = {names.helper('_trajectory', _trajectory)}"
                     f"({trajectory if keep else '[]'})")
    return lines


def _while_grad(eq, args, outs, names, functions, comment):
    p = eq.params
    n_args, n_own, captures = p["n_args"], p["n_own"], list(p["captures"])
    body = _function(p["body"], list(p["b_args"]) + list(p["seeds"]) + captures,
                     list(p["cts"]), names, functions, comment, "body_grad")
    kept, bars, caps = args[0], outs[:n_args], args[1 + n_args + p["n"]:]
    totals = outs[n_args:]
    own_codes = [code for c, code in zip(captures[:n_own], caps) if _is_float(c)]
    state = [names.fresh("s") for _ in p["b_args"]]
    results = [names.fresh("g") for _ in totals]
    names.used.add("reversed")  # the builtin
    zeros = names.helper("_zeros_like", np.zeros_like)
    lines = [f"{', '.join(bars)} = {', '.join(args[1:1 + n_args])}"] if bars else []
    lines += [f"{t} = {zeros}({code})" for t, code in zip(totals, own_codes)]
    lines.append(f"for {', '.join(state)}, in reversed({kept}[()]):")
    call = f"{body}({', '.join(state + bars + caps)})"
    lines.append(f"    {_assign(bars + results, call)}")
    lines += [f"    {t} = {t} + {r}" for t, r in zip(totals, results)]
    return lines


def _cond(eq, args, outs, names, functions, comment):
    p = eq.params
    captures = list(p["captures"])
    branches = [_function(sub, captures, list(o), names, functions, comment, kind)
                for sub, o, kind in zip(p["branches"], p["outs"], ("then", "else"))]
    caps = ", ".join(args[1:])
    return [f"if {args[0]}:", f"    {_assign(outs, f'{branches[0]}({caps})')}", "else:",
            f"    {_assign(outs, f'{branches[1]}({caps})')}"]


def _is_float(x):
    return isinstance(x, Tensor) and x._data.dtype.kind in "fc"


def _written_at_an_index(body, b_args, b_outs):
    """The positions k where the body's k-th result is an `index_put` into its k-th argument,
    which no other equation of the body reads."""
    equations = _needed_equations(body, list(b_outs))
    readers = {}
    for e in equations:
        for x in e.inputs:
            if isinstance(x, Variable):
                readers.setdefault(id(x), []).append(e)
    positions = []
    for k, (a, o) in enumerate(zip(b_args, b_outs)):
        uses = readers.get(id(a), [])
        if len(uses) == 1 and uses[0].prim.name == "index_put" and uses[0].inputs[0] is a and \
                uses[0].outputs[0] is o and sum(x is a for x in uses[0].inputs) == 1 and \
                sum(r is o for r in b_outs) == 1 and not any(r is a for r in b_outs):
            positions.append(k)
    return positions


def _function(program, params, outputs, names, functions, comment, kind, in_place=()):
    """Define a generated function computing `outputs` of `program` from `params` (its
    arguments and captures); returns its name."""
    name = names.global_name(f"_{kind}", None)
    written = {id(outputs[k]) for k in in_place}
    lines = []
    for eq in _needed_equations(program, outputs):
        if eq.symbolic:
            raise _Symbolic
        args = [names.var(x) if isinstance(x, Variable) else
                names.value(x._data if isinstance(x, Tensor) else x, "c") for x in eq.inputs]
        outs = [names.var(o) for o in eq.outputs]
        if isinstance(eq.prim, ControlOp):
            nested = emit(eq, args, outs, names, functions, comment)
            if nested is None:
                raise _Symbolic
            lines += nested
            continue
        impl = names.impl(eq.prim) if id(eq.outputs[0]) not in written else \
            names.helper("_index_put_into", index_put_into)
        args += [f"{k}={names.value(v, 'p')}" for k, v in eq.params.items()]
        call = f"{impl}({', '.join(args)})"
        if eq.prim.n_outputs == 1:
            line = f"{outs[0]} = " + (f"_asarray({call})" if not eq.outputs[0]._data.ndim
                                      else call)
        else:
            line = f"{', '.join(outs)}, = {call}"
        lines.append(line + comment(eq, len(line) + 4))
        if eq.prim.n_outputs != 1:
            lines += [f"{o} = _asarray({o})" for o, v in zip(outs, eq.outputs)
                      if not v._data.ndim]
    results = [names.var(o) if isinstance(o, Variable) else
               names.value(np.asarray(o._data), "c") for o in outputs]
    lines.append(f"return {_tuple(results)}")
    signature = ", ".join(names.var(v) for v in params)
    functions.append(f"def {name}({signature}):\n" + "".join(f"    {line}\n" for line in lines))
    del names.globals[name]  # defined by the source itself
    return name
