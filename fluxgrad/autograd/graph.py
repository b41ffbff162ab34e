"""`fluxgrad.autograd.graph`, PyTorch's `torch.autograd.graph`: hooks on the tensors that
backward keeps, and the graph's public view.

    with saved_tensors_hooks(pack, unpack):
        y = a * b          # pack(a), pack(b): the node keeps what pack returned
    y.sum().backward()     # unpack(...) of each, when the node's rule reads it

As in PyTorch: only the innermost pair of hooks applies (each saved tensor keeps the unpack
hook of the pair that packed it); pack runs under no_grad, once per tensor a node saves (the
inputs its rules read, its output when the rule reads that); unpack runs each time a backward
pass reads the value, and the tensor it returns takes the graph position of the one it stands
for, so `create_graph=True` differentiates through it. Tensors that went through hooks are not
checked for in-place modification (the hooks may have copied them). Hooks are global to the
process, not per thread. `allow_mutation_on_saved_tensors` is built on them.

The graph's view: `Node` (what `isinstance(t.grad_fn, Node)` tests), `GradientEdge` and
`get_gradient_edge`, `increment_version` and `register_multi_grad_hook`.
"""
import abc
import collections
import contextlib
import types

from .._core.grad_mode import enable_grad, is_grad_enabled, no_grad
from .._core.engine import queue_callback
from .._core.node import AccumulateGrad, Node as _Node, is_stand_in, saved_hooks, stand_in
from .._core.tensor import Tensor
from ..ops.alias import alias

__all__ = ["saved_tensors_hooks", "save_on_cpu", "disable_saved_tensors_hooks",
           "allow_mutation_on_saved_tensors", "Node", "GradientEdge", "get_gradient_edge",
           "increment_version", "register_multi_grad_hook"]

# `stack`: the (pack, unpack) pairs entered, innermost last; `disabled`: the message that
# `disable_saved_tensors_hooks` gives for entering a pair now (None: allowed);
# `mutation_context`: the open `allow_mutation_on_saved_tensors`, if any
_state = types.SimpleNamespace(stack=[], disabled=None, mutation_context=None)


class saved_tensors_hooks:
    """Context manager: `pack_hook(tensor)` runs when an op saves `tensor` for backward and
    may return anything; `unpack_hook(packed)` gets that back when backward needs the value
    and must return a Tensor with the same content."""

    def __init__(self, pack_hook, unpack_hook):
        self.pack_hook, self.unpack_hook = pack_hook, unpack_hook

    def __enter__(self):
        if _state.disabled is not None:
            raise RuntimeError(_state.disabled)
        _state.stack.append((self.pack_hook, self.unpack_hook))
        saved_hooks.pack = _pack_node
        return self

    def __exit__(self, *exc):
        _state.stack.pop()
        if not _state.stack:
            saved_hooks.pack = None


class save_on_cpu(saved_tensors_hooks):
    """Saved tensors are kept on the CPU and moved back to their device when backward needs
    them (fluxgrad computes on the CPU, so they stay where they are)."""

    def __init__(self, pin_memory=False, device_type="cuda"):
        def pack(tensor):
            return tensor.device, tensor.cpu()

        def unpack(packed):
            device, tensor = packed
            return tensor.to(device, non_blocking=pin_memory)
        super().__init__(pack, unpack)


@contextlib.contextmanager
def disable_saved_tensors_hooks(error_message):
    """Inside it, entering `saved_tensors_hooks` raises RuntimeError(error_message); entering
    it while hooks are active raises the same."""
    if _state.stack:
        raise RuntimeError(error_message)
    previous, _state.disabled = _state.disabled, error_message
    try:
        yield
    finally:
        _state.disabled = previous


class _AllowMutationOnSavedContext:
    """The object `allow_mutation_on_saved_tensors` yields; `open` while inside it."""

    def __init__(self):
        self.open = True


@contextlib.contextmanager
def allow_mutation_on_saved_tensors():
    """Inside it, tensors saved for backward may be modified in place afterwards: backward
    still reads the values they had. (PyTorch clones a saved tensor when it is first
    modified; here each is cloned when it is saved.) Backward must run inside it too."""
    if _state.mutation_context is not None:
        raise RuntimeError("allow_mutation_on_saved_tensors contexts cannot be nested")
    context = _AllowMutationOnSavedContext()

    def pack(tensor):
        return tensor.clone()

    def unpack(copy):
        if not context.open:
            raise AssertionError("Trying to backward outside of the "
                                 "'allow_mutation_on_saved_tensors' context in which the graph "
                                 "was originally recorded; run backward inside it")
        return copy
    _state.mutation_context = context
    try:
        with saved_tensors_hooks(pack, unpack):
            yield context
    finally:
        context.open = False
        _state.mutation_context = None


class SavedTensor:
    """A tensor that a pack hook took: `unpack()` gives it back through the unpack hook,
    placed in the graph at `edge` (as `Node.edges` holds them; None: outside the graph)."""
    __slots__ = ("packed", "unpack_hook", "edge")

    def __init__(self, tensor, pack_hook, unpack_hook, edge):
        version = tensor._version
        with no_grad():
            self.packed = pack_hook(tensor)
        if tensor._version != version:
            raise RuntimeError(
                "A saved tensor pack hook is modifying its input in place. Tensors provided as "
                "input to pack hook cannot be modified by in-place operations as this can lead "
                "to unexpected side-effects; return a modified copy instead.")
        self.unpack_hook, self.edge = unpack_hook, edge

    def unpack(self):
        return _placed(self.unpacked(), self.edge)

    def unpacked(self):
        """What the unpack hook returns, checked (not yet placed in the graph)."""
        t = self.unpack_hook(self.packed)
        if not isinstance(t, Tensor):
            raise TypeError("Output of saved tensor unpack_hook expected to be a Tensor but got "
                            f"result of type {type(t).__name__}")
        return t


def _placed(t, edge):
    """`t`'s values at the graph position `edge` (what PyTorch does with an unpacked tensor)."""
    if edge is None:
        return t.detach() if t._requires_grad else t
    target, index = edge
    if isinstance(target, _Node):
        return Tensor._make(t._data, True, target, index)
    if t is target or t._data is target._data or not is_grad_enabled():
        return target if t._data is target._data else Tensor._make(t._data)
    # another tensor standing for a leaf: an identity node leads its gradients to the leaf
    with enable_grad():
        bridge = alias(target)
    return Tensor._make(t._data, True, bridge._grad_fn, 0)


class _PackedNode:
    """What a node saved, packed: `template` is its inputs with stand-ins (shape and dtype,
    no memory) where `inputs` holds packed tensors, `output` the packed output or None."""
    __slots__ = ("template", "inputs", "output")

    def __init__(self, template, inputs, output):
        self.template, self.inputs, self.output = template, inputs, output

    def unpack(self, node):
        values = list(self.template)
        for i, saved in self.inputs:
            values[i] = saved.unpack()
        if self.output is not None:
            node.out_data = self.output.unpacked()._data
        return tuple(values)


def _no_output():
    return None


def _pack_node(node, out):
    """`saved_hooks.pack`: give what `node` saved to the innermost pack hook."""
    pack, unpack = _state.stack[-1]
    inputs = node.inputs
    slots = () if node.prim.saves_inputs is False else [
        i for i, x in enumerate(inputs) if isinstance(x, Tensor) and not is_stand_in(x._data)]
    saves_out = out is not None and node.out_data is not None
    if not slots and not saves_out:
        return
    template = list(inputs)
    packed = []
    for i in slots:
        packed.append((i, SavedTensor(inputs[i], pack, unpack, node.edges[i])))
        template[i] = stand_in(inputs[i])
    # the output is rebuilt on this node from its unpacked values (no edge: no cycle)
    output = SavedTensor(out, pack, unpack, None) if saves_out else None
    node.packed = _PackedNode(tuple(template), tuple(packed), output)
    node.inputs = None
    node.versions = None
    if saves_out:
        node.out_data = node.out_version = None
        node.out_ref = _no_output


def pack_function_saved(saved, outs, edge_of):
    """A custom Function's `ctx.save_for_backward` tensors, packed (`saved` holds Tensors,
    None, and `_Output` markers with an `index` into `outs`, the Function's outputs, whose
    unpacked values the ctx places on its node)."""
    pack, unpack = _state.stack[-1]
    result = []
    for t in saved:
        if t is None:
            result.append(None)
        elif isinstance(t, Tensor):
            result.append(SavedTensor(t, pack, unpack, edge_of(t)))
        else:
            saved_out = SavedTensor(outs[t.index], pack, unpack, None)
            saved_out.edge = t  # the marker: the ctx attaches it to the node
            result.append(saved_out)
    return tuple(result)


class Node(abc.ABC):
    """What `tensor.grad_fn` is: `isinstance(t.grad_fn, torch.autograd.graph.Node)` holds for
    every node of the graph, and for the AccumulateGrad of a leaf in `next_functions`."""


Node.register(_Node)
Node.register(AccumulateGrad)


class GradientEdge(collections.namedtuple("GradientEdge", ["node", "output_nr",
                                                           "ownership_token"],
                                          defaults=[None])):
    """Where a tensor's gradient enters the graph: output `output_nr` of `node`."""


def get_gradient_edge(tensor):
    """The GradientEdge of `tensor` (a leaf's is its AccumulateGrad)."""
    if not tensor.requires_grad:
        raise RuntimeError(f"get_gradient_edge: the tensor (shape {list(tensor.shape)}) does not "
                           "require grad, so it has no place in the graph; set "
                           "requires_grad=True on it (or on what it is computed from)")
    if tensor.grad_fn is None:
        return GradientEdge(AccumulateGrad.of(tensor), 0)
    return GradientEdge(tensor.grad_fn, tensor._out_index)


def increment_version(tensor):
    """Count an in-place write that autograd could not see (through `.data`, NumPy or other
    code): the nodes that saved the tensor then refuse to backward, as after any in-place op.
    Takes a tensor or an iterable of tensors."""
    for t in (tensor,) if isinstance(tensor, Tensor) else tuple(tensor):
        t._bump_version()


class _MultiHandle:
    """The handle `register_multi_grad_hook` returns: `.remove()` takes off every hook."""
    __slots__ = ("handles",)

    def __init__(self, handles):
        self.handles = handles

    def remove(self):
        for handle in self.handles:
            handle.remove()


def register_multi_grad_hook(tensors, fn, *, mode="all"):
    """Call `fn` once per backward pass that computes a gradient of any of `tensors`.

    mode "all": `fn(grads)` with the list of their gradients (None for those the pass did not
    compute), when the pass ends; mode "any": `fn(grad)` with the first gradient computed.
    """
    if mode not in ("all", "any"):
        raise ValueError(f"register_multi_grad_hook: mode must be 'all' or 'any', got {mode!r}")
    tensors = tuple(tensors)
    for i, t in enumerate(tensors):
        if not isinstance(t, Tensor) or not t.requires_grad:
            raise RuntimeError(f"register_multi_grad_hook: tensors[{i}] is not a tensor that "
                               "requires grad; every tensor needs requires_grad=True")
    pending = {}  # the gradients of the pass now running, by position ("all")
    fired = []    # whether the pass now running has called fn already ("any")

    def finish():
        grads = [pending.pop(i, None) for i in range(len(tensors))]
        fn(grads)

    def hook_for(i):
        def hook(grad):
            if mode == "any":
                if not fired:
                    fired.append(True)
                    queue_callback(fired.clear)
                    fn(grad)
                return
            if not pending:
                queue_callback(finish)
            pending[i] = grad
        return hook
    return _MultiHandle([t.register_hook(hook_for(i)) for i, t in enumerate(tensors)])
