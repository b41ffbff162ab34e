"""`fluxgrad.utils.checkpoint`: trade compute for memory by recomputing a segment in backward.

`checkpoint(function, *args)` returns `function(*args)` but keeps none of the
segment's graph: backward runs `function` again (with the random state it saw the
first time, so dropout draws the same mask) and differentiates the recomputation.
The segment is one custom `Function` whose inputs are the tensor arguments plus
every leaf the segment reads (a module's parameters, tensors it closes over), so
`backward`, `grad`, `create_graph=True`, forward mode and vmap see it as one
differentiable op. To find those leaves, the segment's first run records a graph
that is walked and dropped at once; so the forward pass runs twice, once more in
backward, and the peak memory is one segment's graph rather than the whole model's.
"""
from ..autograd.function import Function
from .._core.engine import grad
from .._core.grad_mode import enable_grad, is_grad_enabled
from .._core.tensor import Tensor
from ..random import get_rng_state, set_rng_state

__all__ = ["checkpoint", "checkpoint_sequential"]


class _Call:
    """The segment: its function, the non-tensor arguments, and the random state to replay."""

    def __init__(self, function, args, kwargs, rng_state):
        self.function, self.kwargs, self.rng_state = function, kwargs, rng_state
        self.slots = [i for i, a in enumerate(args) if isinstance(a, Tensor)]
        self.args = list(args)

    def run(self, tensors):
        args = list(self.args)
        for slot, t in zip(self.slots, tensors):
            args[slot] = t
        if self.rng_state is None:
            return self.function(*args, **self.kwargs)
        saved = get_rng_state()
        set_rng_state(self.rng_state)
        try:
            return self.function(*args, **self.kwargs)
        finally:
            set_rng_state(saved)


class _Segment(Function):
    @staticmethod
    def forward(ctx, call, *tensors):
        ctx.call = call
        ctx.save_for_backward(*tensors)
        return call.run(tensors[:len(call.slots)])

    @staticmethod
    def backward(ctx, *out_bars):
        call, tensors = ctx.call, ctx.saved_tensors
        n = len(call.slots)
        create_graph = is_grad_enabled()
        # without create_graph the recomputation starts from fresh leaves, so the inner
        # grad stops at the segment's inputs
        inputs = tensors[:n] if create_graph else tuple(
            t.detach().requires_grad_(t.requires_grad) for t in tensors[:n])
        with enable_grad():
            outs = call.run(inputs)
        outs = outs if isinstance(outs, tuple) else (outs,)
        wrt = [t for t in inputs + tensors[n:] if t.requires_grad]
        pairs = [(o, g) for o, g in zip(outs, out_bars) if g is not None and o.requires_grad]
        found = grad([o for o, _ in pairs], wrt, [g for _, g in pairs], retain_graph=True,
                     create_graph=create_graph, allow_unused=True) if pairs and wrt else ()
        by_id = dict(zip(map(id, wrt), found))
        return (None,) + tuple(by_id.get(id(t)) for t in inputs + tensors[n:])

    @staticmethod
    def jvp(ctx, call_dot, *tangents):
        from ..func import jvp
        call, tensors = ctx.call, ctx.saved_tensors
        tangents = tuple(t if t is not None else x.detach() * 0
                         for x, t in zip(tensors, tangents))
        n = len(call.slots)
        _, out_dot = jvp(lambda *ts: call.run(ts[:n]), tensors, tangents)
        return out_dot


def _physical(t):
    """The tensor that carries the graph (under vmap, the batched tensor's physical one)."""
    while getattr(t, "_physical", None) is not None:
        t = t._physical
    return t


def _leaves(outputs, stop):
    """The leaves that require grad reachable from `outputs`, not walking past `stop` (the
    segment's tensor arguments)."""
    stop = [_physical(t) for t in stop]
    stop_nodes = {(id(t.grad_fn), t._out_index) for t in stop if t.grad_fn is not None}
    stop_leaves = {id(t) for t in stop}
    found, seen = {}, set()
    todo = [(o.grad_fn, o._out_index) if o.grad_fn is not None else (o, None)
            for o in map(_physical, outputs) if o.requires_grad]
    while todo:
        item, index = todo.pop()
        if index is None or type(item).__name__ == "AccumulateGrad":
            leaf = item if index is None else item.variable
            if id(leaf) not in stop_leaves:
                found.setdefault(id(leaf), leaf)
            continue
        if (id(item), index) in stop_nodes or id(item) in seen:
            continue
        seen.add(id(item))
        for node, i in item.next_functions:
            if node is not None:
                todo.append((node, i))
    return list(found.values())


def checkpoint(function, *args, use_reentrant=None, preserve_rng_state=True,
               determinism_check=None, debug=None, **kwargs):
    """`function(*args, **kwargs)`, its inner graph recomputed in backward instead of kept."""
    if not is_grad_enabled():
        return function(*args, **kwargs)
    rng_state = get_rng_state() if preserve_rng_state else None
    tensors = [a for a in args if isinstance(a, Tensor)]
    first = function(*args, **kwargs)
    outputs = first if isinstance(first, tuple) else (first,)
    if not all(isinstance(o, Tensor) for o in outputs):
        raise TypeError("checkpoint: the function must return a tensor or a tuple of tensors, "
                        f"got {type(first).__name__}")
    leaves = _leaves(outputs, tensors)
    del first, outputs  # the segment's graph goes here
    call = _Call(function, args, kwargs, rng_state)
    return _Segment.apply(call, *tensors, *leaves)


def checkpoint_sequential(functions, segments, input, use_reentrant=None, **kwargs):
    """Run `functions` (a Sequential or a list of modules) in `segments` checkpointed chunks."""
    functions = list(functions.children()) if hasattr(functions, "children") else list(functions)
    if not 1 <= int(segments) <= max(len(functions), 1):
        raise ValueError(f"checkpoint_sequential: segments must be between 1 and the "
                         f"{len(functions)} functions, got {segments}")
    size = -(-len(functions) // int(segments))

    def run(chunk):
        def forward(x):
            for f in chunk:
                x = f(x)
            return x
        return forward
    for start in range(0, len(functions), size):
        input = checkpoint(run(functions[start:start + size]), input, **kwargs)
    return input
