"""`forward_grad`: push tangents forward along a graph that eager mode already recorded.

Each node on a path from `inputs` to `outputs` gets its output tangent from its
op's JVP rule, in topological order; no backward pass is run. The rules are
fluxgrad ops, so with grad enabled the result is itself differentiable.
"""
from .._core import batching
from .._core.node import topological
from .._core.static_mode import state as _static_state
from .._core.tensor import Tensor
from ..creation import ones_like


def forward_grad(outputs, inputs, grad_inputs=None):
    """Derivatives of `outputs` along `grad_inputs` (ones by default) at `inputs`.

    Returns a tensor for a single output, else a tuple (None for an output that
    does not depend on the inputs). On static Variables the tangent equations are staged.
    """
    if _static_state.armed and not _batched_among(outputs, inputs):
        from ..static.transforms import forward_grad as static_forward_grad, is_static
        if is_static(outputs, inputs):
            return static_forward_grad(outputs, inputs, grad_inputs)
    single = isinstance(outputs, Tensor)
    outputs = (outputs,) if single else tuple(outputs)
    inputs = (inputs,) if isinstance(inputs, Tensor) else tuple(inputs)
    if grad_inputs is None:
        grad_inputs = tuple(ones_like(x) for x in inputs)
    else:
        grad_inputs = (grad_inputs,) if isinstance(grad_inputs, Tensor) else tuple(grad_inputs)
    if len(grad_inputs) != len(inputs):
        raise ValueError(f"forward_grad: {len(inputs)} inputs but {len(grad_inputs)} grad_inputs")
    if batching.state.sizes and any(type(t) is batching.BatchedTensor for t in outputs + inputs):
        results = _batched(outputs, inputs, grad_inputs)
        return results[0] if single else results
    tangents = {}
    for i, (x, v) in enumerate(zip(inputs, grad_inputs)):
        if not x.requires_grad:
            raise RuntimeError(f"forward_grad: inputs[{i}] does not require grad, so no graph "
                               "from it was recorded; set requires_grad=True before computing "
                               "the outputs")
        if tuple(v.shape) != tuple(x.shape):
            raise ValueError(f"forward_grad: grad_inputs[{i}] has shape {list(v.shape)}, "
                             f"inputs[{i}] has shape {list(x.shape)}")
        tangents[_key(x)] = v
    for node in topological([y._grad_fn for y in outputs if y._grad_fn is not None]):
        in_tangents = tuple(None if edge is None else tangents.get((id(edge[0]), edge[1]))
                            for edge in node.edges)
        if all(t is None for t in in_tangents):
            continue
        inputs = node.saved_inputs()  # (unpacked when saved-tensor hooks packed them)
        if node.versions is not None or node.out_version is not None:
            node.check_versions()  # the rules read the inputs: they must be as recorded
        out = node.outputs() if node.out_ref is not None else None
        out_dot = node.prim.jvp(in_tangents, out, *inputs, **node.params)
        if node.prim.n_outputs == 1:
            out_dot = (out_dot,)
        for index, t in enumerate(out_dot):
            if t is not None and (id(node), index) not in tangents:
                tangents[(id(node), index)] = t
    results = tuple(_broadcast(tangents.get(_key(y)), y) for y in outputs)
    return results[0] if single else results


def _batched_among(*groups):
    """Whether vmap is on and a tensor among `groups` is batched (static Variables are then
    handled below, through their physical Variables)."""
    return bool(batching.state.sizes) and any(
        type(t) is batching.BatchedTensor
        for g in groups for t in ([g] if isinstance(g, Tensor) else g))


def _batched(outputs, inputs, grad_inputs):
    """Inside vmap: the same pass on the physical tensors, for every example at once."""
    out_layers = [batching.layers(y) for y in outputs]
    in_layers = [batching.layers(x) for x in inputs]
    dots = forward_grad([plain for _, plain in out_layers], [plain for _, plain in in_layers],
                        [batching.to_physical_like(_spread_by_tangent(v, found), found)
                         for v, (found, _) in zip(grad_inputs, in_layers)])
    return tuple(None if d is None else batching.rebuild(d, found)
                 for d, (found, _) in zip(dots, out_layers))


def _spread_by_tangent(v, found):
    """`v`, batched at each level of `found` where only its (outer forward mode) tangent is:
    repeated as it is, its physical tensor would carry a batched tangent, which the batch
    layers rebuilt around the result would wrap a second time."""
    for level, _ in found:
        if not batching.is_batched_at(v, level):
            tangent = batching.tangent_of(v)
            if tangent is not None and batching.is_batched_at(tangent, level):
                v = batching.spread(v, level)
    return v


def _key(x):
    return (id(x._grad_fn), x._out_index) if x._grad_fn is not None else (id(x), 0)


def _broadcast(t, y):
    if t is None or not isinstance(t, Tensor):
        return t
    return t if t.shape == y.shape else t.broadcast_to(y.shape)
