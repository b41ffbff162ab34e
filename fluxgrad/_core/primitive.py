"""The primitive record: an op's forward on arrays and its derivative rules, side by side.

Every mode reads the same record: the eager tape calls `impl` and, in backward,
`vjp`; forward mode calls `jvp`. Rules are written in fluxgrad ops, never in the
array module, so they can themselves be recorded (higher order).

Rule signatures, with `x, y, ...` the op's inputs (Tensors or Python scalars),
`out` its output (a tuple for multi-output ops) and `params` its static keywords.
`n_outputs` is 1, or the number of outputs (None: as many as `impl` returns).
`saves_out` says a VJP rule reads `out` (a tuple of flags: which inputs' rules read it,
so that `out` is kept only when one of those runs); `saves_inputs=False` says no rule reads the
inputs' values (only their shapes and dtypes), so modifying them in place after
the op is harmless and is not reported; `saves_inputs="others"` (bilinear ops)
says each input's rule reads only the other inputs, and a tuple says, per input's rule,
which inputs it reads (div: `((1,), (0, 1))`).
  vjp: one rule per input, `rule(out_bar, out, x, y, ..., **params) -> x_bar`,
       or a single function returning every input's cotangent (variadic ops);
  jvp: `rule(tangents, out, x, y, ..., **params) -> out_dot`, where `tangents`
       holds one tangent per input, None for inputs that carry none;
  batch: `rule(bdims, x, y, ..., **params) -> (out, out_bdim)` for vmap, where the
       inputs hold a whole batch along `bdims[i]` (None: the same for every example)
       and `out` holds the result's along `out_bdim` (a tuple of both for
       multi-output ops); written in fluxgrad ops, like the other rules;
  view: the output is a view of the first input's memory. A rule
       `view(base, value, **params) -> new_base` (in fluxgrad ops) gives the base
       with the view's entries replaced by `value`: how an in-place write through
       the view changes the base's value and history. True: a view that can't be
       written (a broadcast).
  linear: for the transpose step of static reverse mode (linearize + transpose): None,
       "all" (linear in all its inputs together: add, reshape, concat), "each"
       (multilinear: linear in any one input when the others are fixed: mul, matmul), or
       a tuple of the input positions it is linear in together (divide: (0,)). The
       transpose for those inputs is the VJP rule, which for them never reads their values.
  array_rules: the VJP rules (one per input, one output) give the same results when called
       with plain arrays for every Tensor (their operators and the ops they call take arrays),
       so a backward pass that records nothing runs them on the arrays themselves
       (tests/test_plain_backward.py checks every record that says so), and so does its JVP rule.

`array_jvp` is the JVP as a function of arrays, where the record gives one (None elsewhere):
the JVP rule itself for a record with `array_rules`; for an op linear in all its inputs
together, the op's `impl` applied to the tangents (zeros for inputs without one); for a
multilinear op, the sum, over the inputs that carry a tangent, of `impl` with that input
replaced by its tangent. Forward mode at a level whose tangents nothing differentiates
(`fluxgrad.func.hvp`) evaluates it, dispatching no op (tests/test_untaped_forward.py checks
it against the JVP rules for every record that has one).
"""
import re

import numpy as np

REGISTRY = {}


class Primitive:
    __slots__ = ("name", "impl", "vjp_rules", "vjp_all", "jvp", "saves_out",
                 "n_outputs", "view", "node_class", "differentiable", "saves_inputs", "batch",
                 "linear", "array_rules", "array_jvp", "runs_user_code")

    def __init__(self, name, impl, *, vjp=None, jvp=None, saves_out=False, n_outputs=1,
                 view=False, saves_inputs=True, batch=None, linear=None, array_rules=False):
        if name in REGISTRY:
            raise ValueError(f"an op named {name!r} is already registered")
        self.name = name
        self.impl = impl
        self.vjp_rules = tuple(vjp) if isinstance(vjp, (tuple, list)) else None
        self.vjp_all = vjp if callable(vjp) else None
        self.jvp = jvp
        self.batch = batch
        self.linear = linear
        self.saves_out = saves_out
        self.saves_inputs = saves_inputs
        self.n_outputs = n_outputs
        self.view = view
        self.differentiable = vjp is not None
        self.array_rules = array_rules and self.vjp_rules is not None and n_outputs == 1
        self.array_jvp = _array_jvp(self)
        self.runs_user_code = False  # a custom Function's record says True: its rules are user code
        from .node import Node
        self.node_class = type(_camel(name) + "Backward", (Node,), {"__slots__": ()})
        REGISTRY[name] = self

    def keeps_out(self, edges):
        """Whether a node with these input edges must keep `out` for its rules."""
        saves_out = self.saves_out
        if saves_out is True or saves_out is False:
            return saves_out
        return any(reads and edge is not None for reads, edge in zip(saves_out, edges))

    def reads_input(self, i, edges):
        """Whether a rule that runs for a node with these input edges reads input `i`."""
        saves = self.saves_inputs
        if saves == "others":
            return any(edge is not None for j, edge in enumerate(edges) if j != i)
        if isinstance(saves, tuple):
            return any(edges[j] is not None and i in reads for j, reads in enumerate(saves))
        return bool(saves)

    def pullback(self, out_bar, out, inputs, needs, params):
        """Cotangents of the inputs flagged in `needs` (None for the others)."""
        if self.vjp_all is not None:
            return self.vjp_all(out_bar, out, *inputs, **params)
        rules = self.vjp_rules
        return [rules[i](out_bar, out, *inputs, **params) if need else None
                for i, need in enumerate(needs)]

    def __repr__(self):
        return f"<primitive {self.name}>"


def _array_jvp(prim):
    """`prim.array_jvp` (see the module docstring)."""
    if prim.jvp is None:
        return None
    if prim.array_rules:
        return prim.jvp
    if prim.n_outputs != 1 or prim.view or getattr(prim, "effect", False) \
            or getattr(prim, "draws", False):
        return None
    impl = prim.impl
    if prim.linear == "all":
        def linear_jvp(tangents, out, *xs, **params):
            if len(xs) == 1:  # (its tangent is there: forward mode runs no rule without one)
                return impl(tangents[0], **params)
            return impl(*[_zero(x) if dot is None else dot for x, dot in zip(xs, tangents)],
                        **params)
        return linear_jvp
    if prim.linear == "each":
        def multilinear_jvp(tangents, out, *xs, **params):
            if len(xs) == 2:  # (the common case, unrolled)
                x_dot, y_dot = tangents
                if x_dot is None:
                    return None if y_dot is None else impl(xs[0], y_dot, **params)
                if y_dot is None:
                    return impl(x_dot, xs[1], **params)
                return impl(x_dot, xs[1], **params) + impl(xs[0], y_dot, **params)
            total = None
            for i, dot in enumerate(tangents):
                if dot is not None:
                    operands = list(xs)
                    operands[i] = dot
                    term = impl(*operands, **params)
                    total = term if total is None else total + term
            return total
        return multilinear_jvp
    return None


def _zero(x):
    """A zero tangent for the input `x` of a linear op (an array or a number)."""
    return np.zeros_like(x) if isinstance(x, np.ndarray) else type(x)()


def _camel(name):
    return "".join(part.capitalize() for part in re.split(r"[_\W]+", name) if part)
