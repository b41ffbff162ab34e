"""The eager hot path: run a primitive's `impl` and record at most one graph node."""
import weakref

import numpy as np

from .errors import refuse_python_value
from .batching import BatchedTensor, apply_batched, state as _batch_state
from .forward_mode import state as _forward_state, tangent_tensor as _tangent_tensor
from .inference_mode import active as _inference_active
from .grad_mode import _set as _set_grad_enabled, disabled as _grad_disabled, state as _grad_state
from .open_levels import state as _open_levels
from .static_mode import state as _static_state
from .node import Node as _Node, anomaly as _anomaly, saved_hooks as _saved_hooks, tensor_stand_in
from .tensor import Tensor, new_version_counter as _new_version_counter, writes as _writes

_make = Tensor._make

_ndarray = np.ndarray
_asarray = np.asarray
_may_share_memory = np.may_share_memory


def apply(prim, *inputs, **params):
    """Apply `prim` to Tensors (or Python scalars / arrays, taken as constants)."""
    if _open_levels.count or _static_state.armed:
        if _open_levels.untaped and prim.array_jvp is not None and prim.differentiable:
            result = _apply_untaped(prim, inputs, params)
            if result is not None:
                return result
        transformed = _apply_transformed(prim, inputs, params)
        if transformed is not NotImplemented:
            return transformed
    arrays = []
    record = False
    if (not _grad_disabled or _grad_state.enabled) and prim.differentiable:
        for x in inputs:
            if isinstance(x, Tensor):
                if x._version_counter is not None and getattr(x, "_view", None) is not None:
                    refresh_view(x)
                arrays.append(x._data)
                if x._requires_grad:
                    record = True
            else:
                arrays.append(x)
    else:  # nothing can be recorded (a backward pass without create_graph, no_grad)
        for x in inputs:
            arrays.append(x._data if isinstance(x, Tensor) else x)
    try:
        out = prim.impl(*arrays, **params) if params else prim.impl(*arrays)
    except (ValueError, AttributeError) as err:
        _explain_failure(prim, inputs, arrays, err)
        raise
    if prim.n_outputs == 1:
        if type(out) is not _ndarray:
            out = _asarray(out)
        if prim.view and isinstance(inputs[0], Tensor) and _may_share_memory(out, arrays[0]):
            return _view(prim, inputs, params, out, record)
        if not record:
            return _make(out)
        node = _record(prim, inputs, params)
        result = _make(out, True, node, 0)
        if prim.saves_out and prim.keeps_out(node.edges):
            node.out_ref = weakref.ref(result)
            node.out_data = out
            result._version_counter = counter = _new_version_counter()
            result._view = None  # (read above when it is an input: an unset slot raises)
            node.out_version = (counter, 0)
        if _saved_hooks.pack is not None:
            _saved_hooks.pack(node, result)
        return result
    outs = tuple(o if type(o) is _ndarray else _asarray(o) for o in out)
    if not record:
        return tuple(_make(o) for o in outs)
    node = _record(prim, inputs, params)
    results = tuple(_make(o, o.dtype.kind in "fc", node, i) for i, o in enumerate(outs))
    node.out_ref = tuple(weakref.ref(r) for r in results)
    node.out_data = outs
    if _saved_hooks.pack is not None:
        _saved_hooks.pack(node, None)
    return results


def _recorded(prim, inputs, params, out):
    """The Tensor holding `out`, the output of a single-output op applied to `inputs`, with
    the op's node recorded. (`apply` has these lines inline: a call there measured 0.45% more
    instructions on the chain benchmark.)"""
    node = _record(prim, inputs, params)
    result = _make(out, True, node, 0)
    if prim.saves_out and prim.keeps_out(node.edges):
        node.out_ref = weakref.ref(result)
        node.out_data = out
        result._version_counter = counter = _new_version_counter()
        result._view = None  # (read in `apply` when it is an input: an unset slot raises)
        node.out_version = (counter, 0)
    if _saved_hooks.pack is not None:
        _saved_hooks.pack(node, result)
    return result


def _explain_failure(prim, inputs, arrays, err):
    """Raise a clearer error than `impl`'s `err` where there is one: a Python value given as
    a tensor, shapes that don't broadcast."""
    if len(inputs) == 1:
        refuse_python_value(inputs[0], prim.name)
    if isinstance(err, ValueError):
        _raise_if_broadcast(prim, arrays, err)


def _apply_untaped(prim, inputs, params):
    """`apply` at this thread's untaped forward level (`fluxgrad.func.hvp` opens it,
    outermost), for an op with an `array_jvp`: the primal as usual (recorded if an input
    requires grad), and the output's tangent from the JVP evaluated on arrays, kept as an
    array (see forward_mode); no op dispatched, no level lowered. None when the op doesn't
    run there: another level is innermost, static mode is on, no input carries a tangent,
    or an input is not a plain Tensor or a constant (a batched or staged value), or carries
    a tangent that is neither an array nor a plain Tensor."""
    arrays = []
    dots = []  # (the inputs' tangents as arrays, None where an input has none)
    found = record = False
    recording = not _grad_disabled or _grad_state.enabled
    for x in inputs:
        if type(x) is Tensor:
            dot = x._tangent
            if dot is not None:
                if type(dot) is Tensor:
                    dot = dot._data
                elif type(dot) is not _ndarray:
                    return None
                found = True
            dots.append(dot)
            if recording:
                if x._version_counter is not None and getattr(x, "_view", None) is not None:
                    refresh_view(x)
                if x._requires_grad:
                    record = True
            arrays.append(x._data)
        elif isinstance(x, Tensor):
            return None
        else:
            dots.append(None)
            arrays.append(x)
    if not found or _forward_state.level != 1 or _static_state.enabled:
        return None
    # (while every open level is an untaped one, this thread's level 1 is its untaped level)
    if _open_levels.untaped != _open_levels.count and _forward_state.untaped != 1:
        return None
    try:
        out = prim.impl(*arrays, **params) if params else prim.impl(*arrays)
    except (ValueError, AttributeError) as err:
        _explain_failure(prim, inputs, arrays, err)
        raise
    if type(out) is not _ndarray:
        out = _asarray(out)
    result = _recorded(prim, inputs, params, out) if record else _make(out)
    dtype = out.dtype
    if dtype.kind not in "fc":
        return result
    out_dot = prim.array_jvp(dots, out, *arrays, **params) if params else \
        prim.array_jvp(dots, out, *arrays)
    if out_dot is None:
        return result
    if type(out_dot) is not _ndarray:  # a NumPy scalar (0-d operands), a Python number
        out_dot = _asarray(out_dot)
    if out_dot.dtype is not dtype and out_dot.dtype != dtype:
        out_dot = out_dot.astype(dtype)
    if out_dot.shape != out.shape:
        out_dot = np.broadcast_to(out_dot, out.shape)
    result._tangent = out_dot
    if record and result._grad_fn.out_data is not None:
        _keep_tangent(result._grad_fn, result)
    return result


def _apply_transformed(prim, inputs, params):
    """`apply` while a vmap, a forward-mode level or static mode may be active: the
    transform's result, or NotImplemented when no input takes part in it."""
    if _open_levels.batching and _batch_state.sizes:
        for x in inputs:
            if type(x) is BatchedTensor:
                return apply_batched(prim, inputs, params)
    level = _forward_state.level
    if level and prim.differentiable:
        for x in inputs:
            if getattr(x, "_tangent", None) is not None:
                return _apply_forward(prim, inputs, params, level)
    # staging is the innermost level: batching and forward-mode rules run first, and the
    # ops they issue on the underlying Variables stage
    if _static_state.armed:
        return _static_state.stage(prim, inputs, params)
    return NotImplemented


class BroadcastError(ValueError, RuntimeError):
    """The inputs of an elementwise op have shapes that don't broadcast (PyTorch raises a
    RuntimeError here, earlier fluxgrad a ValueError: both catch it)."""


def _raise_if_broadcast(prim, arrays, err):
    """Re-raise NumPy's broadcast failure naming the op and the shapes (off the hot path)."""
    if "could not be broadcast" not in str(err):
        return
    shapes = [np.shape(a) for a in arrays]
    where = ""
    for a, b in zip(shapes, shapes[1:]):
        for dim in range(1, min(len(a), len(b)) + 1):
            if a[-dim] != b[-dim] and 1 not in (a[-dim], b[-dim]):
                where = (f": the size of tensor a ({a[-dim]}) must match the size of tensor b "
                         f"({b[-dim]}) at non-singleton dimension {max(len(a), len(b)) - dim}")
                break
        if where:
            break
    raise BroadcastError(f"{prim.name}: shapes {' and '.join(str(list(s)) for s in shapes)} "
                         f"don't broadcast{where}. Reshape or unsqueeze one of them so that "
                         "each dimension matches or is 1") from None


def _view(prim, inputs, params, out, record):
    """The output of a view op: it shares its base's version counter and remembers its base,
    so that an in-place write through it can rewrite the base's history."""
    base = inputs[0]
    node = _record(prim, inputs, params) if record else None
    result = Tensor._make(out, record, node, 0, base._counter())
    result._view = (base, prim, params)
    if not record and base._requires_grad and not _grad_state.enabled:
        # PyTorch's view of a tensor that requires grad, taken under no_grad: it requires
        # grad (as a leaf no gradient reaches) and refuses in-place writes with grad on
        result._requires_grad = True
        result._creation = NO_GRAD_VIEW
    result._view_version = result._version_counter[0]
    return result


def refresh_view(x):
    """A view whose base (or another view of it) was written since its history was recorded
    takes the history of the same view of its base's current value, as PyTorch regenerates
    a view's grad_fn: so the gradient reaches what the write wrote."""
    if x._view_version == x._version_counter[0]:
        return
    base, prim, params = x._view
    if prim is PIECE:
        if getattr(x, "_creation", None) == "multi_output" and _grad_state.enabled:
            raise RuntimeError(
                f"A tensor of shape {list(x.shape)} is one of several views an op returned "
                "(split, chunk, unbind), or a view of one, and its base or another view of its "
                "base has been modified in place since: its history can't be rewritten (as in "
                "PyTorch). clone() the output before the write, or write out of place")
        return
    new = apply(prim, base, **params)  # (a stale base refreshes itself in this call)
    if new._requires_grad:
        x._grad_fn, x._out_index, x._requires_grad = new._grad_fn, new._out_index, True
    x._view_version = x._version_counter[0]


class PIECE:
    """The `_view` op of one of several views an op returned (split, chunk, unbind): a stale
    one can't take a regenerated history (`refresh_view` refuses it, with grad on)."""
    view = None


NO_GRAD_VIEW = "no_grad"  # a view's `_creation` (see `_view`; the other is "multi_output")
_NO_PARAMS = {}
_versions_seen = {}


def _record(prim, inputs, params):
    node = _Node()
    node.prim = prim
    node.params = params or _NO_PARAMS
    saves = prim.saves_inputs
    edges = []
    if saves is False:
        # no rule reads the values: floating tensors are kept as stand-ins, no versions
        kept = []
        for x in inputs:
            if isinstance(x, Tensor):
                if x._requires_grad:
                    edges.append((x._grad_fn, x._out_index) if x._grad_fn is not None
                                 else (x, 0))
                else:
                    edges.append(None)
                data = x._data
                kept.append(tensor_stand_in(data) if type(x) is Tensor and data.dtype.kind == "f"
                            else x)
            else:
                edges.append(None)
                kept.append(x)
        node.edges = tuple(edges)
        node.versions = None
        node.inputs = tuple(kept)
    else:
        written = False  # whether an input was written in place (most never are)
        for x in inputs:
            if isinstance(x, Tensor):
                if x._version_counter is not None and x._version_counter[0]:
                    written = True
                if x._requires_grad:
                    edges.append((x._grad_fn, x._out_index) if x._grad_fn is not None
                                 else (x, 0))
                    continue
            edges.append(None)
        node.edges = edges = tuple(edges)
        if written or len(inputs) >= len(_ZERO_VERSIONS):
            node.versions = _versions(inputs)
        else:
            node.versions = _ZERO_VERSIONS[len(inputs)]
        node.inputs = inputs if saves is True or (saves == "others" and None not in edges) \
            else _unread_as_stand_ins(saves, inputs, edges)
    if _inference_active.entered:
        _refuse_saved_inference(prim, node.inputs)
    node.out_ref = node.out_data = node.out_version = None
    node.hooks = node.retained = None
    node.writes = _writes.count
    node.trace = _anomaly.record() if _anomaly.enabled else None
    return node


_ZERO_VERSIONS = tuple((0,) * n for n in range(8))


def _refuse_saved_inference(prim, kept):
    """PyTorch's refusal to save an inference tensor for backward (`kept`: what the node
    keeps for its rules; stand-ins hold no value)."""
    for x in kept:
        if isinstance(x, Tensor) and x.is_inference():
            raise RuntimeError(
                f"Inference tensors cannot be saved for backward: {prim.name} would save a "
                f"tensor of shape {list(x.shape)} made in inference mode to compute gradients. "
                "Don't use tensors made under fluxgrad.inference_mode() in computations "
                "autograd records; make a normal tensor of it with .clone() (outside "
                "inference mode), or make it under fluxgrad.no_grad() instead")


def _versions(inputs):
    """The version of each tensor input (0 for other inputs), one tuple per pattern."""
    versions = []  # (a loop: a generator is one more frame per input)
    for x in inputs:
        versions.append(0 if not isinstance(x, Tensor) or x._version_counter is None
                        else x._version_counter[0])
    versions = tuple(versions)
    shared = _versions_seen.get(versions)
    if shared is None:
        if len(_versions_seen) >= 1024:
            _versions_seen.clear()
        _versions_seen[versions] = shared = versions
    return shared


def _unread_as_stand_ins(saves, inputs, edges):
    """`inputs` with each floating tensor that none of the node's rules will read replaced by
    a stand-in of its shape and dtype holding no memory, so that the graph keeps alive only
    the values its rules need (`saves` is the primitive's `saves_inputs`: "others" or a tuple;
    `_record` handles False itself)."""
    if saves == "others":
        # each rule reads the other inputs: with one rule to run, its own input is unread
        if edges.count(None) != len(edges) - 1:
            return inputs
        i = 0 if edges[0] is not None else 1 if edges[1] is not None else (
            [j for j, edge in enumerate(edges) if edge is not None][0])
        x = inputs[i]
        # a view is kept: its memory is its base's, which its owner keeps alive (a weight's
        # transpose in x @ W.T), and matmul's rule reads its layout
        if type(x) is not Tensor or x._data.dtype.kind != "f" or x._data.base is not None:
            return inputs
        kept = list(inputs)
        kept[i] = tensor_stand_in(x._data)
        return tuple(kept)
    read = {k for j, edge in enumerate(edges) if edge is not None for k in saves[j]}
    unread = [i for i in range(len(inputs)) if i not in read]
    kept = None
    for i in unread:
        x = inputs[i]
        if type(x) is Tensor and x._data.dtype.kind == "f":
            if kept is None:
                kept = list(inputs)
            kept[i] = tensor_stand_in(x._data)
    return inputs if kept is None else tuple(kept)


def _apply_forward(prim, inputs, params, level):
    """Forward mode at `level`: the primal as usual, plus the output tangent from the op's
    JVP rule."""
    if prim.jvp is None:
        raise NotImplementedError(f"forward mode: the op {prim.name!r} has no JVP rule")
    tangents = []  # (a loop: a comprehension is one more call in Python 3.11)
    for x in inputs:
        tangents.append(_tangent_tensor(getattr(x, "_tangent", None)))
    tangents = tuple(tangents)
    _forward_state.level = level - 1
    try:
        result = apply(prim, *inputs, **params)
        if level == _forward_state.untaped and _grad_state.enabled:
            _set_grad_enabled(False)
            try:
                out_dot = prim.jvp(tangents, result, *inputs, **params)
            finally:
                _set_grad_enabled(True)
        else:
            out_dot = prim.jvp(tangents, result, *inputs, **params)
    finally:
        _forward_state.level = level
    if prim.n_outputs == 1:
        return _dual(result, out_dot)
    return tuple(_dual(r, t) for r, t in zip(result, out_dot))


def _dual(result, tangent):
    if tangent is None or result._data.dtype.kind not in "fc":
        return result
    if not isinstance(tangent, Tensor):
        tangent = Tensor._make(np.broadcast_to(np.asarray(tangent, result._data.dtype),
                                               result._data.shape))
    elif tangent._data.shape != result._data.shape:
        tangent = tangent.broadcast_to(result._data.shape)
    result._tangent = tangent
    node = result._grad_fn
    if node is not None and node.out_data is not None:
        _keep_tangent(node, result)
    return result


def _keep_tangent(node, result):
    """A node that saved its output keeps the output's tangent too, which an output rebuilt
    from the saved array gets back (`Node.outputs`), so that forward-over-reverse pushes it
    through the node's rule. (Holding the output itself would be a reference cycle, node ->
    output -> node: the graph would live until the garbage collector ran.)"""
    if node.prim.n_outputs == 1:
        node.out_tangent = result._tangent
    else:
        tangents = getattr(node, "out_tangent", None) or [None] * len(node.out_ref)
        tangents[result._out_index] = result._tangent
        node.out_tangent = tangents
