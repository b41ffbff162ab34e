"""The Executor: runs a Program on NumPy arrays; the Scope keeps persistable values.

`Executor().run(program=None, feed=None, fetch_list=None, return_numpy=True)`:
- runs only the equations the fetched Variables and the program's persistable
  `updates` need (a plan, cached per program version and fetch list), freeing each
  intermediate array after its last use;
- binds the unknown dims (`dims.Dim`) from the shapes of the fed arrays and checks
  every feed's shape and dtype against its Variable; when an unknown size is fed below 3,
  checks each result's shape against its Variable's dims under the sizes fed: the staging
  proves the types for sizes of 3 and more (`dims` probes), and an op such as `x[:3]` or
  `x.diagonal()` on a smaller size gives another shape: refused, never a result of the
  wrong shape; the results whose sizes were fitted to an unknown size (`dims.Size`: `x[1:]`)
  are checked so at every size;
- binds a size that depends on the data (`dims.Dim.produced`: `x[mask]`) from the shape of
  the first result that has it, and checks every later result's shape under it;
- refuses sizes for which a decision user code made from an unknown size while the program
  was built (`Program.size_conditions`, see `dims.Condition`) doesn't hold, before running
  anything (after the run, before any update, for one on a size bound from a result), and a
  program in which one line staged about a stand-in's count of equations (a Python loop over
  `range(x.shape[0])`);
- reads persistable Variables from the scope (`global_scope()` unless `scope=` is
  given) and writes the updates back only after every equation has run, so a run
  that fails changes nothing;
- returns a list with one NumPy array per fetched Variable (Tensors with
  `return_numpy=False`); a nested fetch list is flattened.
"""
from collections import Counter

import numpy as np

from .._core.tensor import Tensor
from . import dims as _dims
from .program import Program, Variable

_ndarray = np.ndarray
_asarray = np.asarray


class ScopeVariable:
    """What `Scope.find_var(name)` returns: `get_tensor()` is the stored array."""
    __slots__ = ("scope", "name")

    def __init__(self, scope, name):
        self.scope, self.name = scope, name

    def get_tensor(self):
        return self.scope.values[self.name]

    def set(self, value):
        self.scope.values[self.name] = np.asarray(value)


class Scope:
    """Persistable values by name (parameters, optimizer state)."""

    def __init__(self):
        self.values = {}

    def find_var(self, name):
        return ScopeVariable(self, name) if name in self.values else None

    def var(self, name):
        return ScopeVariable(self, name)

    def __contains__(self, name):
        return name in self.values


_global_scope = Scope()


def global_scope():
    return _global_scope


class _Plan:
    __slots__ = ("steps", "n_slots", "constants", "feeds", "states", "fetch_slots", "updates",
                 "symbols", "shapes", "fitted", "produced", "first_produced")

    def shapes_for(self, sizes):
        """Each step's output shapes under `sizes` (cached per binding)."""
        key = tuple(sorted(sizes.items()))
        shapes = self.shapes.get(key)
        if shapes is None:
            if len(self.shapes) >= 16:
                self.shapes.clear()
            shapes = self.shapes[key] = [
                tuple(tuple(_dims.bind_dim(d, sizes) for d in o.dims) for o in eq.outputs)
                for *_, eq in self.steps]
        return shapes


class Executor:
    """Runs programs (see the module docstring) on the CPU, the only `place` (None, a
    `CPUPlace` or 'cpu')."""

    def __init__(self, place=None):
        from ..places import check_place
        self.place = check_place(place, "Executor")
        self._plans = {}

    def run(self, program=None, feed=None, fetch_list=None, return_numpy=True, scope=None,
            **ignored):
        from .staging import programs
        if program is None:
            program = programs.main
        program = getattr(program, "_program", program)  # a CompiledProgram's
        seed = getattr(program, "random_seed", 0)
        if not seed:
            return self._run(program, feed, fetch_list, return_numpy, scope)
        from ..random import fork_rng, manual_seed
        with fork_rng():  # PaddlePaddle's fixed seed: the same draws at every run
            manual_seed(seed)
            return self._run(program, feed, fetch_list, return_numpy, scope)

    def _run(self, program, feed, fetch_list, return_numpy, scope):
        if not isinstance(program, Program):
            raise TypeError(f"Executor.run: program must be a fluxgrad.static.Program, got "
                            f"{type(program).__name__}")
        scope = _global_scope if scope is None else scope
        fetches = _flatten(fetch_list)
        plan = self._plan(program, fetches)
        env = list(plan.constants)
        sizes = self._bind_feeds(plan, program, feed or {}, env)
        unbound = [d for d in plan.symbols if d.sentinel not in sizes and not d.produced]
        if unbound:
            names = ", ".join(sorted(d.name for d in unbound))
            carriers = sorted({v.name for v in program.data for d in unbound if d in v.dims})
            raise RuntimeError(
                f"Executor.run: the fetched values have the unknown size {names}, which the "
                f"feed does not give: feed one of the data variables {carriers} as well")
        conditions = program.size_conditions
        if conditions:
            _check_conditions(conditions.values(), sizes, produced=False)
        for slot, var in plan.states:
            value = scope.values.get(var.name)
            if value is None:
                raise RuntimeError(
                    f"Executor.run: the persistable variable {var.name!r} ({var.type_str}) has no "
                    "value in the scope; run the startup program first: "
                    "exe.run(fluxgrad.static.default_startup_program())")
            env[slot] = value
        # the staging's probes prove the types for sizes from 3 up: smaller ones are checked,
        # and so are the sizes fitted to an unknown one (`dims.Size`) at every size
        small = bool(sizes) and min(sizes.values()) < 3
        expected = plan.shapes_for(sizes) if small or plan.fitted and sizes else None
        for n, (impl, args, params, outs, frees, eq) in enumerate(plan.steps):
            if params is None:
                params = _dims.bind(eq.params, sizes)
                values = [env[a] if type(a) is int else _dims.bind(a[0], sizes) for a in args]
            else:
                values = [env[a] if type(a) is int else a[0] for a in args]
            try:
                out = impl(*values, **params)
            except Exception as err:
                message = (f"{eq.prim.name} (staged at {eq.source}) failed while running the "
                           f"program: {err}")
                try:
                    new = type(err)(message)
                except Exception:
                    new = RuntimeError(message)
                raise new from err
            if len(outs) == 1 and eq.prim.n_outputs == 1:
                env[outs[0]] = out if type(out) is _ndarray else _asarray(out)
            else:
                for slot, o in zip(outs, out):
                    env[slot] = o if type(o) is _ndarray else _asarray(o)
            if n in plan.produced:
                for j, axis, d in plan.produced[n]:
                    sizes.setdefault(d.sentinel, env[outs[j]].shape[axis])
            if plan.produced and n >= plan.first_produced:
                # (sizes bound from results: the expected shapes are only known now)
                _check_shapes(eq, [env[slot] for slot in outs], tuple(
                    tuple(_dims.bind_dim(d, sizes) for d in o.dims) for o in eq.outputs), sizes)
            elif expected is not None and (small or n in plan.fitted):
                _check_shapes(eq, [env[slot] for slot in outs], expected[n], sizes)
            for slot in frees:
                env[slot] = None
        if conditions and plan.produced:
            _check_conditions(conditions.values(), sizes, produced=True)
        results = [env[s] for s in plan.fetch_slots]
        for name, slot in plan.updates:
            value = env[slot]
            scope.values[name] = value.copy() if not value.flags.owndata else value
        if not return_numpy:
            return [Tensor(r) for r in results]
        return results

    def _bind_feeds(self, plan, program, feed, env):
        sizes = {}
        for slot, var in plan.feeds:
            if var.name not in feed:
                raise KeyError(f"Executor.run: no value fed for the data variable {var.name!r} "
                               f"({var.type_str}); pass feed={{{var.name!r}: array}}")
            value = feed[var.name]
            if isinstance(value, Tensor):
                value = value._data
            if not isinstance(value, np.ndarray):
                value = np.asarray(value, dtype=var._data.dtype)
            if value.dtype != var._data.dtype:
                raise TypeError(f"Executor.run: the feed for {var.name!r} has dtype {value.dtype},"
                                f" the variable is {var.type_str}; convert it, e.g. "
                                f"x.astype('{var._data.dtype}')")
            if value.ndim != len(var.dims) or any(
                    not isinstance(d, _dims.Dim) and d != s for d, s in zip(var.dims, value.shape)):
                raise ValueError(f"Executor.run: the feed for {var.name!r} has shape "
                                 f"{list(value.shape)}, the variable is {var.type_str}")
            for d, s in zip(var.dims, value.shape):
                if isinstance(d, _dims.Dim):
                    if s in program.refused_sizes.get(d, ()):
                        raise ValueError(
                            f"Executor.run: the feed for {var.name!r} has size {s} on an axis "
                            f"of unknown size {d.name}, but the program was built assuming "
                            f"{d.name} is not {s} (an op such as squeeze chose what to stage "
                            "from the stand-in size); feed another size, or give static.data "
                            "the size")
                    bound = sizes.setdefault(d.sentinel, s)
                    if bound != s:
                        raise ValueError(
                            f"Executor.run: the feed for {var.name!r} has size {s} on an axis "
                            f"of unknown size {d.name}, another feed gave {d.name} = {bound}; "
                            "feeds sharing an unknown axis must agree")
            env[slot] = value
        for name in feed:
            if name not in program.vars:
                raise KeyError(f"Executor.run: feed names {name!r}, which is not a variable of "
                               f"the program (its data: {[v.name for v in program.data]})")
        if plan.symbols or program.size_conditions:  # (a size from a feed no fetch reads)
            fed = {id(var) for _, var in plan.feeds}
            for var in program.data:
                if id(var) not in fed and var.name in feed:
                    for d, s in zip(var.dims, np.shape(feed[var.name])):
                        if isinstance(d, _dims.Dim):
                            sizes.setdefault(d.sentinel, s)
        return sizes

    def _plan(self, program, fetches):
        key = (id(program), program.version, tuple(id(f) if isinstance(f, Variable) else f
                                                   for f in fetches))
        plan = self._plans.get(key)
        if plan is None:
            plan = self._plans[key] = _make_plan(program, fetches)
        return plan


def _check_shapes(eq, values, shapes, sizes):
    for v, value, shape in zip(eq.outputs, values, shapes):
        if value.shape != shape:
            bound = ", ".join(f"{_dims.BY_SENTINEL[s].name}={n}" for s, n in sizes.items())
            raise ValueError(
                f"Executor.run: {eq.prim.name} (staged at {eq.source}) gives shape "
                f"{list(value.shape)} for the sizes fed ({bound}), where the program was built "
                f"for {v.type_str} (a size below 3, or one a size of the op depends on, takes "
                "another path there); feed a larger size, or give static.data a known size")


def _check_conditions(conditions, sizes, produced):
    """Refuse sizes for which a decision user code made while building the program (a
    `dims.Condition`) doesn't hold; `produced`: only the ones on sizes bound from results."""
    for condition in conditions:
        if any(d.produced for d in condition.symbols) is not produced or \
                any(d.sentinel not in sizes for d in condition.symbols):
            continue  # (a size this run doesn't bind: no value fetched depends on it)
        if not condition.holds(sizes):
            bound = ", ".join(f"{d.name} = {sizes[d.sentinel]}" for d in
                              sorted(condition.symbols, key=lambda d: d.index))
            raise ValueError(
                f"Executor.run: the program holds only where {condition}: Python code at "
                f"{condition.source} compared the unknown size while the program was built and "
                f"took the path for {condition}, which the sizes of this run ({bound}) don't "
                "meet, so the program would give another path's numbers. Run it at sizes where "
                f"{condition}, give static.data a known size (a program per size), or make the "
                "choice inside the program with tensor ops (fluxgrad.where) or static.nn.cond")


def _refuse_unrolled_over_a_size(program, equations):
    """Refuse a program in which one line staged about k * N's stand-in equations (k <= 8): a
    Python loop over `range(x.shape[0])` (C code reads the size as a plain int, so no decision
    is seen) ran the stand-in's count of times, whatever size is fed. (A count that is a
    multiple of 10, or far from one of the program's stand-ins, is taken for a known one.)"""
    sentinels = {d.sentinel: d for v in program.data for d in v.dims if isinstance(d, _dims.Dim)}
    if not sentinels or len(equations) < min(sentinels) - 64:
        return
    for source, count in Counter(eq.source for eq in equations).items():
        if count < min(sentinels) - 64 or count % 10 == 0:
            continue
        for sentinel, d in sentinels.items():
            k = round(count / sentinel)
            if 1 <= k <= 8 and abs(count - k * sentinel) <= 64:
                raise ValueError(
                    f"Executor.run: the line {source} staged {count} equations, about {k} x "
                    f"{sentinel}, the stand-in of the unknown size {d.name}: a Python loop over "
                    "range(x.shape[0]) (which reads the size where fluxgrad can't see it) ran "
                    "the stand-in's count of times while the program was built, whatever size "
                    "is fed. Loop inside the program (static.nn.while_loop, or tensor ops over "
                    "the axis), or "
                    "give static.data a known size")


def _flatten(fetch_list):
    if fetch_list is None:
        return []
    if isinstance(fetch_list, (Variable, str)):
        return [fetch_list]
    out = []
    for f in fetch_list:
        out.extend(_flatten(f) if isinstance(f, (list, tuple)) else [f])
    return out


def _make_plan(program, fetches):
    targets = []
    for f in fetches:
        if isinstance(f, str):
            var = program.vars.get(f)
            if var is None:
                raise KeyError(f"Executor.run: fetch_list names {f!r}, which is not a variable "
                               "of the program")
            f = var
        while isinstance(f, Variable) and id(f) in program.aliases:
            f = program.aliases[id(f)]
        if isinstance(f, Tensor) and not isinstance(f, Variable):
            targets.append(f)  # a constant (a derivative that is known to be zero, say)
            continue
        if not isinstance(f, Variable):
            raise TypeError(f"Executor.run: fetch_list holds a {type(f).__name__}; fetch static "
                            "Variables (or their names)")
        if program.vars.get(f.name) is not f:
            raise ValueError(f"Executor.run: the fetched variable {f.name!r} ({f.type_str}) "
                             f"belongs to another program than the one run ({program!r})")
        targets.append(f)
    update_values = [(name, value) for name, (var, value) in program.updates.items()]
    needed = {id(t) for t in targets}
    needed.update(id(v) for _, v in update_values if isinstance(v, Variable))
    producers = {}
    for eq in program.equations:
        for o in eq.outputs:
            producers[id(o)] = eq
    producer_of = {}  # a data-dependent size -> the output whose shape binds it
    for eq in program.equations:
        for o in eq.outputs:
            for d in o.dims:
                if isinstance(d, _dims.Dim) and d.produced:
                    producer_of.setdefault(d, o)
    steps_eqs = []
    for eq in reversed(program.equations):
        if any(id(o) in needed for o in eq.outputs):
            steps_eqs.append(eq)
            needed.update(id(x) for x in eq.inputs if isinstance(x, Variable))
            if eq.symbolic and producer_of:  # (a size its params read must be bound first)
                needed.update(id(producer_of[d]) for d in _dims.symbols_in((eq.params, [
                    x for x in eq.inputs if not isinstance(x, Tensor)])) if d in producer_of)
    steps_eqs.reverse()
    _refuse_unrolled_over_a_size(program, steps_eqs)
    slots = {}
    constants = []

    def slot_of(x):
        s = slots.get(id(x))
        if s is None:
            s = slots[id(x)] = len(constants)
            constants.append(None)
        return s
    plan = _Plan()
    plan.feeds, plan.states = [], []
    for v in program.vars.values():
        if id(v) in needed and id(v) not in producers:
            if v.is_data:
                plan.feeds.append((slot_of(v), v))
            elif v.persistable:
                plan.states.append((slot_of(v), v))
            else:
                raise RuntimeError(f"Executor.run: {v.name!r} ({v.type_str}) is needed but no "
                                   "equation of the program computes it")
    last_use = {}
    for n, eq in enumerate(steps_eqs):
        for x in eq.inputs:
            if isinstance(x, Variable):
                last_use[id(x)] = n
    keep = {id(t) for t in targets} | {id(v) for _, v in update_values if isinstance(v, Variable)}
    steps = []
    for n, eq in enumerate(steps_eqs):
        args = []
        for x in eq.inputs:
            if isinstance(x, Variable):
                if id(x) not in slots and id(x) not in producers:
                    raise RuntimeError(f"Executor.run: {x.name!r} is read before it is defined")
                args.append(slot_of(x))
            else:
                args.append((x._data if isinstance(x, Tensor) else x,))
        outs = tuple(slot_of(o) for o in eq.outputs)
        frees = tuple(slots[id(x)] for x in {id(x): x for x in eq.inputs
                                             if isinstance(x, Variable)}.values()
                      if last_use.get(id(x)) == n and id(x) not in keep and id(x) in producers)
        frees += tuple(slots[id(o)] for o in eq.outputs
                       if id(o) not in last_use and id(o) not in keep)
        steps.append((eq.prim.impl, tuple(args), None if eq.symbolic else eq.params, outs, frees,
                      eq))
    plan.steps = steps
    plan.shapes = {}
    plan.fitted = frozenset(n for n, eq in enumerate(steps_eqs)
                            if any(_dims.sizes_in(o.dims) for o in eq.outputs))
    plan.produced = {}
    bound = set()
    for n, eq in enumerate(steps_eqs):
        for j, o in enumerate(eq.outputs):
            for axis, d in enumerate(o.dims):
                if isinstance(d, _dims.Dim) and d.produced and d not in bound:
                    bound.add(d)
                    plan.produced.setdefault(n, []).append((j, axis, d))
    plan.first_produced = min(plan.produced, default=None)
    plan.symbols = set()
    for eq in steps_eqs:
        if eq.symbolic:
            plan.symbols.update(_dims.symbols_in((eq.params, [
                x for x in eq.inputs if not isinstance(x, Tensor)])))
            for v in eq.outputs:
                plan.symbols.update(_dims.symbols_in(v.dims))
    plan.fetch_slots = []
    for t in targets:
        if isinstance(t, Variable):
            plan.fetch_slots.append(slot_of(t))
        else:
            plan.fetch_slots.append(len(constants))
            constants.append(t._data)
    plan.updates = []
    for name, value in update_values:
        if isinstance(value, Variable):
            plan.updates.append((name, slot_of(value)))
        else:
            plan.updates.append((name, len(constants)))
            constants.append(np.asarray(value._data if isinstance(value, Tensor) else value))
    plan.constants = constants
    return plan


def evaluate(program, env, outputs):
    """The values of `outputs` of a sub-program, given `env` (id of each argument and capture
    -> its array); runs only the equations the outputs need. Used by control flow."""
    key = (program.version, tuple(id(o) for o in outputs))
    cache = program.__dict__.setdefault("_eval_plans", {})
    steps = cache.get(key)
    if steps is None:
        needed = {id(o) for o in outputs}
        steps = []
        for eq in reversed(program.equations):
            if any(id(o) in needed for o in eq.outputs):
                if eq.symbolic:
                    raise NotImplementedError(
                        f"{eq.prim.name} (staged at {eq.source}) inside control flow uses a size "
                        "known only at run time; give the data a known size")
                steps.append(eq)
                needed.update(id(x) for x in eq.inputs if isinstance(x, Variable))
        steps.reverse()
        cache[key] = steps
    env = dict(env)
    for eq in steps:
        args = [env[id(x)] if isinstance(x, Variable) else
                (x._data if isinstance(x, Tensor) else x) for x in eq.inputs]
        out = eq.prim.impl(*args, **eq.params)
        if eq.prim.n_outputs == 1:
            env[id(eq.outputs[0])] = out if type(out) is _ndarray else _asarray(out)
        else:
            for o, value in zip(eq.outputs, out):
                env[id(o)] = value if type(value) is _ndarray else _asarray(value)
    result = []
    for o in outputs:
        if isinstance(o, Variable):
            result.append(env[id(o)])
        else:
            result.append(np.asarray(o._data if isinstance(o, Tensor) else o))
    return result
