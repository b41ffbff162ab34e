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

# sweeps over the list: each swap lowers the pair's peak, so a few settle what one can
_SWEEPS = 4


def fewer_live_bytes(equations, inputs, outputs, fresh):
    equations = list(equations)
    held = {id(v) for v in inputs} | {id(o) for o in outputs if isinstance(o, Variable)}
    for _ in range(_SWEEPS):
        last_use = {}
        for n, eq in enumerate(equations):
            for x in eq.inputs:
                if isinstance(x, Variable):
                    last_use[id(x)] = n
        swapped = False
        n = 0
        while n + 1 < len(equations):
            a, b = equations[n], equations[n + 1]
            if _movable(a) and _movable(b) and _independent(a, b) and \
                    _peak(b, a, n, last_use, held, fresh) < _peak(a, b, n, last_use, held, fresh):
                equations[n], equations[n + 1] = b, a
                read_by_a = {id(x) for x in _variables(a)}
                for x in _variables(a):
                    if last_use[id(x)] == n:
                        last_use[id(x)] = n + 1
                for x in _variables(b):
                    if id(x) not in read_by_a and last_use[id(x)] == n + 1:
                        last_use[id(x)] = n
                swapped = True
                n += 2
                continue
            n += 1
        if not swapped:
            break
    return equations


def _movable(eq):
    prim = eq.prim
    return not isinstance(prim, ControlOp) and not buffers.writes_out(eq) and not (
        getattr(prim, "draws", False) or getattr(prim, "effect", False) or
        getattr(prim, "runs_user_code", False))


def _independent(a, b):
    made = {id(o) for o in a.outputs}
    return not any(isinstance(x, Variable) and id(x) in made for x in b.inputs)


def _variables(eq):
    return [x for x in eq.inputs if isinstance(x, Variable)]


def _peak(first, second, n, last_use, held, fresh):
    """The most bytes, beyond what is held before, that `first` then `second` (now at
    positions n, n + 1 in some order) hold while they run: `first`'s new outputs, then
    those less the inputs only `first` read for the last time, plus `second`'s."""
    second_reads = {id(x) for x in _variables(second)}
    frees_first = _bytes({id(x): x for x in _variables(first) if id(x) not in second_reads and
                          last_use.get(id(x), -1) <= n + 1 and _owned(x, held, fresh)})
    made_first, made_second = _made(first, fresh), _made(second, fresh)
    return max(made_first, made_first - frees_first + made_second)


def _owned(x, held, fresh):
    return id(x) in fresh and id(x) not in held


def _made(eq, fresh):
    return _bytes({id(o): o for o in eq.outputs if id(o) in fresh})


def _bytes(variables):
    total = 0
    for v in variables.values():
        data = getattr(v, "_data", None)
        total += getattr(data, "nbytes", 0)
    return total
