"""Custom differentiable functions: `Function` (PaddlePaddle: `PyLayer`).

    class Exp(Function):
        @staticmethod
        def forward(ctx, x):
            out = x.exp()
            ctx.save_for_backward(out)
            return out

        @staticmethod
        def backward(ctx, out_bar):
            out, = ctx.saved_tensors
            return out_bar * out

    y = Exp.apply(x)

`forward` runs under `no_grad`; one graph node (`ExpBackward`) records the call
and its pullback calls `backward`, so the engine treats it like any op: hooks,
retain_graph, in-place checks and, when `backward` is written in fluxgrad ops,
`create_graph=True` all work. An optional `jvp(ctx, *tangents)` serves forward
mode. `backward` returns one gradient per argument of `forward` (None for those
without one), or one per Tensor argument (PaddlePaddle's convention). As in PyTorch,
an output that got no gradient reaches `backward` as zeros of its dtype, or as None
after `ctx.set_materialize_grads(False)`; `ctx.mark_dirty(x)` declares an input that
forward modified in place and returns (it is rebased onto the Function's node).
"""
import contextlib
import functools
import numbers
import weakref

import numpy as np

from .._core.batching import BatchedTensor, state as _batch_state
from .._core.forward_mode import state as _forward_state, tangent_tensor
from .._core.grad_mode import no_grad, state as _grad_state
from .._core.node import Node, saved_hooks, stand_in
from .._core.tensor import Tensor
from ._function_batching import apply_batched
from .graph import SavedTensor, pack_function_saved

__all__ = ["Function", "FunctionCtx", "PyLayer", "PyLayerContext", "once_differentiable"]


class FunctionCtx:
    """The `ctx` passed to `forward`, `backward` and `jvp`; attributes may be set freely."""

    def __init__(self, needs_input_grad):
        self.needs_input_grad = needs_input_grad
        self._saved = ()
        self._versions = ()
        self._non_differentiable = ()
        self._dirty = ()
        self._node_ref = None
        self.materialize_grads = True

    def save_for_backward(self, *tensors):
        """Keep tensors (inputs, outputs or intermediates) for `backward`."""
        for i, t in enumerate(tensors):
            if t is not None and not isinstance(t, Tensor):
                raise TypeError(f"save_for_backward: argument {i} is a {type(t).__name__}; only "
                                "Tensors (or None) can be saved, keep other values as ctx "
                                "attributes (ctx.value = ...)")
        self._saved = tensors

    @property
    def saved_tensors(self):
        """The tensors given to `save_for_backward`, in order."""
        if self._saved is None:
            raise RuntimeError(_freed_message(self._node_name()))
        node = None if self._node_ref is None else self._node_ref()
        outs = None
        saved = []
        for t in self._saved:
            if isinstance(t, SavedTensor):
                if isinstance(t.edge, _Output):
                    t = Tensor._make(t.unpacked()._data, True, node, t.edge.index)
                else:
                    t = t.unpack()
            elif isinstance(t, _Output):
                if outs is None:
                    outs = node.outputs()
                    if node.prim.n_outputs == 1:
                        outs = (outs,)
                t = outs[t.index]
            saved.append(t)
        return tuple(saved)

    def saved_tensor(self):
        """PaddlePaddle's spelling of `saved_tensors`."""
        return self.saved_tensors

    def set_materialize_grads(self, value):
        """True (the default): `backward` gets zeros for the outputs that got no gradient;
        False: it gets None for them."""
        self.materialize_grads = bool(value)

    def mark_non_differentiable(self, *tensors):
        """Outputs that get no gradient (integer results, indices, masks)."""
        self._non_differentiable = tensors

    def mark_dirty(self, *tensors):
        """Inputs that forward modified in place (and returns as outputs)."""
        self._dirty = tensors

    def _node_name(self):
        node = None if self._node_ref is None else self._node_ref()
        return "this Function's node" if node is None else node.name()


PyLayerContext = FunctionCtx


class _Output:
    """A saved output, held by index (the node rebuilds it), so ctx and output form no cycle."""
    __slots__ = ("index",)

    def __init__(self, index):
        self.index = index


class FunctionNode(Node):
    """The graph node of one `Function.apply` call; each subclass gets `<Name>Backward`."""
    __slots__ = ()

    def check_versions(self):
        ctx = self.prim.ctx
        for counter, seen in ctx._versions:
            if counter[0] != seen:
                raise RuntimeError(self._modified_message(None, seen, "a tensor it saved",
                                                          counter[0]))

    def release(self):
        """Free what `save_for_backward` kept; running again raises only if `backward`
        reads it (the engine's own checks need only shapes and dtypes)."""
        self.inputs = tuple(stand_in(x) for x in self.inputs)
        self.out_data = None
        self.prim.ctx._saved = None

    @property
    def saved_tensors(self):
        return self.prim.ctx.saved_tensors


class _Record:
    """What the engine reads from a node's `prim`, for one call of a Function."""
    __slots__ = ("name", "n_outputs", "saves_out", "function", "ctx", "slots", "n_returned")
    vjp_rules = None
    runs_user_code = True
    array_rules = False

    def __init__(self, function, slots, n_returned, ctx):
        self.name = function.__name__
        self.function = function
        self.n_outputs = len(slots)  # the node's outputs: the Tensors forward returned
        self.slots, self.n_returned = slots, n_returned  # where they were among its results
        self.saves_out = False
        self.ctx = ctx

    def jvp(self, tangents, out, *inputs):
        """The Function's jvp, for `forward_grad` along a recorded graph."""
        out_dots = _call_jvp(self.function, self.ctx, tangents)
        out_dots = tuple(out_dots[i] for i in self.slots)
        return out_dots if self.n_outputs != 1 else out_dots[0]

    def vjp_all(self, out_bar, out, *inputs):
        function = self.function
        if self.n_outputs == 1:
            out_bar, out = (out_bar,), (out,)
        out_bars = [None] * self.n_returned  # None for a result that is not a Tensor
        for slot, g, o in zip(self.slots, out_bar, out):
            if g is None and self.ctx.materialize_grads:
                g = Tensor._make(np.zeros_like(o._data))
            out_bars[slot] = g
        x_bars = function.backward(self.ctx, *out_bars)
        if not isinstance(x_bars, (tuple, list)):
            x_bars = (x_bars,)
        x_bars = _align(function, x_bars, [isinstance(x, Tensor) for x in inputs])
        result = []
        for i, (x, need, x_bar) in enumerate(zip(inputs, self.ctx.needs_input_grad, x_bars)):
            if x_bar is not None and not isinstance(x, Tensor):
                raise RuntimeError(
                    f"function {function.__name__}Backward returned a gradient different than "
                    f"None at position {i + 1}, but the corresponding forward input was not a "
                    f"Variable (it is a {type(x).__name__}); return None for it")
            if not need or x_bar is None:
                result.append(None)
                continue
            if not isinstance(x_bar, Tensor):
                x_bar = _as_gradient(function, i, x, x_bar)
            _check_shape(function, i, x, x_bar)
            result.append(x_bar)
        return result


def _align(function, x_bars, is_tensor):
    """One gradient per argument (PyTorch), from one per argument or one per Tensor argument
    (PaddlePaddle); `is_tensor` says which arguments are Tensors."""
    n = len(is_tensor)
    if len(x_bars) == n:
        return x_bars
    tensor_slots = [i for i, flag in enumerate(is_tensor) if flag]
    if len(x_bars) == len(tensor_slots):
        aligned = [None] * n
        for i, g in zip(tensor_slots, x_bars):
            aligned[i] = g
        return aligned
    if len(x_bars) > n and all(g is None for g in x_bars[n:]):
        return x_bars[:n]
    raise RuntimeError(
        f"function {function.__name__}Backward returned an incorrect number of gradients "
        f"(expected {n}, got {len(x_bars)}): forward took {n} arguments "
        f"({len(tensor_slots)} of them Tensors); return one gradient per argument (None where "
        "there is none)")


def _as_gradient(function, i, x, x_bar):
    """A gradient `backward` returned as a number or array, as a Tensor of x's dtype."""
    if not isinstance(x_bar, (numbers.Number, np.ndarray, list, tuple)):
        raise TypeError(f"{function.__name__}.backward returned a {type(x_bar).__name__} as the "
                        f"gradient of argument {i}; return a Tensor (or None)")
    try:
        return Tensor(np.asarray(x_bar, dtype=x._data.dtype))
    except (TypeError, ValueError) as err:
        raise TypeError(f"{function.__name__}.backward returned a gradient for argument {i} "
                        f"that is not numeric ({err}); return a Tensor (or None)") from None


def _check_shape(function, i, x, x_bar):
    shape, expected = x_bar._data.shape, x._data.shape
    if shape == expected:
        return
    try:
        ok = np.broadcast_shapes(shape, expected) == shape
    except ValueError:
        ok = False
    if not ok:
        raise RuntimeError(f"Function {function.__name__}Backward returned an invalid gradient "
                           f"at index {i} - got {list(shape)} but expected shape compatible "
                           f"with {list(expected)} (the shape of argument {i})")


def _freed_message(name):
    return (f"Trying to backward through {name} a second time, but the tensors it saved were "
            "freed by the first backward. Pass retain_graph=True to the first backward() or "
            "grad() call if you need to backward through the graph again.")


class Function:
    """Base class of custom ops: define static `forward` and `backward`, then call `apply`."""

    _node_class = FunctionNode

    def __init_subclass__(cls, **kwargs):
        super().__init_subclass__(**kwargs)
        cls._node_class = type(cls.__name__ + "Backward", (FunctionNode,), {"__slots__": ()})

    @staticmethod
    def forward(ctx, *args, **kwargs):
        raise NotImplementedError("a Function subclass must define forward(ctx, *args)")

    @staticmethod
    def backward(ctx, *out_bars):
        raise NotImplementedError("a Function subclass must define backward(ctx, *out_bars) "
                                  "to be differentiated in reverse mode")

    jvp = None
    setup_context = None

    @classmethod
    def _run_forward(cls, ctx, args, kwargs):
        """forward(ctx, *args), or torch's split style: forward(*args) without ctx, then
        setup_context(ctx, inputs, output) saves what backward needs."""
        if cls.setup_context is None:
            return cls.forward(ctx, *args, **kwargs)
        outputs = cls.forward(*args, **kwargs)
        cls.setup_context(ctx, args, outputs)
        return outputs

    @classmethod
    def apply(cls, *args, **kwargs):
        """Run `forward` on `args` and record one node whose pullback calls `backward`."""
        if _batch_state.sizes and any(type(x) is BatchedTensor for x in args):
            return apply_batched(cls, args, kwargs)
        tangents = None
        staged = any(getattr(x, "program", None) is not None for x in args)
        if _forward_state.level:
            tangents = tuple(tangent_tensor(getattr(x, "_tangent", None)) for x in args)
            if all(t is None for t in tangents) or staged:
                # static Variables: forward's ops stage, tangents and all (the program
                # transforms differentiate them, as they do in reverse mode)
                tangents = None
        record = _grad_state.enabled and any(
            isinstance(x, Tensor) and x._requires_grad for x in args)
        ctx = FunctionCtx(tuple(record and isinstance(x, Tensor) and x._requires_grad
                                for x in args))
        primals = args if tangents is None else tuple(
            x._shallow_copy() if t is not None else x for x, t in zip(args, tangents))
        with no_grad() if not staged else contextlib.nullcontext():  # staged: differentiated
            outputs = cls._run_forward(ctx, primals, kwargs)
        single = not isinstance(outputs, (tuple, list))
        outs = _as_outputs(cls, (outputs,) if single else tuple(outputs), primals, ctx._dirty)
        if record:
            _record(cls, ctx, args, primals, outs)
        if tangents is not None:
            _push_tangents(cls, ctx, tangents, outs)
        return outs[0] if single else outs


PyLayer = Function


def once_differentiable(backward):
    """Decorator for a Function's `backward`: it runs without recording, as PyTorch's (its
    gradients can't be differentiated again)."""
    @functools.wraps(backward)
    def unrecorded(ctx, *grads):
        with no_grad():
            return backward(ctx, *grads)
    return unrecorded


def _as_outputs(cls, outputs, primals, dirty):
    """The outputs as fresh Tensors: an input or an outside leaf returned as is gets a new one,
    unless forward marked it dirty (modified in place): that one is returned itself. Results
    that are not Tensors (nor arrays) are returned as they are."""
    input_ids = {id(x) for x in primals}
    dirty_ids = {id(x) for x in dirty}
    outs = []
    for i, o in enumerate(outputs):
        if id(o) in dirty_ids:
            if o._requires_grad and o._grad_fn is None and _grad_state.enabled:
                raise RuntimeError("a leaf Variable that requires grad has been used in an "
                                   f"in-place operation ({cls.__name__}.forward marked it dirty); "
                                   "modify a copy, or the leaf under no_grad()")
        elif isinstance(o, np.ndarray):
            o = Tensor(o)
        elif not isinstance(o, Tensor):
            pass  # returned as it is, outside the graph (as torch)
        elif getattr(o, "program", None) is not None:
            o = o._shallow_copy() if id(o) in input_ids else o  # a static Variable: staged
        elif id(o) in input_ids or o._requires_grad or o._grad_fn is not None:
            o = Tensor._make(o._data, version=o._counter())
        outs.append(o)
    return tuple(outs)


def _record(cls, ctx, args, primals, results):
    outs = tuple(o for o in results if isinstance(o, Tensor))
    node = cls._node_class()
    node.prim = _Record(cls, tuple(i for i, o in enumerate(results) if isinstance(o, Tensor)),
                        len(results), ctx)
    node.params = {}
    node.inputs = args
    node.edges = tuple(_edge(x) for x in args)
    node.versions = ()
    node.hooks = node.retained = None
    node.out_version = None
    stopped = {id(t) for t in ctx._non_differentiable}
    for i, o in enumerate(outs):
        if o._data.dtype.kind in "fc" and id(o) not in stopped:
            o._grad_fn, o._out_index, o._requires_grad = node, i, True
    if len(outs) == 1:
        node.out_ref, node.out_data = weakref.ref(outs[0]), outs[0]._data
    else:
        node.out_ref = tuple(weakref.ref(o) for o in outs)
        node.out_data = tuple(o._data for o in outs)
    out_index = {id(o): i for i, o in enumerate(outs)}
    saved, versions = [], []
    for t in ctx._saved:
        if t is None:
            saved.append(None)
            continue
        i = out_index.get(id(t))
        saved.append(t if i is None else _Output(i))
        versions.append((t._counter(), t._version))
    original = {id(p): a for p, a in zip(primals, args)}
    ctx._saved = tuple(original.get(id(t), t) if isinstance(t, Tensor) else t for t in saved)
    ctx._versions = tuple(versions)
    if saved_hooks.pack is not None:
        ctx._saved = pack_function_saved(ctx._saved, outs, _edge)
        ctx._versions = ()  # (what went through hooks is not version-checked, as in PyTorch)
    ctx._node_ref = weakref.ref(node)


def _edge(x):
    if not isinstance(x, Tensor) or not x._requires_grad:
        return None
    return (x, 0) if x._grad_fn is None else (x._grad_fn, x._out_index)


def _call_jvp(cls, ctx, tangents):
    """`cls.jvp(ctx, *tangents)` as a tuple of output tangents."""
    if cls.jvp is None:
        raise NotImplementedError(f"forward mode: the Function {cls.__name__} has no jvp rule; "
                                  "define a static jvp(ctx, *tangents) returning the output "
                                  "tangents")
    out_dots = cls.jvp(ctx, *tangents)
    return tuple(out_dots) if isinstance(out_dots, (tuple, list)) else (out_dots,)


def _push_tangents(cls, ctx, tangents, outs):
    _forward_state.level -= 1
    try:
        out_dots = _call_jvp(cls, ctx, tangents)
    finally:
        _forward_state.level += 1
    if len(out_dots) != len(outs):
        raise RuntimeError(f"{cls.__name__}.jvp returned {len(out_dots)} tangents for "
                           f"{len(outs)} outputs; return one per output")
    for i, (o, o_dot) in enumerate(zip(outs, out_dots)):
        if o_dot is None or not isinstance(o, Tensor) or o._data.dtype.kind not in "fc":
            continue
        if not isinstance(o_dot, Tensor):
            o_dot = Tensor(np.asarray(o_dot, dtype=o._data.dtype))
        if o_dot.shape != o.shape:
            raise RuntimeError(f"{cls.__name__}.jvp returned a tangent of shape "
                               f"{list(o_dot.shape)} for output {i} of shape {list(o.shape)}")
        o._tangent = o_dot
