"""`Compiled`: a function traced once per input signature and run as generated NumPy code.

A call flattens its arguments (`signature`); the signature's entry in a bounded LRU cache
holds the traced program, its generated forward function and source. On a miss the function
is traced (`trace`), optimised, run once equation by equation (`codegen.first_run`, which
gives this call's result) and written out as code (`codegen.generate`). A hit runs the
generated function on the arrays and wraps the results as Tensors. Called on static
Variables (inside another compiled function's trace, or in static mode) it stages `fn`
inline; called under vmap or forward mode on batched or dual tensors it runs `fn` inline
(eagerly, its ops through their batching and JVP rules).

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

import numpy as np

from .. import random_ops
from .._core.batching import BatchedTensor, state as _batch_state
from .._core.forward_mode import state as _forward_state
from .._core.grad_mode import state as _grad_state
from .._core.static_mode import state as _static_state
from .._core.tensor import Tensor
from ..autograd.function import Function
from ..static.program import Variable
from . import codegen, joint, signature, state as _state, trace as _trace


class _Entry:
    __slots__ = ("traced", "forward", "source", "grad_in", "diff_out", "vjp", "owner",
                 "call_args", "joint", "names", "name")


Trace = collections.namedtuple("Trace", "reason equations_traced equations_after_passes")


def _why(previous, key):
    """Why `key` traced: what differs from the most recently used signature `previous`."""
    if previous is None:
        return "first call"
    (old_args, old_grad), (new_args, new_grad) = previous, key
    if old_grad != new_grad:
        return f"grad mode {'on' if new_grad else 'off'} (was {'on' if old_grad else 'off'})"
    old_pos = old_args[0] if len(old_args) == 2 and isinstance(old_args[1], tuple) and \
        old_args[1][:1] == ("dict",) else old_args
    new_pos = new_args[0] if len(new_args) == 2 and isinstance(new_args[1], tuple) and \
        new_args[1][:1] == ("dict",) else new_args
    if len(old_pos) == len(new_pos):
        for i, (a, b) in enumerate(zip(old_pos, new_pos)):
            if a != b:
                return f"args[{i}] changed: {_describe(a)} -> {_describe(b)}"
    return "the arguments' structure or keyword arguments changed"


def _describe(part):
    if len(part) == 3 and isinstance(part[0], tuple):  # a Tensor: shape, dtype, requires_grad
        return f"{part[1]}{list(part[0])}{' requires_grad' if part[2] else ''}"
    if part[:1] == ("C",):
        return repr(part[2])
    return "a structure"


class Compiled:
    """See the module docstring. `trace_count` counts traces; `traces` holds, for each (the
    last 64), why it traced and the equation count before and after the passes;
    `source(*args)` is the generated code for those arguments' signature; `code` the most
    recently generated one. With `check=True` the first call of each signature is compared
    with eager mode."""

    def __init__(self, fn, cache_size=64, check=False):
        if not callable(fn):
            raise TypeError(f"fluxgrad.compile: expected a function, got {type(fn).__name__}")
        functools.update_wrapper(self, fn)
        self.fn = fn
        self.cache_size = cache_size
        self.check = check
        self.trace_count = 0
        self.traces = collections.deque(maxlen=64)
        self.code = None
        self._cache = collections.OrderedDict()

    def __call__(self, *args, **kwargs):
        key, tensors = signature.flatten_args(args, kwargs)
        if _static_state.armed:
            for t in tensors:
                if isinstance(t, Variable):
                    return self.fn(*args, **kwargs)  # called while staging: inline it
        if _batch_state.sizes or _forward_state.level:
            for t in tensors:
                if type(t) is BatchedTensor or t._tangent is not None:
                    # under vmap / forward mode: fn's ops run through their rules (the code
                    # generated for one example's arrays would not see the batch or tangents)
                    return self.fn(*args, **kwargs)
        key = (key, _grad_state.enabled)
        entry = self._cache.get(key)
        if entry is None:
            entry, arrays = self._compile(key, args, kwargs, tensors)
            if self.check:
                if entry.traced.state is not None and entry.traced.state.writes:
                    _state.refuse_check(self)
                with random_ops.draws_undone(entry.traced.program):  # eager draws the same
                    self._check(key, arrays, args, kwargs)
            if random_ops.draws_in(entry.traced.program):
                arrays = None
        else:
            self._cache.move_to_end(key)
            arrays = None
        state = entry.traced.state
        if state is not None and (state.writes or not (entry.grad_in and _grad_state.enabled)):
            return _state.run(self, key, entry, arrays, args, kwargs, tensors)
        if entry.grad_in and _grad_state.enabled:
            outs = CompiledFunction.apply(entry, arrays, *tensors)
        else:
            if arrays is None:
                arrays = entry.forward(*[t._data for t in tensors])
            structure = entry.traced.out_structure
            if structure == "T":
                return Tensor._make(arrays[0])
            outs = [Tensor._make(a) for a in arrays]
        return signature.unflatten(entry.traced.out_structure, iter(outs))

    def source(self, *args, **kwargs):
        """The generated Python source for the signature of these arguments."""
        key, tensors = signature.flatten_args(args, kwargs)
        key = (key, _grad_state.enabled)
        entry = self._cache.get(key)
        if entry is None:
            entry, _ = self._compile(key, args, kwargs, tensors)
        return entry.source

    def save(self, path, *args, **kwargs):
        """Write the generated code for the signature of these arguments (none: the most
        recently used one) to `path` as a module that runs with NumPy alone; arrays it
        needs go to an `.npz` next to it (`jit.export`)."""
        from . import export
        if args or kwargs:
            key, tensors = signature.flatten_args(args, kwargs)
            key = (key, _grad_state.enabled)
            entry = self._cache.get(key) or self._compile(key, args, kwargs, tensors)[0]
        elif self._cache:
            entry = next(reversed(self._cache.values()))
        else:
            raise RuntimeError(f"Compiled.save: {getattr(self.fn, '__name__', 'fn')} has not "
                               "been called yet: call it once, or pass example arguments "
                               "(save(path, *args))")
        if random_ops.draws_in(entry.traced.program):
            raise NotImplementedError(
                f"Compiled.save: {getattr(self.fn, '__name__', 'fn')} draws random numbers "
                "(rand, dropout, ...), which need fluxgrad's generator; a standalone module "
                "can't draw them yet. Pass the random values in as arguments to export it")
        export.save(path, entry.forward, entry.source)

    def program(self, *args, **kwargs):
        """The optimised static Program for the signature of these arguments."""
        key, tensors = signature.flatten_args(args, kwargs)
        key = (key, _grad_state.enabled)
        entry = self._cache.get(key)
        if entry is None:
            entry, _ = self._compile(key, args, kwargs, tensors)
        return entry.traced.program

    def _compile(self, key, args, kwargs, tensors):
        names = _trace.input_names(self.fn, args, kwargs, len(tensors))
        traced = _trace.trace(self.fn, args, kwargs, tensors, names, _grad_state.enabled,
                              lift=True)
        self.trace_count += 1
        previous = next(reversed(self._cache), None)
        self.traces.append(Trace(_why(previous, key), traced.equations_before,
                                 len(traced.program.equations)))
        state = traced.state.read() if traced.state is not None else []
        with random_ops.draws_undone(traced.program):  # the call's own run draws
            arrays, wrapped = codegen.first_run(traced, [t._data for t in tensors] + state)
        entry = _Entry()
        entry.owner = self
        placeholders = iter([Tensor._make(np.zeros(())) for _ in tensors])
        entry.call_args = (signature.substitute(args, placeholders),
                           signature.substitute(kwargs, placeholders))
        entry.traced = traced
        name = "".join(c if c.isalnum() else "_" for c in getattr(self.fn, "__name__", "fn"))
        entry.name = name if name.isidentifier() else "fn"
        entry.names = names
        entry.source, entry.forward = codegen.generate(traced, entry.name, wrapped)
        entry.grad_in = [i for i, t in enumerate(tensors)
                         if t.requires_grad and t._data.dtype.kind == "f"]
        entry.diff_out = [i for i, o in enumerate(traced.outputs)
                          if isinstance(o, Variable) and o._data.dtype.kind == "f"]
        if not entry.diff_out:
            entry.grad_in = []
        entry.vjp = entry.joint = None
        self.code = entry.source
        self._cache[key] = entry
        if len(self._cache) > self.cache_size:
            self._cache.popitem(last=False)
        return entry, arrays

    def _check(self, key, arrays, args, kwargs):
        """Compare the first compiled result of a signature with eager mode's."""
        from .._core.grad_mode import no_grad
        with no_grad():
            expected = []
            signature.flatten_value(self.fn(*args, **kwargs), expected)
        for i, (got, want) in enumerate(zip(arrays, expected)):
            want = want._data
            if got.shape != want.shape or got.dtype != want.dtype or not np.allclose(
                    got, want, rtol=1e-5 if got.dtype.itemsize < 8 else 1e-9, atol=1e-6,
                    equal_nan=True):
                self._cache.pop(key, None)
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
        return Compiled(backward, cache_size=4)


class CompiledFunction(Function):
    """One call of a compiled function in the eager graph; backward runs compiled code."""

    @staticmethod
    def forward(ctx, entry, arrays, *tensors):
        if entry.joint is None:
            outputs = entry.traced.outputs
            entry.joint = joint.build(entry.owner.fn, entry.call_args, tensors, len(outputs),
                                      [(o._data.shape, o._data.dtype) for o in outputs],
                                      entry.grad_in, entry.diff_out, entry.names, entry.name)
        ctx.draws = random_ops.generator_states(entry.traced.program)  # for create_graph
        results = entry.joint.forward(*[t._data for t in tensors])
        n_out = entry.joint.n_out
        ctx.residuals = results[n_out:]
        outs = tuple(Tensor._make(a) for a in results[:n_out])
        diff = set(entry.diff_out)
        ctx.mark_non_differentiable(*[o for i, o in enumerate(outs) if i not in diff])
        ctx.entry = entry
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
                data = entry.traced.outputs[i]._data
                bar = Tensor(np.zeros(data.shape, data.dtype))
            bars.append(bar)
        if _grad_state.enabled:  # create_graph: a backward that is differentiable again
            if entry.vjp is None:
                entry.vjp = entry.owner._vjp_of(entry, *entry.call_args)
            with random_ops.replaying(ctx.draws):  # it recomputes the forward's draws
                x_bars = entry.vjp(list(xs), bars)
        else:
            x_bars = [Tensor._make(a) for a in entry.joint.backward(
                *[x._data for x in xs], *ctx.residuals, *[b._data for b in bars])]
        grads = [None] * len(xs)
        for i, g in zip(entry.grad_in, x_bars):
            grads[i] = g
        return (None, None, *grads)
