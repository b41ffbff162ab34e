"""Equation order in generated code: independent neighbours swapped when that holds less memory.

`fewer_live_bytes(equations, inputs, outputs, fresh) -> equations` reorders the list (the
same Equation objects) by swapping two neighbouring equations A, B when B reads nothing A
makes and the most memory the pair holds at once is less in the order B, A. The memory an
equation's outputs take counts when it made them new (`fresh`: the first run found them
sharing no memory with its inputs); an input it reads for the last time then frees its bytes
when it is such a new array, neither an argument nor returned. So a backward pass that
computes a convolution's input gradient (a new array, read later) before its weight
gradient (whose reading frees the layer's saved input) computes the weight gradient first,
and the input gradient is not held during it.

Only pure equations move: no control flow, random draw (`draws`: their order is the order of
the numbers drawn), effect (a print) or user code; nor a ufunc equation (`buffers.writes_out`:
cheap in memory, and its neighbours are what `fusion` joins into one loop).
"""
from ..static.control_flow import ControlOp
from ..static.program import Variable
from . import buffers


def fewer_live_bytes(equations, inputs, outputs, fresh):
    """One pass (measured: more passes lower no benchmark step's peak and cost ~3 us per
    equation of compile time)."""
    equations = list(equations)
    held = {id(v) for v in inputs} | {id(o) for o in outputs if isinstance(o, Variable)}
    made = {id(eq): sum(_nbytes(o) for o in eq.outputs if id(o) in fresh)
            for eq in equations if _movable(eq)}  # (the equations that may move)
    facts = {}  # id(equation) -> its _Facts, worked out when first asked

    def facts_of(eq):
        known = facts.get(id(eq))
        if known is None:
            known = facts[id(eq)] = _Facts(eq, made[id(eq)], held, fresh)
        return known

    last_use = {}
    for n, eq in enumerate(equations):
        for x in eq.inputs:
            if isinstance(x, Variable):
                last_use[id(x)] = n
    n = 0
    while n + 1 < len(equations):
        made_a, made_b = made.get(id(equations[n])), made.get(id(equations[n + 1]))
        if made_a is None or made_b is None or not (made_a or made_b):
            n += 1
            continue
        a, b = facts_of(equations[n]), facts_of(equations[n + 1])
        if not (a.outputs & b.reads) and _peak(b, a, n, last_use) < _peak(a, b, n, last_use):
            equations[n], equations[n + 1] = equations[n + 1], equations[n]
            for x in a.reads:
                if last_use[x] == n:
                    last_use[x] = n + 1
            for x in b.reads - a.reads:
                if last_use[x] == n + 1:
                    last_use[x] = n
            n += 2
            continue
        n += 1
    return equations


class _Facts:
    """What the order of a movable equation depends on, worked out once: the ids of its
    outputs and of the Variables it reads, the bytes of the outputs it makes new, and the bytes of each Variable it reads that reading it for the last time frees (a new
    array, neither an argument nor returned; else 0)."""

    __slots__ = ("outputs", "reads", "made", "frees")

    def __init__(self, eq, made, held, fresh):
        self.outputs = {id(o) for o in eq.outputs}
        variables = {id(x): x for x in eq.inputs if isinstance(x, Variable)}
        self.reads = set(variables)
        self.made = made
        self.frees = {i: _nbytes(x) if i in fresh and i not in held else 0
                      for i, x in variables.items()}


def _movable(eq):
    prim = eq.prim
    return not isinstance(prim, ControlOp) and not buffers.writes_out(eq) and not (
        getattr(prim, "draws", False) or getattr(prim, "effect", False) or
        getattr(prim, "runs_user_code", False))


def _peak(first, second, n, last_use):
    """The most bytes, beyond what is held before, that `first` then `second` (now at
    positions n, n + 1 in some order) hold while they run: `first`'s new outputs, then
    those less the inputs only `first` read for the last time, plus `second`'s."""
    frees = sum(nbytes for i, nbytes in first.frees.items()
                if i not in second.reads and last_use.get(i, -1) <= n + 1)
    return max(first.made, first.made - frees + second.made)


def _nbytes(v):
    return getattr(getattr(v, "_data", None), "nbytes", 0)
