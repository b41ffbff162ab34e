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
a transposed tensor) makes no view, and writes into it stay in it. `is_contiguous()` of a
Variable answers from the same stand-ins. Arguments and the outputs of other ops are taken
as C-contiguous (NumPy keeps a transposed input's order through an elementwise op: a write
through `view(-1)` of such a result reaches its input here, not in eager mode). Writing into
a broadcast (`expand`) is refused as in eager mode; writing through a view of an argument is
refused as writing into the argument is (see `Variable._before_inplace`).
"""
import contextlib

import numpy as np

from .._core.dispatch import apply
from .._core.primitive import REGISTRY
from .._core.tensor import Tensor
from ..static.program import Variable
from .state import attributes_set

_BEFORE = Variable._before_inplace
_REBASE = Variable._rebase_inplace
_IS_CONTIGUOUS = Tensor.is_contiguous
_BYTE = np.zeros(1, np.int8)
_READ_FREE = {"slice", "permute", "diagonal", "alias"}  # impls that only move strides


class _View:
    __slots__ = ("view", "base", "prim", "params", "seen", "layout", "writable")


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

    def __init__(self, tracer=None):
        self.tracer = tracer
        self.table = {}  # id(view Variable) -> _View (which keeps the Variable alive)

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

    def _layout(self, t):
        entry = self.table.get(id(t))
        if entry is not None:
            return self._resolved(entry).layout
        if isinstance(t, Variable):
            return _c_layout(t._data.shape)
        return t._data

    def _enter(self, prim, base, params, out):
        entry = _View()
        entry.view, entry.base, entry.prim, entry.params = out, base, prim, params
        base_entry = self.table.get(id(base))
        entry.writable = callable(prim.view) and (base_entry is None or base_entry.writable)
        entry.layout = None  # worked out when first needed (most views are only read)
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
        elif prim.name in _READ_FREE or prim.name == "as_strided" and layout.flags.c_contiguous:
            entry.layout = prim.impl(layout, **params)
        elif prim.name in ("reshape", "as_strided"):
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
            if x.is_data or x.persistable:
                return _BEFORE(x, *others)  # its refusal
            # every view is in the table: x is a value of its own, even where staging
            # simplified the op that made it to an alias (a * 1.0)
            return _substitute(x)
        if not entry.writable:
            _broadcast_refused(x)
        self._resolved(entry)
        self.refresh(x)
        return _substitute(x)

    def rebase_inplace(self, x, result):
        _REBASE(x, result)
        entry = self.table.get(id(x))
        if entry is None or self._resolved(entry).base is None:
            return x
        base = entry.base
        self.refresh(base)
        new = entry.prim.view(base, x, **entry.params)
        if id(new) in self.table or new is base:  # the rule gave a view back (alias)
            new = apply(REGISTRY["alias"], new)
            del self.table[id(new)]  # a value of its own
        base._before_inplace()
        base._rebase_inplace(new)
        entry.seen = self._token(base)
        return x

    def is_contiguous(self, x, memory_format=None):
        if isinstance(x, Variable):
            return bool(self._layout(x).flags.c_contiguous)
        return _IS_CONTIGUOUS(x, memory_format)

    @contextlib.contextmanager
    def patched(self):
        """Route in-place writes on Variables and `is_contiguous` through this table."""
        patches = [(Variable, "_before_inplace", lambda x, *others: self.before_inplace(x, *others)),
                   (Variable, "_rebase_inplace", lambda x, result: self.rebase_inplace(x, result)),
                   (Tensor, "is_contiguous", lambda x, memory_format=None:
                    self.is_contiguous(x, memory_format))]
        with attributes_set(patches):
            yield self


def _substitute(x):
    """A new object for x's current value, in x's place in the program (x is then free to
    take a new value): `Variable._before_inplace` without its refusal of views."""
    old = Variable._new(x.program, x.name, x.dims, x._data.dtype)
    x.program.substitute(x, old)
    return old
