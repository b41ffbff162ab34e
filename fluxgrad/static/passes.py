"""Passes on programs: each is `pass_(program, outputs=()) -> Program`, a new Program sharing
the Variables, followed by a well-formedness check (`check=False` leaves it to the caller:
`optimize` checks once, after its last pass).

- `dce`: drop equations that neither `outputs` nor the persistable updates need (and have a
  loop keep no trajectory, `prim.trajectory`, that nothing reads);
- `cse`: one equation for each (primitive, inputs, params) computed twice;
- `fold`: run equations whose inputs are all known now (a `full_like` of a known shape, an
  op of constants) and use their values as constants;
  random draws (`prim.draws`) are effects: never folded nor merged, and kept by `dce`; so is
  a print (`prim.effect`: `static.Print`), except that `dce` drops it when its result is unused;
- `simplify`: the zeros and ones that linearize and transpose leave: an op that is linear
  in an input that is zero gives zeros (`Primitive.linear` says which ops), `x * 1`, `x / 1`,
  `x + 0`, `x - 0` and `alias(x)` give x;
- `optimize`: all of them, again while `simplify` makes constants.

A Variable that a pass replaces (by another Variable or a constant) stays fetchable: the new
program's `aliases` maps it to its replacement, and the Executor follows that map.
"""
import numpy as np

from .._core.tensor import Tensor
from .dims import has_symbol
from .program import Equation, Variable

__all__ = ["dce", "cse", "fold", "simplify", "optimize"]


def _rebuild(program, equations, replaced=None, check=True):
    new = program.clone()
    if replaced:
        for key, value in replaced.items():
            new.aliases[key] = value
        for key, alias in list(new.aliases.items()):
            while isinstance(alias, Variable) and id(alias) in replaced:
                alias = replaced[id(alias)]
            new.aliases[key] = alias
        new.updates = {k: (var, _resolve(value, replaced))
                       for k, (var, value) in program.updates.items()}
    new.replace_equations(equations, check)
    return new


def _resolve(x, replaced):
    while isinstance(x, Variable) and id(x) in replaced:
        x = replaced[id(x)]
    return x


def _rewrite_inputs(eq, replaced):
    if not replaced or replaced.keys().isdisjoint(map(id, eq.inputs)):
        return eq
    return Equation(eq.prim, [_resolve(x, replaced) for x in eq.inputs], eq.outputs, eq.params,
                    eq.source, eq.symbolic)


def dce(program, outputs=(), check=True):
    """Only the equations `outputs` and the updates need."""
    needed = {id(o) for o in outputs}
    needed.update(id(v) for _, v in program.updates.values() if isinstance(v, Variable))
    needed.update(id(_resolve_alias(program, o)) for o in outputs)
    kept = []
    for eq in reversed(program.equations):
        # a random draw is kept even when unused: dropping it would shift the numbers every
        # later draw gets from the generator
        if not needed.isdisjoint(map(id, eq.outputs)) or getattr(eq.prim, "draws", False):
            if getattr(eq.prim, "trajectory", False) and id(eq.outputs[-1]) not in needed \
                    and eq.params.get("keep", True):
                eq = Equation(eq.prim, eq.inputs, eq.outputs, dict(eq.params, keep=False),
                              eq.source, eq.symbolic)
            kept.append(eq)
            needed.update(map(id, eq.inputs))  # (a constant's id names no Variable)
    kept.reverse()
    return _rebuild(program, kept, check=check)


def _resolve_alias(program, v):
    return program.aliases.get(id(v), v)


def _key(x):
    if isinstance(x, Variable):
        return ("v", id(x))
    if isinstance(x, Tensor):
        x = x._data
    if isinstance(x, np.ndarray):
        return ("a", x.dtype.str, x.shape, x.tobytes()) if x.size <= 64 else ("id", id(x))
    return ("s", type(x).__name__, repr(x))


def cse(program, outputs=(), check=True):
    """Equations that repeat an earlier one (same primitive, inputs and params) are dropped;
    their outputs are the earlier one's."""
    seen, replaced, kept = {}, {}, []
    for eq in program.equations:
        eq = _rewrite_inputs(eq, replaced)
        if getattr(eq.prim, "draws", False) or getattr(eq.prim, "effect", False):
            # two draws are two different samples; two prints print twice
            kept.append(eq)
            continue
        try:
            # full_like reads only its input's shape
            inputs = (("shape", eq.inputs[0].dims),) if eq.prim.name == "full_like" else \
                tuple(map(_key, eq.inputs))
            key = (eq.prim.name, inputs, repr(sorted(
                eq.params.items(), key=lambda kv: kv[0])) if eq.params else "")
        except Exception:
            key = None
        first = seen.get(key) if key is not None else None
        if first is not None:
            for o, p in zip(eq.outputs, first.outputs):
                replaced[id(o)] = p
            continue
        if key is not None:
            seen[key] = eq
        kept.append(eq)
    return _rebuild(program, kept, replaced, check)


def _known_value(x, constants):
    if isinstance(x, Variable):
        return constants.get(id(x))
    if isinstance(x, Tensor):
        return x._data
    return x


def _static_shape(v):
    """Whether a Variable's (or a constant Tensor's) shape is known now."""
    return not isinstance(v, Variable) or not has_symbol(v._data.shape)


def fold(program, outputs=(), check=True):
    """Equations whose inputs are known now are computed now (also `full_like` of a known
    shape: its output depends on the shape only)."""
    constants, replaced, kept = {}, {}, []
    for eq in program.equations:
        eq = _rewrite_inputs(eq, replaced)
        shape_only = eq.prim.name == "full_like" and _static_shape(eq.inputs[0])
        # drawn (printed) at every run, never now
        draws = getattr(eq.prim, "draws", False) or getattr(eq.prim, "effect", False)
        if draws or (not shape_only and (eq.symbolic or any(
                isinstance(x, Variable) and id(x) not in constants for x in eq.inputs))):
            kept.append(eq)
            continue
        known = [_known_value(x, constants) for x in eq.inputs]
        args = [np.zeros(x._data.shape, x._data.dtype) if shape_only and i == 0 else k
                for i, (k, x) in enumerate(zip(known, eq.inputs))]
        out = eq.prim.impl(*args, **eq.params)
        outs = (out,) if eq.prim.n_outputs == 1 else tuple(out)
        for o, value in zip(eq.outputs, outs):
            value = np.asarray(value)
            constants[id(o)] = value
            replaced[id(o)] = Tensor(value)
    return _rebuild(program, kept, replaced, check)


def _equals(x, value):
    """Whether `x` is known now and equals `value` everywhere (a Variable is not known)."""
    if type(x) is float or type(x) is int or type(x) is bool:
        return x == value
    if isinstance(x, Variable):
        return False
    if isinstance(x, Tensor):
        x = x._data
    try:
        return bool(np.all(np.asarray(x) == value))
    except Exception:
        return False


def simplify(program, outputs=(), check=True):
    """Remove the arithmetic with zeros and ones that derivatives leave behind."""
    replaced, kept = {}, []
    for eq in program.equations:
        eq = _rewrite_inputs(eq, replaced)
        out = eq.outputs[0]
        new = _simplified(eq) if eq.prim.n_outputs == 1 else None
        if new is not None:
            replaced[id(out)] = new
            continue
        kept.append(eq)
    return _rebuild(program, kept, replaced, check)


def _simplified(eq):
    out, xs, linear = eq.outputs[0], eq.inputs, eq.prim.linear
    if eq.prim.name == "alias":  # the identity (func transforms alias their inputs)
        return xs[0]
    if all(isinstance(x, Variable) for x in xs):  # zeros and ones are constants
        return None
    if linear is not None and _static_shape(out) and not eq.params.get("value"):
        positions = range(len(xs)) if linear in ("all", "each") else linear
        zeros = [_equals(xs[i], 0) for i in positions if i < len(xs)]
        # jointly linear: zero when all its linear inputs are; multilinear: when any is
        if zeros and (any(zeros) if linear == "each" else all(zeros)):
            return Tensor(np.zeros(out._data.shape, out._data.dtype))
    name = eq.prim.name
    if name in ("add", "sub", "mul", "div") and len(xs) == 2:
        x, y = xs
        if name in ("add", "sub") and _equals(y, 0) and _same_type(x, out):
            return x
        if name == "add" and _equals(x, 0) and _same_type(y, out):
            return y
        if name in ("mul", "div") and _equals(y, 1) and _same_type(x, out):
            return x
        if name == "mul" and _equals(x, 1) and _same_type(y, out):
            return y
    return None


def _same_type(x, out):
    return isinstance(x, Tensor) and x._data.shape == out._data.shape and \
        x._data.dtype == out._data.dtype


def optimize(program, outputs=()):
    """fold, simplify, cse and dce; again while simplify replaces a value by a constant (the
    zeros it leaves can make more equations foldable; nothing else any pass does makes work
    for an earlier one)."""
    while True:
        before = fold(program, outputs, check=False)
        program = simplify(before, outputs, check=False)
        again = _made_constants(before, program)
        program = dce(cse(program, outputs, check=False), outputs, check=False)
        if not again:
            return program.check()


def _made_constants(before, after):
    defined = {id(o) for eq in after.equations for o in eq.outputs}
    return any(not isinstance(after.aliases.get(id(o), o), Variable)
               for eq in before.equations for o in eq.outputs if id(o) not in defined)
