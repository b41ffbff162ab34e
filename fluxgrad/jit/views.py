"""Writes through views while a function is traced: staged as out-of-place ops (the
functionalization of views, as AOTAutograd does it).

Eager mode shares memory: a write into `v = x[:, 0]` changes x and every other view of x. A
Program has values, not memory, so while `tracing.trace` runs, `Views` keeps a table of the
Variables a view op made, `v = prim(base)`, where `base` is a Variable or a tracked eager
tensor (see `state`):
- a write into a view (any in-place op, `v[i] = ...`, `masked_fill_`) gives v its new value,
  then gives its base `prim.view(base, v)` (the primitive's view rule: base with v's entries
  replaced), which writes on up to the root: a Variable, or a tracked tensor (a parameter
  written under no_grad), which takes the new value as any in-place write gives it;
- a view whose base took a new value since the view last matched it (a write through the
  base or through another view) is stale: before an op reads it, and at the end of the
  trace, it takes `prim(base)` again, as eager mode's `dispatch.refresh_view` regenerates a
  stale view's history.

Whether an op shares its input's memory is judged as eager mode judges it, by NumPy's impl on
a zero-memory stand-in carrying each array's strides (`layout`): a reshape that must copy (of
a transposed tensor) makes no view, and writes into it stay in it. Each Variable's layout is
the one its array has in eager mode: an argument's is its tensor's (the signature holds the
strides of a non-C-contiguous argument, and whether it is a view); a value written in place
keeps the memory it had; the layout of another op's result is worked out when first asked
for, by running the op's impl on arrays of zeros laid out as its inputs (a ufunc of
C-contiguous inputs is C-contiguous without running; random draws, prints and control flow
are taken as C-contiguous). `is_contiguous()`, `stride()`, `contiguous()` (x itself when
C-contiguous) and `view()` (refused for a view whose memory does not fit the new shape)
answer from the same layouts, as in eager mode. Writing into a broadcast (`expand`) is
refused as in eager mode. An argument written in place (directly, through a view, `.data` or
`detach()`) moves on to its new value as any Variable does, its value at the call staying
the program's input; eager mode's refusals of such a write (a leaf that requires grad, or a
view of one, in grad mode; a broadcast argument) are raised here, as is its refusal of a
result whose dtype can't be cast to the written tensor's (`tracing` makes the argument's
final value an output, `arguments` writes it at each call). `read_layout` says whether the
trace asked for an argument's layout or whether it is a view (else its guards ignore the
arguments' strides).
"""
import contextlib
import warnings

import numpy as np

from .._core import dtypes
from .._core.dispatch import apply
from .._core.grad_mode import state as _grad_state
from .._core.primitive import REGISTRY
from .._core.static_mode import state as _static_state
from .._core.tensor import Tensor
from ..ops.indexing import ARRAY
from ..ops.shape import _is_dtype
from ..static import dims as _dims
from ..static.control_flow import ControlOp
from ..static.program import Variable
from .state import attributes_set

_BEFORE = Variable._before_inplace
_REBASE = Variable._rebase_inplace
_IS_CONTIGUOUS = Tensor.is_contiguous
_STRIDE = Tensor.stride
_CONTIGUOUS = Tensor.contiguous
_VIEW = Tensor.view
_DATA = Tensor.data
_BYTE = np.zeros(1, np.int8)
_READ_FREE = {"slice", "permute", "diagonal", "alias"}  # impls that only move strides


class _View:
    __slots__ = ("view", "base", "prim", "params", "seen", "layout", "writable", "detached")


def _c_layout(shape):
    strides, step = [], 1
    for n in reversed(shape):
        strides.append(step)
        step *= max(n, 1)
    return np.lib.stride_tricks.as_strided(_BYTE, shape, tuple(reversed(strides)))


def _broadcast_refused(x):
    raise RuntimeError(
        f"unsupported operation: an in-place write into a tensor of shape {list(x.shape)} "
        "whose elements share memory (made by expand() or broadcast_to()): more than one "
        "element refers to a single memory location. Write into a copy instead: "
        "y = x.expand(...).clone()")


class Views:
    """The views made while one function is traced (see the module docstring)."""

    def __init__(self, tracer=None, args=()):
        self.tracer = tracer
        self.table = {}  # id(view Variable) -> _View (which keeps the Variable alive)
        self.args = {}  # id(argument Variable) -> (it, its tensor's layout, whether a view)
        for var, tensor in args:
            data = tensor._data
            layout = data if var._data.shape == data.shape and not data.flags.c_contiguous \
                else _c_layout(var._data.shape)
            self.args[id(var)] = (var, layout, getattr(tensor, "_view", None) is not None,
                                  tensor)
        self.read_layout = False  # whether an argument's layout (or view-ness) was asked for
        self.kept = {}  # id(value written in place) -> (it, its value before the first write)
        self.made = {}  # id(an op's result) -> (it, its layout), once worked out
        self._definitions = (None, None, {})  # (program, its version, id(output) -> equation)
        self._base_write = False  # a write through a view goes on into its base

    # --- staging ---------------------------------------------------------------------------
    def stage(self, inner, prim, inputs, params):
        """`inner` (the trace's stage), with stale views among `inputs` refreshed first and a
        view op's result entered in the table."""
        table = self.table
        for x in inputs:
            if id(x) in table:
                self.refresh(x)
        out = inner(prim, inputs, params)
        if prim.view and isinstance(out, Variable) and out is not inputs[0] and (
                isinstance(inputs[0], Variable) or self._tracked(inputs[0])):
            self._enter(prim, inputs[0], params, out)
        return out

    def _tracked(self, t):
        return self.tracer is not None and isinstance(t, Tensor) and id(t) in self.tracer.tracked

    # --- layouts ---------------------------------------------------------------------------
    def _layout(self, t):
        """The array (or a zero-memory stand-in of it) whose strides t's value has in eager
        mode."""
        if not isinstance(t, Variable):
            return t._data
        for x in self._unknown(t):  # from the arguments on, without deep recursion
            self._known(x)
        return self._known(t)

    def _known(self, x):
        """x's layout, those of what it depends on (`_depends`) being known already."""
        entry = self.table.get(id(x))
        if entry is not None:
            return self._resolved(entry).layout
        arg = self.args.get(id(x))
        if arg is not None:
            self.read_layout = True
            return arg[1]
        kept = self.kept.get(id(x))
        if kept is not None:
            return self._known(kept[1])
        made = self.made.get(id(x))
        if made is None:
            made = self.made[id(x)] = (x, self._result_layout(x))
        return made[1]

    def _depends(self, x):
        """The Variables whose layouts x's layout is worked out from (none once known)."""
        entry = self.table.get(id(x))
        if entry is not None:
            return [entry.base] if entry.layout is None and isinstance(entry.base, Variable) \
                else []
        if id(x) in self.args or id(x) in self.made:
            return []
        kept = self.kept.get(id(x))
        if kept is not None:
            return [kept[1]]
        eq = self._definition(x)
        return [] if eq is None else [v for v in eq.inputs if isinstance(v, Variable)]

    def _unknown(self, t):
        """The Variables t's layout depends on, each after those it depends on."""
        order, seen, stack = [], {id(t)}, [(t, False)]
        while stack:
            x, expanded = stack.pop()
            if expanded:
                order.append(x)
                continue
            stack.append((x, True))
            for d in self._depends(x):
                if id(d) not in seen:
                    seen.add(id(d))
                    stack.append((d, False))
        return order

    def _definition(self, x):
        program, version, defs = self._definitions
        if program is not x.program or version != x.program.version:
            defs = {id(o): eq for eq in x.program.equations for o in eq.outputs}
            self._definitions = (x.program, x.program.version, defs)
        return defs.get(id(x))

    def _result_layout(self, v):
        """The layout of an op's result in eager mode: C-contiguous for a ufunc of
        C-contiguous inputs, else what the op's impl gives on zeros laid out as its inputs."""
        shape = v._data.shape
        eq = self._definition(v)
        prim = None if eq is None else eq.prim
        if prim is None or isinstance(prim, ControlOp) or getattr(prim, "draws", False) or \
                prim.runs_user_code or prim.name == "print" or \
                any(isinstance(d, _dims.Dim) for d in v.dims):
            return _c_layout(shape)
        layouts = [self._layout(x) if isinstance(x, Variable) else None for x in eq.inputs]
        if type(prim.impl) is np.ufunc and all(
                a is None or a.flags.c_contiguous for a in layouts):
            return _c_layout(shape)
        args = [_zeros_like(a, x._data.dtype) if a is not None else
                x._data if isinstance(x, Tensor) else x for a, x in zip(layouts, eq.inputs)]
        try:
            with np.errstate(all="ignore"), warnings.catch_warnings():
                warnings.simplefilter("ignore")
                out = prim.impl(*args, **eq.params)
        except Exception:
            return _c_layout(shape)
        if eq.prim.n_outputs != 1:
            out = out[next(k for k, o in enumerate(eq.outputs) if o is v)]
        if not isinstance(out, np.ndarray) or out.shape != shape:
            return _c_layout(shape)
        return np.lib.stride_tricks.as_strided(
            _BYTE, shape, tuple(s // max(out.itemsize, 1) for s in out.strides))

    def is_view(self, x):
        """Whether eager mode's tensor for x is a view (shares its base's memory)."""
        entry = self.table.get(id(x))
        if entry is not None:
            return self._resolved(entry).base is not None
        arg = self.args.get(id(x))
        if arg is None:
            return False
        self.read_layout = True
        return arg[2]

    def _enter(self, prim, base, params, out):
        entry = _View()
        entry.view, entry.base, entry.prim, entry.params = out, base, prim, params
        base_entry = self.table.get(id(base))
        entry.writable = callable(prim.view) and (base_entry is None or base_entry.writable)
        entry.layout = None  # worked out when first needed (most views are only read)
        entry.detached = False
        entry.seen = self._token(base)
        self.table[id(out)] = entry

    def _resolved(self, entry):
        """`entry` with its layout, and with no base if NumPy's impl would have copied."""
        if entry.layout is not None:
            return entry
        prim, params, shape = entry.prim, entry.params, entry.view._data.shape
        layout = self._layout(entry.base)
        if not entry.writable and not callable(prim.view):  # a broadcast: never written into
            try:
                entry.layout = np.broadcast_to(layout, shape)
            except ValueError:
                entry.layout = _c_layout(shape)
        elif prim.name in _READ_FREE:
            entry.layout = prim.impl(layout, **params)
        elif prim.name == "as_strided":  # (a view of memory its positions step through evenly)
            entry.layout = prim.impl(layout, **params)
            if not np.may_share_memory(entry.layout, layout):
                entry.base = None  # a copy: no view
        elif prim.name == "reshape":
            entry.layout = layout.view()
            try:
                entry.layout.shape = shape  # refused where NumPy's reshape would copy
            except (AttributeError, ValueError):
                entry.base, entry.layout = None, _c_layout(shape)  # a copy: no view
        else:
            entry.layout = _c_layout(shape)
        return entry

    def _token(self, t):
        """What identifies t's current value (a Variable's name changes with its value)."""
        value = t if isinstance(t, Variable) else self.tracer.data(t).value
        return id(value), value.name

    # --- stale views and writes ----------------------------------------------------------
    def refresh(self, view):
        """A stale view takes `prim(base)` again (its base refreshed first)."""
        entry = self.table.get(id(view))
        if entry is None or entry.base is None:
            return
        base = entry.base
        self.refresh(base)
        token = self._token(base)
        if token == entry.seen or self._resolved(entry).base is None:
            return
        new = apply(entry.prim, base, **entry.params)
        self.table.pop(id(new), None)
        _substitute(view)
        _REBASE(view, new)
        entry.seen = token

    def refresh_all(self):
        for entry in list(self.table.values()):
            self.refresh(entry.view)

    def before_inplace(self, x, *others):
        entry = self.table.get(id(x))
        if entry is None:
            if id(x) in self.args:
                # eager mode writes into the argument's memory; the compiled call writes the
                # argument's final value there (`tracing`): x moves on, its old value stays
                # the program's input
                old = _substitute(x)
                old.is_data, x.is_data = x.is_data, False
                return old
            if x.is_data or x.persistable:
                return _BEFORE(x, *others)  # its refusal
            # every view is in the table: x is a value of its own, even where staging
            # simplified the op that made it to an alias (a * 1.0)
            return self._kept(x, _substitute(x))
        if not entry.writable:
            _broadcast_refused(x)
        self._resolved(entry)
        self.refresh(x)
        return _substitute(x)

    def _kept(self, x, old):
        """x is written in place: its memory, so its layout, stays that of its old value."""
        self.kept.setdefault(id(x), (x, old))
        return old

    def rebase_inplace(self, x, result):
        if result._data.dtype != x._data.dtype:
            result = _cast_for_inplace(x, result)
        if not self._base_write:
            self._refuse_argument_write(x)
        _REBASE(x, result)
        entry = self.table.get(id(x))
        if entry is None or self._resolved(entry).base is None:
            return x
        base = entry.base
        self.refresh(base)
        overlapping = self._overlapping_root(entry)
        if overlapping is not None:
            base, new = overlapping
            entry = self.table.get(id(base)) or entry
        else:
            new = entry.prim.view(base, x, **entry.params)
        if id(new) in self.table or new is base:  # the rule gave a view back (alias)
            new = apply(REGISTRY["alias"], new)
            del self.table[id(new)]  # a value of its own
        self._base_write = True
        try:
            base._before_inplace()
            base._rebase_inplace(new)
        finally:
            self._base_write = False
        entry.seen = self._token(base)
        return x

    def _overlapping_root(self, entry):
        """(root, its new value) where the view `entry` made reads some entries of the root
        of its chain of views more than once (unfold, as_strided windows, or a view of one):
        it is written straight into the root, each entry once, as eager mode's
        `inplace.write_through` does; None for other views."""
        chain = [entry]
        while self.table.get(id(chain[-1].base)) is not None and \
                self._resolved(self.table[id(chain[-1].base)]).base is not None:
            chain.append(self.table[id(chain[-1].base)])
        if not any(e.prim.name == "as_strided" for e in chain):
            return None
        root = chain[-1].base
        at = np.arange(int(np.prod(root.shape, dtype=np.int64))).reshape(root.shape)
        for e in reversed(chain):
            at = e.prim.impl(at, **e.params)
        at = np.asarray(at).reshape(-1)
        if np.unique(at).size == at.size:
            return None
        last = at.size - 1 - np.unique(at[::-1], return_index=True)[1]
        value = apply(REGISTRY["index"], entry.view.reshape(-1), last, index=(ARRAY,))
        new = apply(REGISTRY["index_put"], root.reshape(-1), value, at[last], index=(ARRAY,),
                    accumulate=False)
        return root, new.reshape(root.shape)

    def _refuse_argument_write(self, x):
        """Eager mode's refusals of a write into an argument's memory (directly, or through a
        view of it that isn't `.data` / `detach()`), which the trace can't see on the
        argument's stand-in."""
        through_view, entry = False, self.table.get(id(x))
        while entry is not None and entry.base is not None:
            if entry.detached:
                return
            x, through_view = entry.base, True
            entry = self.table.get(id(x))
        arg = self.args.get(id(x))
        if arg is None:
            return
        tensor = arg[3]
        if not tensor._data.flags.writeable:
            _broadcast_refused(tensor)
        if not _grad_state.enabled or not tensor._requires_grad:
            return
        root, view = tensor, getattr(tensor, "_view", None)
        while view is not None and callable(view[1].view):
            root, view = view[0], getattr(view[0], "_view", None)
        if (through_view or root is not tensor) and root._grad_fn is None and \
                root._requires_grad:
            raise RuntimeError(
                f"a view of a leaf tensor of shape {list(root.shape)} that requires grad is "
                "being modified in place; do it under fluxgrad.no_grad(), or on a copy "
                "(x = x.clone())")
        if tensor._grad_fn is None:
            raise RuntimeError(
                f"a leaf tensor of shape {list(tensor.shape)} that requires grad is being "
                "modified in place; do it under fluxgrad.no_grad(), or on a copy (x = x + y)")
        raise NotImplementedError(
            f"an in-place op writes into an argument of shape {list(tensor.shape)} that "
            "requires grad and has a history (not a leaf): compiled code can't rewrite that "
            "history. Pass it detached, write under no_grad(), or call the function without "
            "compile")

    def detached(self, x):
        """`x.data` / `x.detach()` of a Variable: as in eager mode, the same memory (a write
        into it reaches x, without eager mode's refusals for tensors that require grad) with
        no history."""
        from .._core.grad_mode import no_grad
        with no_grad():
            out = apply(REGISTRY["alias"], x)
        entry = self.table.get(id(out))
        if entry is None:  # (x is a constant's stand-in: nothing to write through)
            return out
        entry.detached = True
        return out

    def is_contiguous(self, x, memory_format=None):
        if isinstance(x, Variable):
            return bool(self._layout(x).flags.c_contiguous)
        return _IS_CONTIGUOUS(x, memory_format)

    def stride(self, x, dim=None):
        if not isinstance(x, Variable):
            return _STRIDE(x, dim)
        layout = self._layout(x)
        strides = tuple(s // max(layout.itemsize, 1) for s in layout.strides)
        return strides if dim is None else strides[dim]

    def contiguous(self, x, memory_format=None):
        if isinstance(x, Variable) and self.is_contiguous(x):
            return x
        return _CONTIGUOUS(x, memory_format)

    def view(self, x, *shape):
        """Eager mode's `view`, whose refusal of a view that doesn't fit the new shape reads
        the layout of x's memory."""
        if isinstance(x, Variable) and not (len(shape) == 1 and _is_dtype(shape[0])) and \
                self.is_view(x):
            stand_in = Tensor._make(self._layout(x))
            stand_in._view = ()  # a view: eager's check runs (on the stand-in's strides alone)
            armed, _static_state.armed = _static_state.armed, False
            try:
                _VIEW(stand_in, *shape)
            finally:
                _static_state.armed = armed
        return _VIEW(x, *shape)

    @contextlib.contextmanager
    def patched(self):
        """Route in-place writes on Variables, and the questions about their memory
        (`is_contiguous`, `stride`, `contiguous`, `view`), through this table."""
        patches = [(Variable, "_before_inplace", lambda x, *others: self.before_inplace(x, *others)),
                   (Variable, "_rebase_inplace", lambda x, result: self.rebase_inplace(x, result)),
                   (Tensor, "is_contiguous", lambda x, memory_format=None:
                    self.is_contiguous(x, memory_format)),
                   (Tensor, "stride", lambda x, dim=None: self.stride(x, dim)),
                   (Tensor, "contiguous", lambda x, memory_format=None:
                    self.contiguous(x, memory_format)),
                   (Tensor, "view", lambda x, *shape: self.view(x, *shape)),
                   (Tensor, "data", property(lambda x: self.detached(x) if isinstance(
                       x, Variable) else _DATA.fget(x), _DATA.fset, doc=_DATA.__doc__)),
                   (Variable, "detach", lambda x: self.detached(x))]
        with attributes_set(patches):
            yield self


def _cast_for_inplace(x, result):
    """`result` in x's dtype, as eager mode writes it into x's memory (refused as there)."""
    if not np.can_cast(result._data.dtype, x._data.dtype, "same_kind"):
        raise RuntimeError(f"result type {dtypes.from_numpy_dtype(result._data.dtype)} can't "
                           f"be cast to the in-place output's type {x.dtype}")
    from ..ops.elementwise import cast
    return cast(result, x.dtype)


def _zeros_like(layout, dtype):
    """Zeros of `dtype` laid out in memory as `layout` (an op's impl reads them)."""
    strides = [s // max(layout.itemsize, 1) for s in layout.strides]
    if any(s < 0 for s in strides):
        return np.zeros(layout.shape, dtype)
    span = 1 + sum((n - 1) * s for n, s in zip(layout.shape, strides)) if layout.size else 0
    itemsize = np.dtype(dtype).itemsize
    return np.lib.stride_tricks.as_strided(np.zeros(span, dtype), layout.shape,
                                           tuple(s * itemsize for s in strides))


def _substitute(x):
    """A new object for x's current value, in x's place in the program (x is then free to
    take a new value): `Variable._before_inplace` without its refusal of views."""
    old = Variable._new(x.program, x.name, x.dims, x._data.dtype)
    x.program.substitute(x, old)
    return old
