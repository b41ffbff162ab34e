"""The first-order backward of a compiled call, without running its forward twice.

`build(fn, call_args, tensors, n_out, grad_in, diff_out, name, dims)` traces one joint
program: `fn` on the arguments, then its VJP (`static.transforms.vjp`) on cotangent
Variables, and optimises it as a whole (given `dims`, the inputs' and then the output
cotangents' dims with unknown sizes, the trace is checked to be right for every size but
`Joint.excluded`, see `symbolic`). The program is then split: the forward part is every
equation the outputs need; the backward part the rest. The forward's values that the
backward reads are its residuals. Both parts are generated as code (`codegen`):

    forward(*inputs) -> (*outputs, *residuals)
    backward(*inputs, *residuals, *out_bars) -> input cotangents (one per `grad_in`)

Random draws all run in the forward part (their numbers are residuals where the backward
reads them). The residuals are NumPy arrays outside any graph, so this backward serves
`backward()` and `grad()` without `create_graph`; a backward that must be differentiable
again recomputes the forward instead (`compiled.Compiled._vjp_of`, which replays the
forward's draws).
"""
import functools

import numpy as np

from .. import random_ops
from .._core.grad_mode import enable_grad
from .._core.tensor import Tensor
from ..static.program import Variable
from . import codegen, signature, symbolic, tracing as _trace


class Joint:
    __slots__ = ("forward", "backward", "forward_source", "backward_source", "n_out",
                 "excluded")


def build(fn, call_args, tensors, n_out, out_types, grad_in, diff_out, names, name, dims=None,
          backend=None):
    from ..static.transforms import vjp
    args_template, kwargs_template = call_args

    def joint(xs, out_bars):
        leaves = iter(xs)
        # in grad mode, as the call being differentiated ran (this may be built during a
        # backward pass): what fn does under no_grad or detach() is then cut from the vjp
        with enable_grad():
            result = fn(*signature.substitute(args_template, leaves),
                        **signature.substitute(kwargs_template, leaves))
        outs = []
        signature.flatten_value(result, outs)
        inputs = [xs[i] for i in grad_in]
        x_bars = vjp([outs[i] for i in diff_out], inputs, list(out_bars))
        return outs, [x.new_zeros(x.shape) if g is None else g for g, x in zip(x_bars, inputs)]

    bars = [Tensor._make(np.zeros(shape, dtype)) for shape, dtype in
            (out_types[i] for i in diff_out)]
    bar_names = [f"out_bar{k}" for k in range(len(bars))]
    trace = functools.partial(_trace.trace, joint, (list(tensors), bars), {},
                              list(tensors) + bars, list(names) + bar_names, dims=dims)
    traced, excluded = (trace(), {}) if dims is None else symbolic.trace_verified(trace)
    with random_ops.draws_undone(traced.program):  # only to learn what the code needs
        _, seen = codegen.first_run(traced, [t._data for t in tensors] +
                                    [b._data for b in bars])
    n_x = len(tensors)
    x_vars, bar_vars = traced.inputs[:n_x], traced.inputs[n_x:]
    outputs, x_bars = traced.outputs[:n_out], traced.outputs[n_out:]
    equations = traced.program.equations
    needed = {id(o) for o in outputs if isinstance(o, Variable)}
    forward_eqs = []
    for eq in reversed(equations):
        # every random draw runs in the forward, in order: the backward reads its numbers
        if any(id(o) in needed for o in eq.outputs) or getattr(eq.prim, "draws", False):
            forward_eqs.append(eq)
            needed.update(id(x) for x in eq.inputs if isinstance(x, Variable))
    forward_eqs.reverse()
    in_forward = {id(eq) for eq in forward_eqs}
    backward_eqs = [eq for eq in equations if id(eq) not in in_forward]
    defined = {id(o): o for eq in forward_eqs for o in eq.outputs}
    residuals = {}
    for x in [x for eq in backward_eqs for x in eq.inputs] + list(x_bars):
        if isinstance(x, Variable) and id(x) in defined:
            residuals.setdefault(id(x), x)
    residuals = list(residuals.values())
    result = Joint()
    result.n_out = n_out
    result.excluded = excluded  # Dim -> the sizes it does not serve (`symbolic`)
    result.forward_source, result.forward = codegen.generate(
        _part(traced, forward_eqs, x_vars, list(outputs) + residuals), name, seen, backend)
    result.backward_source, result.backward = codegen.generate(
        _part(traced, backward_eqs, x_vars + residuals + bar_vars, list(x_bars)),
        f"{name}_backward", seen, backend)
    return result


def _part(traced, equations, inputs, outputs):
    program = traced.program.clone()
    program.equations = list(equations)
    return _trace.Traced(program, inputs, outputs, None, len(equations))
