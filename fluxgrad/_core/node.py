"""A graph node: one recorded application of a primitive (a tensor's `grad_fn`).

A node keeps what its VJP rule needs (the inputs, the static params and, for
ops whose rule reads it, the output), the versions of what it saved (and `writes`,
the count of in-place writes anywhere when it was recorded) and one edge per input: `(node, index)`
for a computed input, `(leaf, 0)` for a leaf that requires grad, None otherwise.
The output is held through a weak reference plus its array, so no reference
cycle keeps a graph alive; a dead output is rebuilt on demand, attached to this
node, which keeps higher-order derivatives exact.
"""
import types
import weakref

import numpy as np

from .hooks import HookHandle
from .tensor import Tensor

# Anomaly mode (`fluxgrad.autograd.detect_anomaly` sets these): while `enabled`, every new
# node gets `trace = record()` (the user's call site) and backward calls `check(node, x_bars)`.
anomaly = types.SimpleNamespace(enabled=False, record=None, check=None)

# Saved-tensor hooks (`fluxgrad.autograd.graph.saved_tensors_hooks` sets `pack` while a pair is
# active): every node recorded then goes through `pack(node, output)`, which hands what the node
# saved to the user's pack hook, leaving `inputs` None and the packed values in `node.packed`;
# `saved_inputs()` unpacks them when backward reads them.
saved_hooks = types.SimpleNamespace(pack=None)


class Node:
    """A recorded op. Nodes are made as plain `Node`s, so that the engine's attribute reads
    see one class (CPython specialises them per class: measured 8% of a backward pass); a
    node takes its op's own class (`MulBackward`, a subclass with no slots of its own) when
    user code first gets hold of it, through `exposed`."""
    __slots__ = ("prim", "params", "inputs", "edges", "versions", "out_ref", "out_data",
                 "out_version", "hooks", "retained", "trace", "writes", "packed", "user_metadata",
                 "out_tangent", "__weakref__")

    def name(self):
        cls = type(self)
        return (self.prim.node_class if cls is Node else cls).__name__

    def exposed(self):
        """This node as user code sees it: an instance of its op's class."""
        if type(self) is Node:
            self.__class__ = self.prim.node_class
        return self

    @property
    def next_functions(self):
        return tuple((None, 0) if e is None else
                     ((e[0].exposed(), e[1]) if isinstance(e[0], Node) else
                      (AccumulateGrad.of(e[0]), 0))
                     for e in self.edges)

    @property
    def saved_tensors(self):
        return tuple(x for x in self.saved_inputs() if isinstance(x, Tensor))

    def saved_inputs(self):
        """The inputs the rules read, unpacked by the saved-tensor hooks that packed them (the
        `packed` slot is set only on such nodes); raises if a backward freed them."""
        if self.inputs is not None:
            return self.inputs
        packed = getattr(self, "packed", None)
        if packed is None:
            self.check_alive()
        return packed.unpack(self)

    def outputs(self):
        """The output tensor(s), rebuilt from the saved arrays if they died (with the tangents
        they carried in forward mode: the `out_tangent` slot, set only on such nodes)."""
        refs, datas = self.out_ref, self.out_data
        tangents = getattr(self, "out_tangent", None)
        if self.prim.n_outputs == 1:
            out = refs()
            if out is None:
                out = Tensor._make(datas, True, self, 0)
                out._tangent = tangents
            return out
        outs = []
        for i, (r, d) in enumerate(zip(refs, datas)):
            t = r()
            if t is None:
                t = Tensor._make(d, d.dtype.kind in "fc", self, i)
                t._tangent = None if tangents is None else tangents[i]
            outs.append(t)
        return tuple(outs)

    def check_alive(self):
        if self.inputs is None and getattr(self, "packed", None) is None:
            raise RuntimeError(
                f"Trying to backward through {self.name()} a second time, but the buffers it "
                "saved were freed by the first backward. Pass retain_graph=True to the first "
                "backward() or grad() call if you need to backward through the graph again.")

    def check_versions(self):
        if self.versions is not None:
            for i, (x, seen) in enumerate(zip(self.inputs, self.versions)):
                # a counter is made at the first in-place write: none means never written
                if not isinstance(x, Tensor) or (counter := x._version_counter) is None \
                        or counter[0] == seen:
                    continue
                if not self.prim.reads_input(i, self.edges):
                    continue  # no rule that runs reads it
                raise RuntimeError(self._modified_message(x, seen, "an input"))
        if self.out_version is not None:
            counter, seen = self.out_version
            if counter[0] != seen:
                raise RuntimeError(self._modified_message(None, seen, "its output", counter[0]))

    def _modified_message(self, x, seen, what, now=None):
        now = x._version if now is None else now
        shape = f" of shape {list(x.shape)}" if x is not None else ""
        return ("one of the variables needed for gradient computation has been modified by an "
                f"inplace operation (PyTorch's words): {self.name()} needs {what}{shape}, which "
                f"was modified by an in-place operation after it was used (version {seen}, now "
                f"{now}). Use an out-of-place op (x = x + y instead of x += y), or .clone() "
                "the tensor before modifying it.")

    @property
    def n_outputs(self):
        return 1 if self.prim.n_outputs == 1 else len(self.out_ref)

    def release(self):
        """Free the saved buffers (the weak references to the outputs cost nothing to keep).

        A node whose rules read no floating values, only shapes and dtypes, keeps those (as
        zero-memory stand-ins, put there when it was recorded), so that it can run again, as
        PyTorch's nodes that saved nothing can. Integer inputs (indices, which the rules do
        read) are kept.
        """
        prim = self.prim
        if prim.saves_inputs is False and not prim.saves_out and self.inputs is not None:
            if self.out_data is not None:
                self.out_data = tuple(stand_in(d) for d in self.out_data)
            return
        self.inputs = None
        self.out_data = None
        self.packed = None

    def register_tensor_hook(self, index, fn):
        """`tensor.register_hook(fn)` for this node's output `index`."""
        if self.hooks is None:
            self.hooks = {}
        return HookHandle(self.hooks.setdefault(index, {}), fn)

    def register_hook(self, fn):
        """Call `fn(grad_inputs, grad_outputs)` after this node's rule has run; a returned
        tuple replaces `grad_inputs` (PyTorch's `Node.register_hook`)."""
        return self.register_tensor_hook("post", fn)

    def register_prehook(self, fn):
        """Call `fn(grad_outputs)` before this node's rule runs; a returned tuple replaces
        `grad_outputs`."""
        return self.register_tensor_hook("pre", fn)

    @property
    def metadata(self):
        """A dict for the user's own annotations of this node."""
        if getattr(self, "user_metadata", None) is None:
            self.user_metadata = {}
        return self.user_metadata

    @property
    def _saved_self(self):
        return self._saved_input(0)

    @property
    def _saved_other(self):
        return self._saved_input(1)

    @property
    def _saved_result(self):
        if self.prim.n_outputs != 1 or self.out_ref is None:
            raise AttributeError(f"{self.name()} saved no result")
        self.saved_inputs()  # (unpacks a packed output; raises if a backward freed it)
        return self.outputs()

    def _saved_input(self, index):
        inputs = self.saved_inputs()
        x = inputs[index] if index < len(inputs) else None
        if not isinstance(x, Tensor) or is_stand_in(x._data):
            raise AttributeError(f"{self.name()} did not save input {index}")
        return x

    def retain(self, index, tensor):
        if self.retained is None:
            self.retained = {}
        self.retained[index] = weakref.ref(tensor)

    def __repr__(self):
        if self.inputs is None:
            state = "freed" if getattr(self, "packed", None) is None else "packed by hooks"
            return f"<{self.name()} of {self.prim.name} (buffers {state})>"
        args = [f"{x.dtype.name}{list(x.shape)}" if hasattr(x, "_data") else repr(x)
                for x in self.inputs]
        args += [f"{k}={v!r}" for k, v in self.params.items()]
        return f"<{self.name()} of {self.prim.name}({', '.join(args)})>"


_ZEROS = bytes(16)  # one element of any dtype, repeated with zero strides
_stand_ins = {}


def stand_in(x):
    """A tensor (or array) with `x`'s shape and dtype that holds no memory; Python scalars
    are kept as they are."""
    is_tensor = isinstance(x, Tensor)
    if not is_tensor and not isinstance(x, np.ndarray):
        return x
    data = x._data if is_tensor else x
    key = (data.shape, data.dtype, is_tensor)
    found = _stand_ins.get(key)
    if found is None:
        if len(_stand_ins) > 4096:
            _stand_ins.clear()
        found = np.ndarray(data.shape, data.dtype, _ZEROS, 0, (0,) * data.ndim)
        if is_tensor:
            found = Tensor._make(found)
        _stand_ins[key] = found
    return found


_tensor_stand_ins = {}


def tensor_stand_in(data):
    """`stand_in` of a Tensor holding the ndarray `data` (the hot path of recording)."""
    key = (data.shape, data.dtype)
    found = _tensor_stand_ins.get(key)
    if found is None:
        if len(_tensor_stand_ins) > 4096:
            _tensor_stand_ins.clear()
        found = _tensor_stand_ins[key] = stand_in(Tensor._make(data))
    return found


def is_stand_in(array):
    return array.base is _ZEROS


class AccumulateGrad:
    """The edge into a leaf, as `next_functions` shows it: one object per leaf while it is
    held (`AccumulateGrad.of`). Its hooks are the leaf's: a pre-hook `fn(grad_outputs)` runs
    before a backward() pass accumulates into `.grad` (a returned tuple replaces the
    gradient), a hook `fn(grad_inputs, grad_outputs)` after it (with grad_inputs empty)."""
    __slots__ = ("variable", "__weakref__")
    _held = weakref.WeakValueDictionary()  # id(leaf) -> its AccumulateGrad (which holds it)

    def __init__(self, variable):
        self.variable = variable

    @classmethod
    def of(cls, leaf):
        found = cls._held.get(id(leaf))
        if found is None or found.variable is not leaf:
            found = cls._held[id(leaf)] = cls(leaf)
        return found

    def name(self):
        return "AccumulateGrad"

    next_functions = ()

    def register_prehook(self, fn):
        from .engine import in_accumulating_pass

        def prehook(g):
            if in_accumulating_pass():  # (grad() runs no AccumulateGrad)
                new = fn((g,))
                return None if new is None else new[0]
        return self.variable.register_hook(prehook)

    def register_hook(self, fn):
        from .engine import in_accumulating_pass
        seen = []  # the gradient of the pass now running, as the leaf's hooks left it

        def capture(g):
            if in_accumulating_pass():
                seen[:] = [g]

        def posthook(leaf):
            fn((), tuple(seen))
            seen.clear()
        return _Handles(self.variable.register_hook(capture),
                        self.variable.register_post_accumulate_grad_hook(posthook))

    def __repr__(self):
        return "<AccumulateGrad>"


class _Handles:
    """Several hook handles removed together."""
    __slots__ = ("handles",)

    def __init__(self, *handles):
        self.handles = handles

    def remove(self):
        for handle in self.handles:
            handle.remove()


def topological(roots):
    """The nodes that lead to `roots`, each after every node it depends on (iterative DFS)."""
    order, done = [], set()
    stack = [(node, False) for node in roots]
    while stack:
        node, expanded = stack.pop()
        if id(node) in done:
            continue
        if expanded:
            done.add(id(node))
            order.append(node)
            continue
        stack.append((node, True))
        for edge in node.edges:
            if edge is not None and isinstance(edge[0], Node) and id(edge[0]) not in done:
                stack.append((edge[0], False))
    return order
