"""Reverse mode: Kahn's algorithm over dependency counts, no recursion, each node once.

Gradients that meet from several paths are summed before a node runs; a
cotangent whose shape or dtype differs from its input's (a broadcast operand,
a promoted dtype) is reduced with `sum_to` / cast here, in one place, so the
rules need not. Rules run under `no_grad` unless `create_graph` is set, in which
case the gradients are themselves recorded and can be differentiated again.

A pass that records nothing (no `create_graph`, no transform or static trace open)
is a plain pass: its cotangents are plain arrays, and the rules of primitives marked
`array_rules` run on the arrays themselves, with no Tensor made or op dispatched;
other nodes get their cotangents wrapped as Tensors for the rule and unwrapped after.
Hooks, `.grad` and `grad()`'s results see Tensors either way.
"""
import sys
import threading

import numpy as np

from . import batching
from .batching import BatchedTensor
from .grad_mode import _set as _set_grad_mode, state as _grad_state
from .node import Node, anomaly, topological
from .open_levels import state as _open_levels
from .static_mode import state as _static
from .strict import state as _strict
from .tensor import Tensor, writes as _writes

# Set by fluxgrad.ops: differentiable `sum_to(x, shape)`, `cast(x, dtype)`, `ones_like(x)`,
# `zeros_like(x)`, `add(x, y)`, `clone(x)`, and the records `sum_to_p`, `add_p` whose impls a
# plain pass calls; the engine knows no op of its own.
OPS = {}

_make = Tensor._make
_ndarray = np.ndarray
_asarray = np.asarray

# One entry per backward pass now running: [whether it accumulates into .grad (backward(),
# not grad()), the callbacks queued by hooks, called when the pass ends].
class _Passes(threading.local):
    """The backward passes running in this thread, innermost last: [accumulating, callbacks]."""
    def __init__(self):
        self.stack = []


_passes = _Passes()


def queue_callback(fn):
    """Call `fn()` when the backward pass now running has finished (as torch's
    `Variable._execution_engine.queue_callback`); DistributedDataParallel waits for its
    gradient all-reduces there."""
    if not _passes.stack:
        raise RuntimeError("queue_callback() needs a backward pass running; call it from a "
                           "tensor hook")
    _passes.stack[-1][1].append(fn)


def in_accumulating_pass():
    """Whether the innermost backward pass now running stores gradients into `.grad`."""
    return bool(_passes.stack) and _passes.stack[-1][0]


def backward(tensors, grad_tensors=None, retain_graph=None, create_graph=False, inputs=None):
    """`tensor.backward()` for several roots at once: accumulate into leaves' `.grad`."""
    tensors = _as_tuple(tensors)
    if batching.state.sizes and any(type(t) is BatchedTensor for t in tensors):
        raise RuntimeError("backward() inside vmap: the gradients of the examples would all be "
                           "summed into the same .grad; use fluxgrad.func.grad or vjp inside "
                           "the vmapped function instead")
    seeds = _seeds(tensors, grad_tensors, "backward")
    if retain_graph is None:
        retain_graph = create_graph
    if inputs is not None:
        inputs = _as_tuple(inputs)
        captured = run(tensors, seeds, inputs, retain_graph, create_graph, allow_unused=True)
        for x, g in zip(inputs, captured):
            if g is not None:
                _accumulate(x, g, create_graph)  # may be a hook's or a seed's: copied
        return
    run(tensors, seeds, None, retain_graph, create_graph)


def grad(outputs, inputs, grad_outputs=None, retain_graph=None, create_graph=False,
         allow_unused=False):
    """Gradients of `outputs` (weighted by `grad_outputs`) w.r.t. `inputs`, as a tuple.

    Leaves' `.grad` is left untouched. With `create_graph=True` the results are
    differentiable, to any order.
    """
    outputs = _as_tuple(outputs)
    inputs = _as_tuple(inputs)
    if batching.state.sizes and any(type(t) is BatchedTensor for t in outputs + inputs):
        return _batched_grad(outputs, inputs, grad_outputs, retain_graph, create_graph,
                             allow_unused)
    for i, x in enumerate(inputs):
        if not isinstance(x, Tensor):
            raise TypeError(f"grad(): inputs[{i}] is a {type(x).__name__}, not a Tensor")
        if not x._requires_grad:
            raise RuntimeError(f"grad(): inputs[{i}] (shape {list(x.shape)}) does not require "
                               "grad, so it cannot be part of the graph; set requires_grad=True "
                               "on it before computing the outputs")
    seeds = _seeds(outputs, grad_outputs, "grad")
    if retain_graph is None:
        retain_graph = create_graph
    return run(outputs, seeds, inputs, retain_graph, create_graph, allow_unused)


def _batched_grad(outputs, inputs, grad_outputs, retain_graph, create_graph, allow_unused):
    """`grad` inside vmap: the same backward pass on the physical tensors, for every example
    at once; the examples' gradients come back batched like their inputs."""
    seeds = _seeds(outputs, grad_outputs, "grad")
    roots, root_seeds = [], []
    for y, seed in zip(outputs, seeds):
        found, plain = batching.layers(y)
        roots.append(plain)
        root_seeds.append(batching.to_physical_like(seed, found))
    per_input = [batching.layers(x) for x in inputs]
    batched_levels = {level for y in outputs for level, _ in batching.layers(y)[0]}
    for i, (found, _) in enumerate(per_input):
        shared = batched_levels - {level for level, _ in found}
        if shared:
            raise RuntimeError(
                f"grad() inside vmap: inputs[{i}] is the same for every example but the outputs "
                "differ between examples, so its gradient would mix the examples; use "
                "fluxgrad.func.grad (or vjp), which gives each example its own gradient")
    grads = grad(roots, [plain for _, plain in per_input], root_seeds, retain_graph,
                 create_graph, allow_unused)
    return tuple(None if g is None else batching.rebuild(g, found)
                 for g, (found, _) in zip(grads, per_input))


def run(roots, seeds, capture, retain_graph, create_graph, allow_unused=False):
    """The backward pass. With `capture`, return their gradients instead of accumulating."""
    stack = _passes.stack
    stack.append([capture is None, []])
    try:
        result = _pass(roots, seeds, capture, retain_graph, create_graph, allow_unused)
    finally:
        callbacks = stack.pop()[1]
    for fn in callbacks:
        fn()
    return result


def _pass(roots, seeds, capture, retain_graph, create_graph, allow_unused):
    deps = _count_dependencies(roots)
    plain = _is_plain(roots, create_graph)
    buffers = {}
    captured = None
    capture_ids = needed = None
    captured_nodes = ()  # ids of the nodes whose outputs grad() returns
    if capture is not None:
        captured = [None] * len(capture)
        capture_ids = {}
        captured_nodes = set()
        leaves_only = True  # whether every captured tensor is a leaf
        for i, x in enumerate(capture):  # (loops, not comprehensions: one call fewer each)
            if x._grad_fn is None:
                key = id(x)
            else:
                key = id(x._grad_fn)
                leaves_only = False
            captured_nodes.add(key)
            capture_ids.setdefault((key, x._out_index), []).append(i)
        needed = _needed(roots, captured_nodes, leaves_only, deps)
    ready = []
    exposed = set()
    for seed in seeds:
        exposed.add(id(seed._data))
    stores = []  # (tensor, gradient) for .grad, stored once every hook has run
    if plain:
        seeds = [seed._data for seed in seeds]
        pullback, add = _plain_pullback, OPS["add_p"].impl
    else:
        pullback, add = _pullback, OPS["add"]
    previous_mode = _grad_state.enabled  # (not `with set_grad_enabled`: measured slower)
    _set_grad_mode(create_graph)
    try:
        for root, seed in zip(roots, seeds):
            node = root._grad_fn
            _add_to_buffer(buffers, root if node is None else node, root._out_index, seed, add)
        for root in roots:
            node = root._grad_fn
            if node is None:
                if root not in deps and root in buffers:  # no other root's graph reaches it
                    _finish_leaf(root, buffers.pop(root)[0], capture_ids, captured, exposed,
                                 stores, plain)
            elif deps[node] == 0:
                deps[node] = -1
                ready.append(node)
        pop_buffer, get_buffer = buffers.pop, buffers.get
        while ready:
            node = ready.pop()
            prim = node.prim
            out_bar = pop_buffer(node, None)
            post = None  # the node's own hooks to call after its rule (`grad_fn.register_hook`)
            if out_bar is not None:
                if prim.n_outputs != 1:
                    _pad(out_bar, len(node.out_ref))
                if node.hooks or node.retained or id(node) in captured_nodes:
                    out_bar, post = _run_hooks(node, out_bar, capture_ids, captured, exposed,
                                               stores, plain)
            edges = node.edges
            if out_bar is None or (needed is not None and id(node) not in needed):
                x_bars = (None,) * len(edges)
            else:
                x_bars = pullback(node, out_bar)
                if post:
                    x_bars = _run_post_hooks(node, post, x_bars, out_bar, exposed, plain)
                if anomaly.enabled:
                    anomaly.check(node, x_bars)
                if prim.runs_user_code:
                    exposed.update(id(x_bar if plain else x_bar._data) for x_bar in x_bars
                                   if x_bar is not None)
                if not retain_graph:
                    node.release()
            i = -1  # (an index, not zip: measured cheaper for a node's few edges)
            for edge in edges:
                i += 1
                if edge is None:
                    continue
                target = edge[0]
                x_bar = x_bars[i]
                if x_bar is not None:
                    slot = get_buffer(target)
                    if slot is None:
                        index = edge[1]
                        buffers[target] = [x_bar] if index == 0 else [None] * index + [x_bar]
                    else:
                        _add_into(slot, edge[1], x_bar, add)
                count = deps[target] - 1
                deps[target] = count
                if count == 0:
                    if isinstance(target, Node):
                        ready.append(target)
                    elif target in buffers:
                        _finish_leaf(target, pop_buffer(target)[0], capture_ids, captured,
                                     exposed, stores, plain)
        # the last node's cotangents may hold the memory of a gradient `stores` can take over
        out_bar = x_bars = x_bar = None
        for t, g in stores:
            _accumulate(t, g, create_graph, exposed)
    finally:
        _set_grad_mode(previous_mode)
    if capture is None:
        return None
    if not allow_unused:
        for i, g in enumerate(captured):
            if g is None:
                raise RuntimeError(
                    f"One of the differentiated tensors (inputs[{i}], shape "
                    f"{list(capture[i].shape)}) appears to not have been used in the graph. "
                    "Pass allow_unused=True if this is what you want (its gradient is then None).")
    return tuple(captured)


def _is_plain(roots, create_graph):
    """Whether the pass records nothing, so that its cotangents can be plain arrays: no
    `create_graph`, no vmap or forward-mode level open, no static trace (whose values are
    Variables), no anomaly mode (whose checks read Tensors)."""
    if create_graph or _open_levels.count or anomaly.enabled:
        return False
    if _static.armed and (_static.enabled or any(type(r) is not Tensor for r in roots)):
        return False
    return True


def _pullback(node, out_bar):
    inputs = node.inputs
    if inputs is None:
        inputs = node.saved_inputs()  # packed by saved-tensor hooks, or freed: raises
    prim = node.prim
    if (node.versions is not None or node.out_version is not None) and (
            prim.runs_user_code or node.writes != _writes.count):
        node.check_versions()  # (a custom Function's node keeps no `writes`)
    edges = node.edges
    params = node.params
    if prim.n_outputs == 1:
        out = None
        if node.out_ref is not None:
            out = node.out_ref()
            if out is None:
                out = node.outputs()
        out_bar = out_bar[0]
    else:
        out = node.outputs()
        if not prim.runs_user_code:  # a custom Function fills in zeros as its ctx says
            out_bar = tuple(g if g is not None else (
                OPS["zeros_like"](o) if o.is_floating_point() else None)
                for g, o in zip(out_bar, out))
    rules = prim.vjp_rules
    if rules is None:
        x_bars = list(prim.vjp_all(out_bar, out, *inputs, **params))
        _pad(x_bars, len(edges))  # (the pass reads one per edge)
        for i, (x_bar, edge, x) in enumerate(zip(x_bars, edges, inputs)):
            if x_bar is not None and edge is not None:
                x_bars[i] = _conform(x_bar, x)
        return x_bars
    x_bars = []
    i = -1  # (an index, not zip: measured cheaper for a node's few inputs)
    for edge in edges:
        i += 1
        if edge is None:
            x_bars.append(None)
            continue
        x = inputs[i]
        x_bar = rules[i](out_bar, out, *inputs, **params) if params else \
            rules[i](out_bar, out, *inputs)
        if x_bar is not None:
            got, want = x_bar._data, x._data
            if got.shape != want.shape or (got.dtype is not want.dtype and
                                           got.dtype != want.dtype):
                x_bar = _conform(x_bar, x)
        x_bars.append(x_bar)
    return x_bars


def _tensor(g):
    """A plain pass's cotangent as a Tensor (NumPy gives a scalar for the sum of two 0-d
    arrays: it becomes a 0-d array again)."""
    return _make(g if type(g) is _ndarray else _asarray(g))


def _plain_pullback(node, out_bar):
    """`_pullback` in a plain pass: array cotangents in and out."""
    prim = node.prim
    if not prim.array_rules:
        x_bars = _pullback(node, [None if g is None else _tensor(g) for g in out_bar])
        return [None if x_bar is None else x_bar._data for x_bar in x_bars]
    inputs = node.inputs
    if inputs is None:
        inputs = node.saved_inputs()  # packed by saved-tensor hooks, or freed: raises
    if node.writes != _writes.count and (node.versions is not None or
                                         node.out_version is not None):
        node.check_versions()
    arrays = []
    for x in inputs:
        arrays.append(x._data if isinstance(x, Tensor) else x)
    out, params, out_bar = node.out_data, node.params, out_bar[0]
    rules = prim.vjp_rules
    x_bars = []
    i = -1  # (an index, not zip: measured cheaper for a node's few inputs)
    for edge in node.edges:
        i += 1
        if edge is None:
            x_bars.append(None)
            continue
        x = arrays[i]
        x_bar = rules[i](out_bar, out, *arrays, **params) if params else \
            rules[i](out_bar, out, *arrays)
        if type(x_bar) is not _ndarray:  # a Tensor from an op that took no array, a NumPy scalar
            x_bar = x_bar._data if isinstance(x_bar, Tensor) else _asarray(x_bar)
        if x_bar.shape != x.shape:
            x_bar = OPS["sum_to_p"].impl(x_bar, shape=x.shape)
        dtype = x.dtype
        if x_bar.dtype is not dtype and x_bar.dtype != dtype:
            # a real input's cotangent is the real part of a complex one (as PyTorch)
            x_bar = (x_bar.real if x_bar.dtype.kind == "c" and dtype.kind != "c" else
                     x_bar).astype(dtype)
        x_bars.append(x_bar)
    return x_bars


def _conform(x_bar, x):
    """`x_bar` summed over the dimensions broadcasting added and cast to `x`'s dtype."""
    got, want = x_bar._data, x._data
    if got.shape != want.shape:
        x_bar = OPS["sum_to"](x_bar, want.shape)
    if x_bar._data.dtype != want.dtype:
        x_bar = OPS["cast"](x_bar, x.dtype)
    return x_bar


def _run_hooks(node, out_bar, capture_ids, captured, exposed, stores, plain):
    """Tensor hooks on the node's outputs, the node's pre-hooks, `retain_grad`, and `grad()`'s
    captures: they see Tensors (a plain pass's arrays are wrapped, and unwrapped after).
    Returns the cotangents and the node's post-hooks (None if it has none)."""
    if plain:
        out_bar = [None if g is None else _tensor(g) for g in out_bar]
    hooks = node.hooks
    if hooks:
        for index, table in hooks.items():
            if index.__class__ is str:  # "pre" and "post": the node's own hooks
                continue
            g = out_bar[index]
            if g is None:
                continue
            for hook in list(table.values()):
                exposed.add(id(g._data))
                new = hook(g)
                if new is not None:
                    g = new
                    exposed.add(id(g._data))
            out_bar[index] = g
        if hooks.get("pre"):
            for hook in list(hooks["pre"].values()):
                exposed.update(id(g._data) for g in out_bar if g is not None)
                new = hook(tuple(out_bar))
                if new is not None:
                    out_bar = _replaced(node, "pre-hook", out_bar, new, exposed)
    if node.retained:
        for index, ref in node.retained.items():
            t = ref()
            if t is not None and out_bar[index] is not None:
                stores.append((t, out_bar[index]))
    if capture_ids:
        for index, g in enumerate(out_bar):
            slots = capture_ids.get((id(node), index))
            if slots:
                for i in slots:
                    captured[i] = g
    post = hooks.get("post") if hooks else None
    return ([None if g is None else g._data for g in out_bar] if plain else out_bar), post


def _run_post_hooks(node, post, x_bars, out_bar, exposed, plain):
    """The node's post-hooks: `hook(grad_inputs, grad_outputs)`; a returned tuple replaces
    the gradients of the inputs."""
    if plain:
        x_bars = [None if g is None else _tensor(g) for g in x_bars]
        out_bar = [None if g is None else _tensor(g) for g in out_bar]
    x_bars = list(x_bars)
    for hook in list(post.values()):
        exposed.update(id(g._data) for g in x_bars if g is not None)
        new = hook(tuple(x_bars), tuple(out_bar))
        if new is not None:
            x_bars = _replaced(node, "hook", x_bars, new, exposed)
    return [None if g is None else g._data for g in x_bars] if plain else x_bars


def _replaced(node, kind, grads, new, exposed):
    """The gradients a node's hook returned, checked against the ones it was given."""
    new = [new] if isinstance(new, Tensor) else list(new)
    if len(new) != len(grads):
        raise RuntimeError(f"the {kind} of {node.name()} returned {len(new)} gradients but was "
                           f"given {len(grads)}; return one per gradient (None where there is "
                           "none)")
    exposed.update(id(g._data) for g in new if g is not None)
    return new


def _finish_leaf(leaf, g, capture_ids, captured, exposed, stores, plain):
    if plain:
        g = _tensor(g)
    if leaf._hooks:
        for hook in list(leaf._hooks.values()):
            exposed.add(id(g._data))
            new = hook(g)
            if new is not None:
                g = new
                exposed.add(id(g._data))
    if capture_ids is not None:
        for i in capture_ids.get((id(leaf), 0), ()):
            captured[i] = g
        return
    stores.append((leaf, g))


def _accumulate(leaf, g, create_graph, exposed=None):
    """Add `g` into `leaf.grad` (`exposed`: see `_store_grad`); a view taken under no_grad
    of a tensor that requires grad keeps none, as in PyTorch."""
    if not leaf._requires_grad or getattr(leaf, "_creation", None) == "no_grad":
        return
    if type(g) is BatchedTensor:
        raise RuntimeError(f"backward(): the gradient of a leaf of shape {list(leaf.shape)} "
                           "differs between the examples of a vmap and cannot be stored in "
                           ".grad; use fluxgrad.grad or fluxgrad.func.vjp to get it")
    if g._data.shape != leaf._data.shape:
        g = OPS["sum_to"](g, leaf._data.shape)
    if g._data.dtype != leaf._data.dtype:
        g = OPS["cast"](g, leaf.dtype)
    _store_grad(leaf, g, create_graph, exposed)
    hooks = getattr(leaf, "_post_accumulate_hooks", None)  # (a slot most tensors never set)
    if hooks:
        for hook in list(hooks.values()):
            if hook(leaf) is not None:
                raise RuntimeError("Tensor post accumulate grad hooks should return None; "
                                   f"{getattr(hook, '__name__', hook)!r} returned a value")


_grad_lock = threading.Lock()


def _store_grad(t, g, create_graph, exposed):
    """Add `g` into `t.grad`, the one place where gradients are stored.

    `.grad` must be a buffer of its own: later passes add into it in place, and users zero
    and clip it in place. So `g` is stored without a copy only when it owns its memory, is
    writable, and no user code has seen it: `exposed` holds the ids of the arrays of seeds,
    of what hooks were shown and returned, of what custom backwards returned and of what
    went into a `.grad` already (None: everything may have been seen). The pass stores
    gradients after its last hook has run, so that `exposed` is complete. The lock makes
    concurrent backward passes into one leaf lose no update.
    """
    data = g._data
    if data.base is not None and exposed is not None and not g._requires_grad:
        data = _owner_if_sole_view(data, exposed)
        if data.base is None:
            g = Tensor._make(data)
    private = (exposed is not None and data.base is None and data.flags.writeable
               and id(data) not in exposed)
    with _grad_lock:
        old = t._grad
        if old is None:
            if private:
                exposed.add(id(data))
            elif create_graph:
                g = OPS["clone"](g)
            else:
                g = Tensor._make(data.copy())
            t._grad = g if create_graph else (g.detach() if g._requires_grad else g)
        elif create_graph or old._requires_grad:
            t._grad = old + g if create_graph else Tensor._make(old._data + data)
        elif old._data.flags.writeable:
            old._data += data
        else:  # a read-only tensor the user assigned to .grad
            t._grad = Tensor._make(old._data + data)


def _owner_if_sole_view(data, exposed):
    """The array owning `data`'s memory when `data` is all of it, in its layout, and nothing
    else holds it (a weight's gradient comes back transposed twice: a view of a fresh
    product); else `data`. Only the base's own `.base` reference, this frame's and
    getrefcount's argument may hold it: any other view of it would hold it too."""
    base = data.base
    if (type(base) is _ndarray and id(base) not in exposed and id(data) not in exposed
            and base.shape == data.shape and base.strides == data.strides
            and base.dtype == data.dtype
            and base.__array_interface__["data"][0] == data.__array_interface__["data"][0]
            and sys.getrefcount(base) <= 3):
        return base
    return data


def _add_to_buffer(buffers, target, index, g, add):
    slot = buffers.get(target)
    if slot is None:
        buffers[target] = [g] if index == 0 else [None] * index + [g]
    else:
        _add_into(slot, index, g, add)


def _add_into(slot, index, g, add):
    """Sum `g` into the gradient buffer `slot` of a node's outputs (grown as outputs arrive)."""
    if index >= len(slot):
        _pad(slot, index + 1)
    prev = slot[index]
    slot[index] = g if prev is None else add(prev, g)


def _pad(slot, n):
    if len(slot) < n:
        slot.extend([None] * (n - len(slot)))


def _count_dependencies(roots):
    """For every node and leaf reachable from the roots: how many edges point at it."""
    deps = {}
    stack = []
    for root in roots:
        node = root._grad_fn
        if node is not None and node not in deps:
            deps[node] = 0
            stack.append(node)
    get = deps.get
    while stack:
        for edge in stack.pop().edges:
            if edge is None:
                continue
            target = edge[0]
            count = get(target)
            if count is None:
                deps[target] = 1
                if isinstance(target, Node):
                    stack.append(target)
            else:
                deps[target] = count + 1
    return deps


def _needed(roots, targets, leaves_only, deps):
    """Ids of the nodes from which some captured tensor (`targets`: the ids of their nodes,
    or of themselves for leaves) can be reached (the rest is pruned); None when that is every
    node: every node reaches a leaf, so when only leaves are captured (`leaves_only`) and each
    leaf in the graph (`deps` holds them) is among them, nothing is pruned."""
    if leaves_only:
        for t in deps:
            if id(t) not in targets and not isinstance(t, Node):
                break
        else:
            return None
    needed = set()
    for node in topological([r._grad_fn for r in roots if r._grad_fn is not None]):
        for edge in node.edges:
            if edge is not None and (id(edge[0]) in targets or id(edge[0]) in needed):
                needed.add(id(node))
                break
    return needed


def _seeds(tensors, grad_tensors, caller):
    if grad_tensors is None:
        grad_tensors = (None,) * len(tensors)
    else:
        grad_tensors = _as_tuple(grad_tensors)
    if len(grad_tensors) != len(tensors):
        raise ValueError(f"{caller}(): got {len(tensors)} tensors but {len(grad_tensors)} "
                         "gradients; pass one gradient per tensor")
    seeds = []
    for i, (t, g) in enumerate(zip(tensors, grad_tensors)):
        if not isinstance(t, Tensor):
            raise TypeError(f"{caller}(): outputs[{i}] is a {type(t).__name__}, not a Tensor")
        if not t.requires_grad:
            raise RuntimeError(
                f"{caller}(): the tensor (shape {list(t.shape)}) does not require grad and has no "
                "grad_fn: it was not computed from any tensor with requires_grad=True. Set "
                "requires_grad=True (stop_gradient=False) on the inputs you want gradients for, "
                "and don't compute it under no_grad().")
        if g is None:
            if t._data.dtype.kind == "c":
                raise RuntimeError(f"{caller}(): grad can be implicitly created only for real "
                                   f"scalar outputs but got {t.dtype}; reduce the output to a "
                                   "real number first (e.g. out.abs().sum()), or pass a gradient")
            if _strict.pytorch and t._data.size != 1:
                raise RuntimeError(f"{caller}(): grad can be implicitly created only for scalar "
                                   f"outputs, and outputs[{i}] has shape {list(t.shape)}; pass "
                                   "a gradient (strict PyTorch mode is on)")
            seeds.append(OPS["ones_like"](t))
            continue
        if not isinstance(g, Tensor):
            g = Tensor(g, dtype=t.dtype)
        if g.shape != t.shape:
            raise RuntimeError(f"Mismatch in shape: grad_output[{i}] has a shape of "
                               f"{list(g.shape)} and output[{i}] has a shape of "
                               f"{list(t.shape)}; pass {caller}() one gradient of each "
                               "output's shape")
        seeds.append(g)
    return seeds


def _as_tuple(x):
    if isinstance(x, Tensor):
        return (x,)
    return tuple(x)
