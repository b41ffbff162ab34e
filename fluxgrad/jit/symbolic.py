"""Symbolic dims for compiled functions: which sizes a trace may leave unknown, and proof that
the generated code is right for every size.

`assign(shapes, symbolic)` -> (dims, groups): `symbolic` is a set of (leaf, axis) to trace as
unknown (`static.dims.Dim`); axes of equal size share one Dim (the program may rely on their
equality, so `groups`, the pattern of equalities, is part of the cache key).

`trace_verified(run)` calls `run()` (a trace with those dims) twice, the second time under the
Dims' alternate sentinels (`dims.alternate_sentinels`), and accepts the first trace only if
the two programs are the same up to the sentinels' multiples and no SymInt was compared or
combined in Python meanwhile, except for equality with small ints; else it raises `Unsound`
saying why (the caller then keeps the sizes concrete). It returns (traced, excluded):
`excluded[dim]`, the sizes that equality was tested against, for which the trace does not
hold (the caller's guards send them to another trace). The accepted program's equations
whose params or scalar inputs hold a sentinel-derived int (`reshape(x, (n * 4, -1))`, a
mean's element count) are rewritten to re-bind them at run time from the input arrays'
shapes (`_BoundPrimitive`).
"""
import numpy as np

from .._core.tensor import Tensor
from ..static import dims as _dims
from ..static.program import Equation, Program, Variable


class Unsound(Exception):
    """A symbolic trace whose program would not be right for every size."""


def assign(shapes, symbolic):
    dims, groups, by_size = [], [], {}
    for leaf, shape in enumerate(shapes):
        row = []
        for axis, size in enumerate(shape):
            d = None
            if (leaf, axis) in symbolic:
                d = by_size.get(size)
                if d is None and len(by_size) < len(_dims.SYMBOLS):
                    d = by_size[size] = _dims.SYMBOLS[len(by_size)]
            if d is None:
                row.append(size)
            else:
                row.append(d)
                groups.append((leaf, axis, d.index))
        dims.append(tuple(row))
    return dims, tuple(groups)


def trace_verified(run):
    _dims.recorder = []
    try:
        first = run()
        with _dims.alternate_sentinels():
            second = run()
    finally:
        seen, _dims.recorder = _dims.recorder, None
    uses = [x for x in seen if isinstance(x, str)]
    if uses:
        raise Unsound(f"the traced code used an unknown size in Python ({uses[0]})")
    difference = _difference(first, second)
    if difference:
        raise Unsound(difference)
    bind_sizes(first)
    excluded = {}
    for x in seen:
        excluded.setdefault(x[0], set()).add(x[1])
    return first, excluded


_CANONICAL = {d.index: 1_000_003 + 2 * d.index for d in _dims.SYMBOLS}


def _difference(a, b):
    """How two traces of one function under different sentinels differ (None: they don't)."""
    sizes_a = {d.sentinel: _CANONICAL[d.index] for d in _dims.SYMBOLS}
    sizes_b = {d.alternate: _CANONICAL[d.index] for d in _dims.SYMBOLS}
    index_a, index_b = {}, {}
    for index, traced in ((index_a, a), (index_b, b)):
        for v in traced.inputs:
            index[id(v)] = len(index)
        for eq in traced.program.equations:
            for o in eq.outputs:
                index[id(o)] = len(index)

    def same(x, y):
        if isinstance(x, Variable) or isinstance(y, Variable):
            return isinstance(x, Variable) and isinstance(y, Variable) and \
                index_a.get(id(x)) == index_b.get(id(y)) and x.dims == y.dims and \
                x._data.dtype == y._data.dtype
        if isinstance(x, Tensor) or isinstance(y, Tensor):
            return isinstance(x, Tensor) and isinstance(y, Tensor) and same(x._data, y._data)
        if isinstance(x, np.ndarray) or isinstance(y, np.ndarray):
            return type(x) is type(y) and x.shape == y.shape and x.dtype == y.dtype and \
                np.array_equal(x, y, equal_nan=x.dtype.kind in "fc")
        if isinstance(x, Program) or isinstance(y, Program):
            return False  # control flow over unknown sizes: kept concrete
        if type(x) is not type(y):
            return False
        if isinstance(x, (tuple, list)):
            return len(x) == len(y) and all(same(u, v) for u, v in zip(x, y))
        if isinstance(x, dict):
            return x.keys() == y.keys() and all(same(x[k], y[k]) for k in x)
        if isinstance(x, slice):
            return same((x.start, x.stop, x.step), (y.start, y.stop, y.step))
        if isinstance(x, (int, np.integer)) and not isinstance(x, (bool, np.bool_)):
            return _dims.rebind_int(int(x), sizes_a) == _dims.rebind_int(int(y), sizes_b)
        if isinstance(x, (float, complex, np.floating, np.complexfloating)):
            return x == y or (x != x and y != y)
        try:
            return bool(x is y or x == y)
        except Exception:
            return False

    if len(a.inputs) != len(b.inputs) or not all(same(x, y) for x, y in zip(a.inputs, b.inputs)):
        return "the inputs differ"
    eqs_a, eqs_b = a.program.equations, b.program.equations
    if len(eqs_a) != len(eqs_b):
        return (f"the traced code depends on an unknown size: {len(eqs_a)} equations with one "
                f"stand-in size, {len(eqs_b)} with another")
    for ea, eb in zip(eqs_a, eqs_b):
        if ea.prim is not eb.prim or not same(ea.inputs, eb.inputs) or \
                not same(ea.outputs, eb.outputs) or not same(ea.params, eb.params):
            return (f"{ea.prim.name} (at {ea.source}) depends on an unknown size in a way the "
                    "program can't re-bind at run time")
    if not same(list(a.outputs), list(b.outputs)) or not same(a.out_structure, b.out_structure):
        return "the results depend on an unknown size in a way the program can't re-bind"
    return None


def bind_sizes(traced):
    """Rewrite, in place, the equations of `traced.program` that hold sentinel-derived ints."""
    sources = {}
    for v in traced.inputs:
        for axis, d in enumerate(v.dims):
            if isinstance(d, _dims.Dim):
                sources.setdefault(d.sentinel, (v, axis))
    if not sources:
        return
    equations = []
    for eq in traced.program.equations:
        scalars = [i for i, x in enumerate(eq.inputs)
                   if not isinstance(x, Tensor) and _dims.mentions_symbol(x)]
        if scalars or _dims.mentions_symbol(eq.params):
            symbols = list(sources.items())
            prim = _BoundPrimitive(eq.prim, len(eq.inputs), scalars,
                                   [(sentinel, axis) for sentinel, (_, axis) in symbols])
            eq = Equation(prim, tuple(_plain(x) for x in eq.inputs) +
                          tuple(v for _, (v, _) in symbols), eq.outputs, _plain(eq.params),
                          eq.source)
        equations.append(eq)
    traced.program.equations = equations


class _BoundPrimitive:
    """`prim` with its sentinel-derived ints re-bound to the sizes of the extra array inputs
    (one per unknown dim, the arrays it is read from, at `axes`). In generated code
    `_reshape_sized(x, x, shape=(10007, 6))` is `reshape(x, shape=(N0, 6))` where N0 is the
    size of the second `x`'s axis 0: 10007 is N0's stand-in (`static.dims`)."""

    def __init__(self, prim, n, scalars, axes):
        self.prim = prim
        self.name = f"{prim.name}_sized"  # generated code: `_reshape_sized(x, x, shape=...)`
        self.n_outputs = prim.n_outputs
        self.view = getattr(prim, "view", False)
        impl, bind = prim.impl, _dims.bind

        def bound(*arrays, **params):
            sizes = {sentinel: arrays[n + k].shape[axis] for k, (sentinel, axis) in
                     enumerate(axes)}
            args = list(arrays[:n])
            for i in scalars:
                args[i] = bind(args[i], sizes)
            return impl(*args, **bind(params, sizes))
        self.impl = bound


def _plain(value):
    """`value` with its SymInts as plain ints (the generated code writes them as literals)."""
    if type(value) is _dims.SymInt:
        return int(value)
    if type(value) in (tuple, list):
        return type(value)(_plain(v) for v in value)
    if type(value) is dict:
        return {k: _plain(v) for k, v in value.items()}
    if type(value) is slice:
        return slice(_plain(value.start), _plain(value.stop), _plain(value.step))
    return value

