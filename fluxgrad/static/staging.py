"""Staging: `apply` on static Variables appends an Equation instead of computing.

`stage(prim, inputs, params)` is what the eager dispatch calls while static mode is
armed, as its innermost level: vmap's batching rules and forward mode's JVP rules have
already run (on BatchedTensors and dual tensors), and what reaches `stage` are the ops
they issue on the underlying Variables (a BatchedTensor of a Variable reaching it was kept
past its vmap: refused). With no Variable among the inputs it returns NotImplemented (eager
mode computes; in static mode such a value is a constant of the program) unless
`constants` is set (vmap repeating a constant over a batch of unknown size), or the op is a
random draw (`prim.draws`), an effect (`prim.effect`: a print) or its params hold an unknown
size (`zeros(x.shape[0], 3)`) while a program is built (static mode on, or
`programs.tracing` for fluxgrad.compile): that is staged, so that every run draws (prints),
or makes the size fed. An op staged under no_grad (static mode, not a compile trace, which
does it itself) is followed by `stop_gradient`, as eager mode records no graph there.
Otherwise the output
Variables' shapes and dtypes come from abstract evaluation: the primitive's own `impl` run
on small zero arrays (twice, under two bindings of the unknown dims, when there are any:
see `dims`), or its `abstract` rule (control flow, random draws); a program remembers the
types found for known sizes (`Program.abstract_types`, keyed by `_types_key`), so an op
staged again on the same input types, scalars and params does not run its impl again. An op
that fails there raises at build time, naming the op, the input types and the user's line.
An op whose result's size depends on the values of its inputs (`DATA_DEPENDENT`: x[mask],
masked_select) gets a fresh `produced` Dim for that size (see `dims`); an op that puts values
of such a size into the entries a mask selects (`SCATTERS_BY_MASK`: the VJP of x[mask],
`x[mask] = y[mask]`) takes its result's type from its inputs, since stand-ins can't run it.

The programs equations go to: `current()` (the `program_guard` one, else the default
main program); `guard(program)` switches temporarily (transforms use it to stage
into the program they transform). The sizes an op assumes (`dims.assume_not`) and the
decisions user code makes from unknown sizes (`dims.decide`) go to the program being built:
the enclosing one of a branch's or loop body's sub-program, which the Executor checks.
"""
import contextlib

import numpy as np

from .._core import dtypes
from .._core.batching import BatchedTensor, layers
from .._core.errors import IntegerDivisionByZero
from .._core.grad_mode import state as _grad_state
from .._core.static_mode import state
from .._core.tensor import Tensor
from ..ops.linalg_errors import LinAlgError
from . import dims as _dims
from .program import Equation, Program, Variable, user_line

_ndarray = np.ndarray


class _Programs:
    main = Program()
    startup = Program()
    tracing = False  # fluxgrad.compile is tracing a function into `main`


programs = _Programs()


def _root():
    """The program being built (a branch's or loop body's is its enclosing program's)."""
    program = programs.main
    while program.parent is not None:
        program = program.parent
    return program


_dims.refuse_sizes = lambda dim, sizes: _root().refuse_sizes(dim, sizes)
_dims.decide = lambda condition: _root().add_condition(condition)


def current():
    return programs.main


@contextlib.contextmanager
def guard(main, startup=None):
    old = programs.main, programs.startup
    programs.main = main
    if startup is not None:
        programs.startup = startup
    try:
        yield
    finally:
        programs.main, programs.startup = old


def stage(prim, inputs, params, constants=False):
    program = programs.main if constants else None
    scalars = False
    for x in inputs:
        if isinstance(x, Variable):
            program = programs.main
        elif not isinstance(x, Tensor):
            scalars = True
        elif type(x) is BatchedTensor and isinstance(layers(x)[1], Variable):
            raise RuntimeError(
                f"{prim.name}: a batched Variable ({x!r}) is used after its vmap returned; "
                "return it from the vmapped function instead of keeping it elsewhere. "
                f"At {user_line()}")
    if program is None:
        # a random draw is staged whenever a program is being built, inputs or not: its
        # numbers must be drawn at every run, not once now
        if not ((state.enabled or programs.tracing) and (
                getattr(prim, "draws", False) or getattr(prim, "effect", False) or
                _dims.mentions_symbol(params))):
            return NotImplemented
        program = programs.main
    for x in inputs:
        if isinstance(x, Variable) and x.program is not program:
            if program.parent is not None and program.vars.get(x.name) is not x:
                program.capture(x, prim.name)
            elif x.persistable:
                program.adopt(x)
            elif program.vars.get(x.name) is not x:
                raise ValueError(
                    f"{prim.name}: the Variable {x.name!r} ({x.type_str}) belongs to another "
                    f"program than the one being built ({program!r}); build it under the same "
                    "program_guard, or feed it as data")
    sized = _dims.mentions_symbol(params)
    consumer = SCATTERS_BY_MASK.get(prim.name)
    if consumer is not None and _selects_by_mask(inputs, params) and any(
            _dims.produced_in(x.dims) for x in inputs if isinstance(x, Variable)):
        out_types = consumer(*inputs, **params)
    else:
        out_types = infer(prim, inputs, params, sized, program.abstract_types)
    data_dependent = DATA_DEPENDENT.get(prim.name)
    if data_dependent is not None:
        sizing = data_dependent[0](inputs, params)
        if sizing and programs.tracing:
            raise NotImplementedError(
                f"{prim.name}: the size of its result depends on the values of "
                f"{_describe(sizing, {})}, which a function traced by fluxgrad.compile can't "
                f"hold; it runs eagerly (a static program can: fluxgrad.static). At {user_line()}")
        if sizing:
            out_types = _produced_types(prim, inputs, params, sizing, data_dependent[1],
                                        out_types, program)
    outs = tuple([program.new_var(d, dt) for d, dt in out_types])
    symbolic = sized or scalars and any(
        (type(x) in (int, _dims.SymInt) or isinstance(x, (np.integer, _dims.Derived)))
        and _dims.mentions_symbol(x) for x in inputs)
    program.append(Equation(prim, inputs, outs, params, user_line(), symbolic))
    out = outs[0] if prim.n_outputs == 1 else outs
    if not _grad_state.enabled and not programs.tracing and prim.differentiable:
        # built under no_grad: as eager mode records no graph there, no gradient flows back
        # through it (fluxgrad.compile's trace does the same itself)
        from ._ops import stop_gradient
        return stop_gradient(out) if prim.n_outputs == 1 else tuple(map(stop_gradient, out))
    return out


def _selects_by_mask(inputs, params):
    """index (x[mask], masked_select): whether a boolean index is a value of the program."""
    return any(isinstance(a, Variable) and a._data.dtype == np.bool_ for a in inputs[1:])


# the ops whose result's size depends on the values of their inputs: the inputs whose values
# set it (none: it doesn't), and the fills of stand-ins on which that size differs
_MASKS = ("zeros", "ones")
_DISTINCT = ("zeros", "arange")
DATA_DEPENDENT = {
    "index": (lambda inputs, params: _selects_by_mask(inputs, params) and inputs[1:], _MASKS),
    "nonzero": (lambda inputs, params: inputs, _MASKS),
    "unique": (lambda inputs, params: inputs, _DISTINCT),
    "unique_consecutive": (lambda inputs, params: inputs, _DISTINCT)}
# the ops that put values into the entries a mask selects, by the type of their result where the
# values have a size that depends on the data: stand-ins can't run them (a mask of zeros
# selects no entries), and their result's shape is the mask's (the Executor checks it)
SCATTERS_BY_MASK = {
    "index_scatter": lambda out_bar, *arrays, index, shape: [
        (_dims.dims_of(shape), out_bar._data.dtype)],
    "index_put": lambda x, value, *arrays, index, accumulate: [(x.dims, x._data.dtype)]}


def _produced_types(prim, inputs, params, sizing, fills, out_types, program):
    """`out_types` with each size that depends on the values of the inputs `sizing` (found where
    the result's shape differs between stand-ins filled as `fills` say) a `dims.Dim` of its own
    (`produced`), which the Executor binds from the result. The same op on inputs `sizing`
    computed alike (its JVP, a VJP taking the same entries) has the same Dim."""
    producers = {}
    while True:  # (a branch's sizes are the whole program's; its masks are computed in it)
        producers.update((id(o), eq) for eq in program.equations for o in eq.outputs)
        if program.parent is None:
            break
        program = program.parent
    key = (prim.name, tuple(_computed_from(x, producers) for x in sizing),
           tuple(x.dims for x in inputs if isinstance(x, Variable)), repr(params))
    known = program.produced_dims.get(key)
    if known is None:
        binding = {d.sentinel: d.probes[0] for d in _dims.ALL_SYMBOLS}
        runs = [_probe(prim, inputs, params, binding, fill) for fill in fills]
        known = []
        taken = {d for axes in program.produced_dims.values() for _, _, d in axes}
        by_sizes = {}  # (unique's values and counts: sizes that agree on every fill are one)
        for j, outs in enumerate(zip(*runs)):
            for axis, sizes in enumerate(zip(*(o.shape for o in outs))):
                if len(set(sizes)) > 1:
                    d = by_sizes.get(sizes)
                    if d is None:
                        d = by_sizes[sizes] = _dims.produced_dim(taken, prim.name)
                        taken.add(d)
                    known.append((j, axis, d))
        program.produced_dims[key] = known
    types = [list(dims) for dims, _ in out_types]
    for j, axis, d in known:
        types[j][axis] = d
    return [(tuple(dims), dt) for dims, (_, dt) in zip(types, out_types)]


def _computed_from(x, producers, depth=0):
    """What the value of `x` is computed from, as a key (masks computed alike are equal: `x > 0`
    written twice): the Variable or constant itself for data, parameters, random draws,
    constants and what lies more than 32 equations back."""
    if not isinstance(x, Variable):
        return id(x) if isinstance(x, Tensor) else repr(x)  # (a constant: the equation keeps it)
    eq = producers.get(id(x))
    if eq is None or depth > 32 or getattr(eq.prim, "draws", False) or \
            getattr(eq.prim, "effect", False):
        return id(x)
    position = next(k for k, o in enumerate(eq.outputs) if o is x)  # (== would stage `equal`)
    return (eq.prim.name, position, repr(eq.params),
            tuple(_computed_from(i, producers, depth + 1) for i in eq.inputs))


def infer(prim, inputs, params, sized=None, seen=None):
    """[(dims, dtype)] of the outputs, by running `impl` on small stand-ins (or by the op's
    own `abstract` rule: control flow, whose impl runs sub-programs). `sized`: whether the
    params hold a size an unknown dim entered (None: find out). `seen` (a dict) remembers the
    types for inputs of known sizes (see `_types_key`): an op staged again on the same types
    does not run its impl again."""
    abstract = getattr(prim, "abstract", None)
    if abstract is not None:
        return abstract(inputs, params)
    if sized is None:
        sized = _dims.mentions_symbol(params)
    key = _types_key(prim, inputs, params) if seen is not None and not sized else None
    if key is not None:
        types = seen.get(key)
        if types is None:
            types = seen[key] = [(out.shape, out.dtype)
                                 for out in _probe(prim, inputs, params, {})]
        return types
    if not sized and not any(_dims.has_symbol(x._data.shape) for x in inputs
                             if isinstance(x, Variable)):
        return [(out.shape, out.dtype) for out in _probe(prim, inputs, params, {})]
    lost = _dims.lost_size((params, [x for x in inputs if not isinstance(x, Tensor)]))
    if lost is not None and _dims.recorder is None:
        raise ValueError(
            f"{prim.name}: the number {lost} ({_describe(inputs, params)}) looks computed from "
            f"an unknown size, but as a plain int, which the program can't recompute for the "
            f"size fed; keep the size as `x.shape[0] - 1` (no int() or operator.index on it). "
            f"At {user_line()}")
    results = [_probe(prim, inputs, params, {d.sentinel: d.probes[k] for d in _dims.ALL_SYMBOLS})
               for k in (0, 1)]
    first = results[0]
    types = []
    samples = {}
    involved = None
    for j, out in enumerate(first):
        other = results[1][j]
        dims = []
        for axis, (a, b) in enumerate(zip(out.shape, other.shape)):
            sym = _dims.size_from_probes(a, b)
            if sym is not None and a != b:
                if involved is None:
                    involved = _dims.symbols_in((params, [
                        x.dims if isinstance(x, Variable) else x for x in inputs
                        if not isinstance(x, Tensor) or isinstance(x, Variable)]))
                if not _dims.symbols_in(sym) <= involved:
                    sym = None  # another dim's probes by coincidence (N0 - 1 when N0*N1 is)
            if sym is None:
                sym = _fitted(prim, inputs, params, j, axis, (a, b), samples)
            if sym is None:
                raise ValueError(
                    f"{prim.name}: an output size is computed from an unknown dimension "
                    f"({_describe(inputs, params)}) in a way a program can't stage (only "
                    f"max(0, (a*N + b) // q) of one unknown size N); give static.data a "
                    f"known size. At {user_line()}")
            dims.append(sym)
        types.append((tuple(dims), out.dtype))
    return types


def _fitted(prim, inputs, params, j, axis, probed, samples):
    """The Size of axis `axis` of output `j`, whose sizes under the two probe bindings were
    `probed`: a multiple of a Size of an input (times a Dim, maybe) with those sizes (the
    common case: an op that keeps it, flattens it), else
    one fitted from runs of the op at many sizes of each unknown dim involved (`samples`
    keeps them across the outputs). None where none fits, and while fluxgrad.compile traces
    (its programs re-bind multiples of sizes only)."""
    if _dims.recorder is not None:
        return None
    involved = _dims.symbols_in(params) | _dims.symbols_in(
        [x for x in inputs if not isinstance(x, Tensor)])
    sizes = dict.fromkeys(_dims.sizes_in((params, [
        x._data.shape if isinstance(x, Variable) else x for x in inputs
        if not isinstance(x, Tensor) or isinstance(x, Variable)])))
    for x in inputs:
        if isinstance(x, Variable):
            involved |= _dims.symbols_in(x.dims)
    known = _dims.size_from_units(probed, sizes, involved)
    if known is not None:
        return known
    found = None
    for d in sorted(involved, key=lambda d: d.index):
        observed = samples.get(d)
        if observed is None:
            observed = samples[d] = {}
            base = {e.sentinel: e.probes[0] for e in _dims.ALL_SYMBOLS}
            for n in _dims.FIT_SIZES:
                try:
                    observed[n] = [o.shape for o in
                                   _probe(prim, inputs, params, {**base, d.sentinel: n})]
                except Exception:
                    continue  # the op refuses that size: so will it at run time
        sizes = {n: shapes[j][axis] for n, shapes in observed.items()
                 if j < len(shapes) and axis < len(shapes[j])}
        if len(set(sizes.values())) <= 1:
            continue  # the size doesn't depend on d
        if found is not None:
            return None  # on two unknown sizes
        found = _dims.fit(d, sizes)
        if found is None:
            return None
    return found


class _Unkeyed(Exception):
    """An input or param whose value the key of `seen` can't stand for."""


def _types_key(prim, inputs, params):
    """What the output types of `prim` can depend on, as a dict key: each Variable's shape
    and dtype (its stand-in holds zeros), each constant's value (small ones only), each
    scalar's type and value, and the params (with the types of their values: `1`, `1.0` and
    `True` differ); None when something can't be keyed (an unknown size, a large constant,
    an unhashable or unknown kind of value, a SymInt: its uses in Python must be seen by
    every trace)."""
    try:
        return (prim, tuple(map(_input_key, inputs)),
                tuple([(k, _value_key(v)) for k, v in params.items()]) if params else ())
    except _Unkeyed:
        return None


def _input_key(x):
    if isinstance(x, Tensor):
        data = x._data
        if isinstance(x, Variable):
            shape = data.shape
            if _dims.has_symbol(shape):  # an unknown size
                raise _Unkeyed
            return shape, data.dtype
        if data.size > 64 or data.dtype.hasobject:
            raise _Unkeyed
        return data.shape, data.dtype, data.tobytes()
    return _value_key(x)


_EXACT = frozenset({int, float, bool, complex, str, type(None), type(Ellipsis), dtypes.DType,
                    np.float16, np.float32, np.float64, np.int8, np.int16, np.int32,
                    np.int64, np.uint8, np.bool_, np.complex64, np.complex128})


def _value_key(v):
    t = type(v)
    if t in _EXACT:
        return t, v
    if isinstance(v, np.dtype):
        return np.dtype, v
    if t is tuple or t is list:
        return (t, *map(_value_key, v))
    if t is slice:
        return t, _value_key(v.start), _value_key(v.stop), _value_key(v.step)
    raise _Unkeyed


def _probe(prim, inputs, params, sizes, fill="zeros"):
    arrays = [_stand_in(x, sizes, fill) for x in inputs]
    bound = _dims.bind(params, sizes) if sizes else params
    try:
        with np.errstate(all="ignore"):
            try:
                out = prim.impl(*arrays, **bound)
            except (np.linalg.LinAlgError, LinAlgError):
                out = prim.impl(*[_stand_in(x, sizes, "eye") for x in inputs], **bound)
            except IntegerDivisionByZero:  # zeros stood in for a divisor: ones won't
                out = prim.impl(*[_stand_in(x, sizes, "ones") for x in inputs], **bound)
    except Exception as err:
        hint = ("; it fails for other values of the unknown sizes (the op fits an unknown size "
                "to a known one, say): give static.data the size this op needs"
                if sizes else "")
        message = (f"{prim.name}: {err} (while building the static program: "
                   f"{_describe(inputs, params)}{hint}). At {user_line()}")
        try:
            new = type(err)(message)
        except Exception:
            new = ValueError(message)
        raise new from err
    if prim.n_outputs == 1:
        return [out if type(out) is _ndarray else np.asarray(out)]
    return [o if type(o) is _ndarray else np.asarray(o) for o in out]


def _stand_in(x, sizes, fill):
    if isinstance(x, Variable):
        shape = tuple(_dims.rebind_int(s, sizes) for s in x._data.shape) if sizes else \
            x._data.shape
        if fill == "eye" and len(shape) >= 2 and shape[-1] == shape[-2]:
            return np.broadcast_to(np.eye(shape[-1], dtype=x._data.dtype), shape).copy()
        if fill == "arange":
            return (np.arange(int(np.prod(shape))) % (2 if x._data.dtype == np.bool_ else 1 << 62)
                    ).astype(x._data.dtype).reshape(shape)
        return np.zeros(shape, x._data.dtype) if fill == "zeros" else np.ones(shape, x._data.dtype)
    if isinstance(x, Tensor):
        return x._data
    return _dims.bind(x, sizes) if sizes else x


def _describe(inputs, params):
    parts = []
    for x in inputs:
        if isinstance(x, Variable):
            parts.append(f"{x.name}:{x.type_str}")
        elif isinstance(x, Tensor):
            parts.append(f"const {x._data.dtype}{list(x._data.shape)}")
        else:
            parts.append(repr(x))
    text = "inputs " + ", ".join(parts)
    if params:
        text += "; params " + ", ".join(f"{k}={v!r}" for k, v in params.items())
    return text


state.stage = stage
