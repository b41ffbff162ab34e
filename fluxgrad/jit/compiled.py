"""`Compiled`: a function traced once per input signature and run as generated NumPy code.

A call first tries the generated guards of the latest trace it used (`guards`: classes,
dtypes, requires_grad, sizes, Python scalars, grad mode), which run its code directly. Else
the exact signature (shapes included) is looked up; else the argument structure
(`signature`: ranks, dtypes, requires_grad, scalars, strides other than C order) and the
sizes, with the sizes this structure traces as unknown (`symbolic`) left out, key a bounded
LRU cache of traces (arguments of other strides also take the trace of C order when it read
no argument's layout). On a
miss the function is traced (`tracing`), optimised, run once equation by equation
(`codegen.first_run`, which gives this call's result) and written out as code
(`codegen.generate`). A size that changed since the structure's previous trace is traced as
unknown, if the trace proves right for every size (`symbolic.trace_verified`); else it
stays concrete. With `fullgraph=False` a trace that fails makes the structure run eagerly
(`_fall_back`: one warning). Called on static Variables (inside another compiled
function's trace, or in static mode) it stages `fn` inline. Called under vmap on batched
tensors it runs the batched function, traced and compiled once per pattern of batch layers
(`batched`); under forward mode on dual tensors it runs `fn` inline (eagerly, its ops
through their JVP rules).

Gradients: when grad mode is on and an argument requires grad, the call is ONE node of the
eager graph (`CompiledFunction`, an `autograd.Function`). Its forward runs the forward part
of a joint forward+VJP program (`joint`), keeping the residuals its backward part reads; a
plain `backward()` runs that backward part. Under `create_graph=True` the backward is
instead another `Compiled` function, of (arguments, output cotangents) -> input cotangents,
whose trace stages the program's VJP (`static.transforms.vjp`); being compiled itself, it
is differentiable in turn (higher order). Grad mode is part of the cache key (a trace for
grad mode refuses captured tensors that require grad).
"""
import collections
import functools
import os
import warnings
import weakref

import numpy as np

from .. import random_ops
from .._core.batching import BatchedTensor, state as _batch_state
from .._core.forward_mode import state as _forward_state
from .._core.grad_mode import state as _grad_state
from .._core.static_mode import state as _static_state
from .._core.tensor import Tensor
from ..autograd.function import Function
from ..static import dims as _dims
from ..static.program import Variable
from . import arguments, batched, codegen, guards, joint, kernels, signature, \
    state as _state, symbolic, tracing as _trace


class _Entry:
    __slots__ = ("traced", "forward", "source", "grad_in", "diff_out", "vjp", "owner",
                 "call_args", "joint", "joints", "names", "name", "dims", "eager", "signature",
                 "run")


class _Policy:
    """Per argument structure: the (leaf, axis) sizes traced as unknown, those that must stay
    concrete, the shapes of the latest trace (a size that changes becomes symbolic), and
    whether a trace failed (fullgraph=False then runs every call of the structure eagerly)."""
    __slots__ = ("symbolic", "concrete", "excluded", "last", "eager")

    def __init__(self):
        self.symbolic, self.concrete, self.last, self.eager = set(), set(), None, False
        self.excluded = {}  # (leaf, axis) -> sizes a symbolic trace does not serve


Trace = collections.namedtuple("Trace", "reason equations_traced equations_after_passes "
                                        "symbolic_dims")
Trace.__new__.__defaults__ = ((),)

_MISS = guards.MISS
_FAST_LIMIT = 1024  # exact signatures remembered (each points to a traced entry)


_live = weakref.WeakSet()  # every Compiled, for `reset_all`


def reset_all():
    """`torch.compiler.reset()`: every compiled function forgets its traces."""
    for compiled in list(_live):
        compiled.reset()


class Compiled:
    """See the module docstring. `trace_count` counts traces; `traces` holds, for each (the
    last 64), why it traced, the equation count before and after the passes, and which sizes
    it left symbolic (`"x.shape[0]"`); `source(*args)` is the generated code for those
    arguments' signature; `code` the most recently generated one. With `check=True` the first
    call of each signature is compared with eager mode. `dynamic`: None (a size becomes
    symbolic once it changes), True (symbolic from the first call), False (never)."""

    def __init__(self, fn, cache_size=64, check=False, fullgraph=False, dynamic=None,
                 backend=None):
        if not callable(fn):
            raise TypeError(f"fluxgrad.compile: expected a function, got {type(fn).__name__}")
        if dynamic not in (None, True, False):
            raise TypeError(f"fluxgrad.compile: dynamic must be None, True or False, got "
                            f"{dynamic!r}")
        functools.update_wrapper(self, fn)
        self.fn = fn
        self.cache_size = cache_size
        self.check = check
        self.fullgraph = fullgraph
        self.dynamic = dynamic
        self.backend = kernels.backend(backend)
        self.trace_count = 0
        self.traces = collections.deque(maxlen=64)
        self.code = None
        self._entries = collections.OrderedDict()  # pattern -> entry, least recent first
        self._fast = {}  # exact signature -> entry
        self._policies = {}
        self._warned = set()
        self._hot = guards.miss
        self._last = None  # the entry of the latest call (a new trace says what changed)
        self._batched = {}  # under vmap: pattern of batch layers -> `batched._Batched`
        _live.add(self)

    def reset(self):
        """Forget every trace: the next call traces again."""
        self._entries.clear()
        self._fast.clear()
        self._policies.clear()
        self._warned.clear()
        self._hot = guards.miss
        self._last = None
        self._batched.clear()

    def __call__(self, *args, **kwargs):
        if not kwargs:
            result = self._hot(args)  # the guards and code of the latest trace used
            if result is not _MISS:
                return result
        if _static_state.armed and _staging(args, kwargs):
            return self.fn(*args, **kwargs)  # called while staging: inline it
        if _batch_state.sizes or _forward_state.level:
            leaves = signature.flatten_args(args, kwargs)[1]
            if any(t._tangent is not None for t in leaves):
                # forward mode: fn's ops run through their JVP rules (the code generated for
                # the primal arrays would not see the tangents)
                return self.fn(*args, **kwargs)
            if any(type(t) is BatchedTensor for t in leaves):
                return batched.call(self, args, kwargs)  # the batched function, compiled
        return self._call(args, kwargs)

    def _call(self, args, kwargs):
        grad = _grad_state.enabled
        entry = arrays = None
        if not kwargs:
            try:
                datas = [a._data for a in args]
                key = (grad, *[(d.shape, d.dtype, d.strides) for d in datas],
                       *[a._requires_grad for a in args])
            except AttributeError:  # not all Tensors
                key = None
            else:
                entry = self._fast.get(key)
                tensors = args
        else:
            key = None
        if entry is None:
            entry, tensors, arrays = self._lookup(args, kwargs, grad, key)
            datas = [t._data for t in tensors]
        if entry.run is not None:
            self._hot = entry.run
        self._last = entry
        if entry.eager:
            return self.fn(*args, **kwargs) if arrays is None else arrays.value
        if entry.traced.arg_writes and arguments.aliased(entry.traced, tensors):
            return self.fn(*args, **kwargs)  # (nothing was written yet)
        state = entry.traced.state
        if state is not None and (state.writes or not (entry.grad_in and grad)):
            return _state.run(self, entry, arrays, args, kwargs, tensors)
        if arrays is None:
            return _finish(entry, args, tensors, datas)
        if entry.grad_in and grad:
            outs = CompiledFunction.apply(entry, arrays, *tensors)
        else:
            outs = arguments.results(entry.traced, tensors, arrays)
        return signature.unflatten(entry.traced.out_structure, iter(outs))

    def _lookup(self, args, kwargs, grad, fast_key):
        """(entry, Tensor leaves, this call's results if it traced) for a signature that is
        not among the exact ones seen."""
        structure, tensors = signature.flatten_args(args, kwargs)
        shapes = tuple(t._data.shape for t in tensors)
        base = (grad, structure)
        pattern, entry = self._cached(base, shapes)
        contiguous = all(t._data.flags.c_contiguous for t in tensors)
        if entry is None and not contiguous:
            # the trace for C order serves any strides when it read no argument's layout
            c_base = (grad, signature.flatten_args(args, kwargs, layouts=False)[0])
            c_pattern, c_entry = self._cached(c_base, shapes)
            if c_entry is not None and not c_entry.eager and not c_entry.traced.reads_layout:
                pattern, entry = c_pattern, c_entry
        arrays = None
        if entry is None:
            entry, arrays = self._compile(base, shapes, args, kwargs, tensors)
        elif not entry.eager:
            self._entries.move_to_end(pattern)
        if len(self._fast) >= _FAST_LIMIT:
            self._fast.clear()
        if fast_key is not None and not contiguous:
            fast_key = None  # (strides alone don't say whether an argument is a view)
        self._fast[fast_key if fast_key is not None else (base, shapes)] = entry
        return entry, tensors, arrays

    def _cached(self, base, shapes):
        """(pattern, its entry or None) for these sizes of an argument structure."""
        policy = self._policies.get(base)
        dims = _applicable(policy.symbolic, shapes, policy.excluded) if policy else None
        pattern = _pattern(base, shapes if dims is None else dims)
        return pattern, self._entries.get(pattern)

    def _entry_for(self, args, kwargs):
        grad = _grad_state.enabled
        entry, _, _ = self._lookup(args, kwargs, grad, None)
        if entry.eager:
            raise RuntimeError(f"fluxgrad.compile({_name(self.fn)}): these arguments run "
                               "eagerly (their trace failed), so there is no compiled code")
        return entry

    def source(self, *args, **kwargs):
        """The generated Python source for the signature of these arguments."""
        return self._entry_for(args, kwargs).source

    def save(self, path, *args, **kwargs):
        """Write the generated code for the signature of these arguments (none: the most
        recently used one) to `path` as a module that runs with NumPy alone; arrays it
        needs go to an `.npz` next to it (`jit.export`: sizes traced as unknown are read from
        the arguments; random draws come from NumPy's Generator, with a `seed=` argument)."""
        from . import export
        if args or kwargs:
            entry = self._entry_for(args, kwargs)
        elif self._last is not None:
            entry = self._last
            if entry.eager:
                raise RuntimeError(f"Compiled.save: the latest call of {_name(self.fn)} ran "
                                   "eagerly (its trace failed), so there is no compiled code")
        else:
            raise RuntimeError(f"Compiled.save: {getattr(self.fn, '__name__', 'fn')} has not "
                               "been called yet: call it once, or pass example arguments "
                               "(save(path, *args))")
        export.save(path, entry.forward, entry.source)

    def program(self, *args, **kwargs):
        """The optimised static Program for the signature of these arguments."""
        return self._entry_for(args, kwargs).traced.program

    def _compile(self, base, shapes, args, kwargs, tensors):
        policy = self._policies.setdefault(base, _Policy())
        previous = self._last.signature if self._last is not None else None
        reason = _why(previous, base, shapes, args, kwargs)
        if policy.eager and not self.fullgraph:  # its trace failed for other sizes already
            return self._fall_back(None, base, shapes, args, kwargs, tensors, reason)
        candidates = set(policy.symbolic)
        if self.dynamic:
            candidates.update((leaf, axis) for leaf, shape in enumerate(shapes)
                              for axis in range(len(shape)))
        elif self.dynamic is None and policy.last is not None:
            candidates.update((leaf, axis) for leaf, (old, new) in
                              enumerate(zip(policy.last, shapes))
                              for axis, (a, b) in enumerate(zip(old, new)) if a != b)
        if self.dynamic is False or any(not t._data.flags.c_contiguous for t in tensors):
            candidates = set()  # (the strides of a non-C-contiguous argument follow its sizes)
        candidates -= policy.concrete
        names = _trace.input_names(self.fn, args, kwargs, len(tensors))
        dims = _applicable(candidates, shapes, policy.excluded)
        traced, kept = None, ""
        if dims is not None:
            try:
                traced, excluded = symbolic.trace_verified(functools.partial(
                    _trace.trace, self.fn, args, kwargs, tensors, names, _grad_state.enabled,
                    lift=True, dims=dims))
                policy.symbolic |= candidates
                for leaf, row in enumerate(dims):
                    for axis, d in enumerate(row):
                        if d in excluded:
                            policy.excluded.setdefault((leaf, axis), set()).update(excluded[d])
            except Exception as err:
                policy.symbolic.clear()
                policy.concrete |= candidates
                dims = None
                kept = f"; sizes kept concrete: {_first_line(err)}"
        policy.last = shapes
        if traced is None:
            failure = None
            try:
                traced = _trace.trace(self.fn, args, kwargs, tensors, names,
                                      _grad_state.enabled, lift=True)
            except Exception as err:
                if self.fullgraph:
                    raise
                failure = err
            if failure is not None:  # (outside `except`: an eager error is not chained to it)
                return self._fall_back(failure, base, shapes, args, kwargs, tensors, reason)
            reason += kept
        self.trace_count += 1
        entry = _Entry()
        entry.signature = (base, shapes if dims is None else dims)
        entry.eager = False
        entry.dims = dims
        self.traces.append(Trace(reason, traced.equations_before, len(traced.program.equations),
                                 _symbolic_names(dims, names)))
        state = traced.state.read() if traced.state is not None else []
        with random_ops.draws_undone(traced.program):  # the call's own run draws
            arrays, wrapped = codegen.first_run(traced, [t._data for t in tensors] + state)
        entry.owner = self
        placeholders = iter([Tensor._make(np.zeros(())) for _ in tensors])
        entry.call_args = (signature.substitute(args, placeholders),
                           signature.substitute(kwargs, placeholders))
        entry.traced = traced
        name = "".join(c if c.isalnum() else "_" for c in getattr(self.fn, "__name__", "fn"))
        entry.name = name if name.isidentifier() else "fn"
        entry.names = names
        entry.source, entry.forward = codegen.generate(traced, entry.name, wrapped,
                                                            self.backend)
        entry.grad_in = [i for i, t in enumerate(tensors)
                         if t.requires_grad and t._data.dtype.kind in "fc"]
        entry.diff_out = [i for i, o in enumerate(traced.outputs[:traced.n_results])
                          if isinstance(o, Variable) and o._data.dtype.kind in "fc"]
        if not entry.diff_out or traced.arg_writes:  # (then no result depends on grad_in)
            entry.grad_in = []
        entry.vjp = entry.joint = None
        entry.joints = {}
        entry.run = _runner(entry, args, kwargs, tensors, shapes if dims is None else dims,
                            base[0], _finish, policy.excluded if dims is not None else None)
        self.code = entry.source
        self._store(_pattern(base, shapes if dims is None else dims), entry)
        if self.check:
            if traced.state is not None and traced.state.writes:
                _state.refuse_check(self)
            with random_ops.draws_undone(traced.program):  # eager draws the same
                self._check(entry, arrays, args, kwargs)
        if random_ops.draws_in(traced.program):
            arrays = None  # the trace's own run was undone: this call draws
        return entry, arrays

    def _retrace(self, args, kwargs, tensors):
        """A new trace for these arguments (a training step whose state guards failed): it
        takes the place of the current one for their signature."""
        structure, _ = signature.flatten_args(args, kwargs)
        shapes = tuple(t._data.shape for t in tensors)
        return self._compile((_grad_state.enabled, structure), shapes, args, kwargs, tensors)

    def _use(self, args, kwargs, tensors, entry):
        """Let `entry` (a variant of a training step whose state guards hold) serve these
        arguments' signature from now on."""
        structure, _ = signature.flatten_args(args, kwargs)
        base = (_grad_state.enabled, structure)
        shapes = tuple(t._data.shape for t in tensors)
        self._entries[_pattern(base, shapes if entry.dims is None else entry.dims)] = entry
        self._fast = {k: e for k, e in self._fast.items() if e.signature[0] != base}

    def _store(self, pattern, entry):
        self._entries[pattern] = entry
        if len(self._entries) > self.cache_size:
            _, evicted = self._entries.popitem(last=False)
            self._fast = {k: e for k, e in self._fast.items() if e is not evicted}
            if self._last is evicted:
                self._hot, self._last = guards.miss, None

    def _fall_back(self, err, base, shapes, args, kwargs, tensors, reason):
        """fullgraph=False: run eagerly what could not be traced (`err`; None when a trace for
        other sizes failed already). An error of the function itself raises from eager mode
        as it would without compile. Else: warn once, and remember the signature (and that
        its argument structure runs eagerly)."""
        result = self.fn(*args, **kwargs)
        self._policies[base].eager = True
        if err is not None:
            where = _user_frame(err.__traceback__)
            if (where, type(err)) not in self._warned:
                self._warned.add((where, type(err)))
                warnings.warn(
                    f"fluxgrad.compile({_name(self.fn)}): can't trace it"
                    f"{' at ' + where if where else ''}: {type(err).__name__}: "
                    f"{_first_line(err)} Running it eagerly, now and on later calls with "
                    "arguments of these types. For Python control flow on a tensor's value use "
                    "fluxgrad.static.nn.cond / while_loop; fullgraph=True makes this an error",
                    RuntimeWarning, stacklevel=6)
        if err is not None:
            self.traces.append(Trace(f"{reason}; the trace failed, runs eagerly", 0, 0))
        entry = _Entry()
        entry.signature = (base, shapes)
        entry.eager = True
        entry.owner = self
        entry.name = "".join(c if c.isalnum() else "_" for c in _name(self.fn))
        entry.run = _runner(entry, args, kwargs, tensors, shapes, base[0], _finish_eager)
        self._store(_pattern(base, shapes), entry)
        return entry, _EagerResult(result)

    def _check(self, entry, arrays, args, kwargs):
        """Compare the first compiled result of a signature with eager mode's."""
        from .._core.grad_mode import no_grad
        if entry.traced.arg_writes:  # eager mode writes into copies: the call writes after
            copies = iter([Tensor._make(t._data.copy()) for t in
                           signature.flatten_args(args, kwargs)[1]])
            args, kwargs = signature.substitute(args, copies), signature.substitute(kwargs,
                                                                                  copies)
        with no_grad():
            expected = []
            signature.flatten_value(self.fn(*args, **kwargs), expected)
        for i, (got, want) in enumerate(zip(arrays, expected)):
            want = want._data
            if got.shape != want.shape or got.dtype != want.dtype or not np.allclose(
                    got, want, rtol=1e-5 if got.dtype.itemsize < 8 else 1e-9, atol=1e-6,
                    equal_nan=True):
                self._fast = {k: e for k, e in self._fast.items() if e is not entry}
                for pattern in [p for p, e in self._entries.items() if e is entry]:
                    del self._entries[pattern]
                raise RuntimeError(
                    f"fluxgrad.compile(check=True): result leaf {i} of "
                    f"{getattr(self.fn, '__name__', 'fn')} differs from eager mode's "
                    f"(compiled {got.dtype}{list(got.shape)}, eager {want.dtype}"
                    f"{list(want.shape)}); please report it, and call the function without "
                    "compile meanwhile")

    def _vjp_of(self, entry, args, kwargs):
        """The compiled backward of one entry: (inputs, cotangents) -> input cotangents."""
        from ..static.transforms import vjp
        fn, grad_in, diff_out = self.fn, entry.grad_in, entry.diff_out

        def backward(xs, out_bars):
            leaves = iter(xs)
            result = fn(*signature.substitute(args, leaves), **signature.substitute(kwargs,
                                                                                 leaves))
            outs = []
            signature.flatten_value(result, outs)
            targets = [outs[i] for i in diff_out]
            inputs = [xs[i] for i in grad_in]
            x_bars = vjp(targets, inputs, list(out_bars))
            return tuple(x.new_zeros(x.shape) if g is None else g for g, x in zip(x_bars, inputs))
        backward.__name__ = f"{getattr(fn, '__name__', 'fn')}_backward"
        return Compiled(backward, cache_size=4, fullgraph=True)


def _runner(entry, args, kwargs, tensors, dims, grad, finish, policy_excluded=None):
    """The generated guards-and-call of an entry, for calls of positional Tensors and Python
    scalars only (None otherwise)."""
    if kwargs or not entry.eager and entry.traced.state is not None:  # `state.run` serves it
        return None
    specs, leaf = [], 0
    policy_excluded = policy_excluded or {}
    for a in args:
        if isinstance(a, Tensor) and not (entry.eager or a._data.flags.c_contiguous):
            return None  # the signature holds its strides: `_call` serves it
        if isinstance(a, Tensor):
            specs.append(("tensor", type(a), a._data.dtype, a._requires_grad, dims[leaf],
                          [policy_excluded.get((leaf, axis), ()) for axis in range(a.ndim)]))
            leaf += 1
        elif type(a) in _GUARDED_VALUES:
            specs.append(("value", a))
        else:
            return None
    simple = finish is _finish and entry.traced.out_structure == "T" and not (
        entry.grad_in and grad) and not entry.traced.arg_writes
    return guards.runner(entry, specs, grad, finish, entry.forward if simple else None,
                         contiguous=not entry.eager and entry.traced.reads_layout)


_GUARDED_VALUES = (bool, int, float, str, type(None))


def _finish(entry, args, tensors, arrays):
    """Run an entry's code on the arguments' arrays; wrap the results."""
    if entry.grad_in and _grad_state.enabled:
        outs = CompiledFunction.apply(entry, None, *tensors)
    elif entry.traced.arg_writes:
        if arguments.aliased(entry.traced, tensors):
            return entry.owner.fn(*args)
        outs = arguments.results(entry.traced, tensors, entry.forward(*arrays))
    else:
        results = entry.forward(*arrays)
        if entry.traced.out_structure == "T":
            return Tensor._make(results[0])
        outs = [Tensor._make(a) for a in results]
    return signature.unflatten(entry.traced.out_structure, iter(outs))


def _finish_eager(entry, args, tensors, arrays):
    return entry.owner.fn(*args)


class _EagerResult:
    __slots__ = ("value",)

    def __init__(self, value):
        self.value = value


def _staging(args, kwargs):
    _, tensors = signature.flatten_args(args, kwargs)
    return any(isinstance(t, Variable) for t in tensors)


def _applicable(axes, shapes, excluded):
    """Per leaf, its dims with the sizes at `axes` unknown (only sizes >= 2 are: 0 and 1 stay
    concrete, broadcasting depends on them, and so do the sizes in `excluded[(leaf, axis)]`,
    which a symbolic trace compared with); None when no size is unknown."""
    chosen = {(leaf, axis) for leaf, axis in axes
              if leaf < len(shapes) and axis < len(shapes[leaf]) and shapes[leaf][axis] >= 2
              and shapes[leaf][axis] not in excluded.get((leaf, axis), ())}
    if not chosen or any(_dims.could_be_sentinel(s) for shape in shapes for s in shape):
        return None
    return symbolic.assign(shapes, chosen)[0]


def _pattern(base, dims):
    """The cache key of a trace: the structure, and each size or the unknown size it is."""
    return base, tuple(tuple(("N", d.index) if isinstance(d, _dims.Dim) else d for d in row)
                       for row in dims)


def _symbolic_names(dims, names):
    if dims is None:
        return ()
    return tuple(f"{names[leaf]}.shape[{axis}]" for leaf, row in enumerate(dims)
                 for axis, d in enumerate(row) if isinstance(d, _dims.Dim))


def _why(previous, base, shapes, args, kwargs):
    """Why a signature traced: what differs from the most recently used one, `previous`."""
    if previous is None:
        return "first call"
    (old_grad, old_structure), old_shapes = previous
    grad, structure = base
    if old_grad != grad:
        return f"grad mode {'on' if grad else 'off'} (was {'on' if old_grad else 'off'})"
    old_pos, new_pos = _positional(old_structure), _positional(structure)
    if len(old_pos) == len(new_pos) and (old_structure is old_pos) == (structure is new_pos):
        leaf = 0
        for i, (a, b) in enumerate(zip(old_pos, new_pos)):
            n = _leaf_count(b)
            if a != b or not all(_fits(row, shape) for row, shape in
                                 zip(old_shapes[leaf:leaf + n], shapes[leaf:leaf + n])):
                return (f"args[{i}] changed: {_describe(a, old_shapes[leaf:leaf + n])} -> "
                        f"{_describe(b, shapes[leaf:leaf + n])}")
            leaf += n
        if old_structure == structure:
            return ("a size the symbolic trace compared with (it serves every other size) "
                    f"traces apart: {[list(shape) for shape in shapes]}")
    return "the arguments' structure or keyword arguments changed"


def _fits(dims, shape):
    return len(dims) == len(shape) and all(
        size >= 2 if isinstance(d, _dims.Dim) else d == size for d, size in zip(dims, shape))


def _positional(structure):
    if len(structure) == 2 and isinstance(structure[1], tuple) and \
            structure[1][:1] == ("dict",) and isinstance(structure[0], tuple) and \
            all(isinstance(p, tuple) for p in structure[0]):
        return structure[0]
    return structure


def _leaf_count(part):
    if not isinstance(part, tuple) or not part:
        return 0
    if type(part[0]) is int or part[0] == "T":  # a Tensor: (rank, dtype, requires_grad, memory)
        return 1
    if part[0] in ("tuple", "list"):
        return sum(_leaf_count(p) for p in part[1:])
    if part[0] == "dict":
        return sum(_leaf_count(v) for _, v in part[1:])
    return 0


def _describe(part, shapes):
    if type(part[0]) is int:
        memory = "" if part[3] is None else \
            f" strides {list(part[3][0])}{' (a view)' if part[3][1] else ''}"
        return f"{part[1]}{list(shapes[0])}{' requires_grad' if part[2] else ''}{memory}"
    if part[:1] == ("C",):
        return repr(part[2])
    return "a structure"


def _first_line(err):
    text = str(err).strip()
    return text.splitlines()[0] if text else type(err).__name__


def _user_frame(tb):
    """'file:line: code' of the innermost frame of a traceback outside fluxgrad."""
    where = None
    while tb is not None:
        frame = tb.tb_frame
        if not frame.f_globals.get("__name__", "").startswith("fluxgrad"):
            import linecache
            code = linecache.getline(frame.f_code.co_filename, tb.tb_lineno).strip()
            where = f"{os.path.basename(frame.f_code.co_filename)}:{tb.tb_lineno}" + \
                (f" `{code}`" if code else "")
        tb = tb.tb_next
    return where


def _name(fn):
    return getattr(fn, "__name__", type(fn).__name__)


class CompiledFunction(Function):
    """One call of a compiled function in the eager graph; backward runs compiled code."""

    @staticmethod
    def forward(ctx, entry, arrays, *tensors):
        parts = _joint_for(entry, tensors)
        ctx.draws = random_ops.generator_states(entry.traced.program)  # for create_graph
        results = parts.forward(*[t._data for t in tensors])
        n_out = parts.n_out
        ctx.residuals = results[n_out:]
        outs = tuple(Tensor._make(a) for a in results[:n_out])
        diff = set(entry.diff_out)
        ctx.mark_non_differentiable(*[o for i, o in enumerate(outs) if i not in diff])
        ctx.entry, ctx.joint = entry, parts
        ctx.out_types = [(a.shape, a.dtype) for a in results[:n_out]]
        ctx.save_for_backward(*tensors)
        return outs

    @staticmethod
    def backward(ctx, *out_bars):
        entry = ctx.entry
        xs = ctx.saved_tensors
        bars = []
        for i in entry.diff_out:
            bar = out_bars[i]
            if bar is None:
                bar = Tensor(np.zeros(*ctx.out_types[i]))
            bars.append(bar)
        if _grad_state.enabled:  # create_graph: a backward that is differentiable again
            if entry.vjp is None:
                entry.vjp = entry.owner._vjp_of(entry, *entry.call_args)
            with random_ops.replaying(ctx.draws):  # it recomputes the forward's draws
                x_bars = entry.vjp(list(xs), bars)
        else:
            x_bars = [Tensor._make(a) for a in ctx.joint.backward(
                *[x._data for x in xs], *ctx.residuals, *[b._data for b in bars])]
        grads = [None] * len(xs)
        for i, g in zip(entry.grad_in, x_bars):
            grads[i] = g
        return (None, None, *grads)


def _joint_for(entry, tensors):
    """The forward+backward code of an entry: one for every size when its sizes are symbolic
    and its backward is right for every size too, else one per concrete shape."""
    if entry.joint and not entry.joint.excluded:
        return entry.joint
    shapes = tuple(t._data.shape for t in tensors)
    sizes = {}
    for dims, shape in zip(entry.dims or (), shapes):
        for d, size in zip(dims, shape):
            if isinstance(d, _dims.Dim):
                sizes[d] = size
    if entry.joint and not any(sizes[d] in values for d, values in entry.joint.excluded.items()):
        return entry.joint
    parts = entry.joints.get(shapes)
    if parts is not None:
        return parts
    outputs = entry.traced.outputs
    out_types = [(tuple(sizes.get(d, d) for d in o.dims), o._data.dtype) if isinstance(
        o, Variable) else (o._data.shape, o._data.dtype) for o in outputs]
    build = functools.partial(joint.build, entry.owner.fn, entry.call_args, tensors,
                              len(outputs), out_types, entry.grad_in, entry.diff_out,
                              entry.names, entry.name, backend=entry.owner.backend)
    if entry.joint is None and entry.dims is not None:
        try:
            entry.joint = build(dims=list(entry.dims) + [outputs[i].dims for i in
                                                         entry.diff_out])
        except Exception:
            entry.joint = False  # its backward is not size-generic: one per shape
        else:
            return _joint_for(entry, tensors)
    parts = build()
    if entry.dims is None:
        entry.joint = parts
    else:
        if len(entry.joints) >= 16:
            entry.joints.clear()
        entry.joints[shapes] = parts
    return parts
