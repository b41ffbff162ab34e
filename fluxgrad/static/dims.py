"""Unknown dimensions (`None` / -1 in `static.data`) and how they are bound.

An unknown dimension is a symbol `Dim`, one per axis position (every unknown axis 0
is the same batch size `N0`, every unknown axis 1 is `N1`, ...), so that `x` and
`label`, both `[None, ...]`, combine. A Variable's stand-in array uses the symbol's
`sentinel` (a large prime) for its size, so that any Python code reading shapes
sees a plain int; a static param or integer constant that the sentinel entered
(`reshape(x.shape[0], -1)`, the element count of a mean) is a multiple of it and is
re-bound to the actual size when the program runs (`bind`). Output shapes are
found by running the op on small arrays under two bindings (`PROBES`): a dim that
changes between them is a symbol, one that doesn't is static. Limits: a size
derived from a symbol other than by multiplication (N + 1, N // 2) is refused
when the op is staged; a static size that is a multiple of a sentinel (10007)
would be mistaken for it.
"""
import numpy as np


class SymInt(int):
    """An unknown size as `Variable.shape` gives it: the sentinel int (so shape arithmetic
    and `reshape(x.shape[0], -1)` work), printed as its name."""

    def __new__(cls, dim):
        self = super().__new__(cls, dim.sentinel)
        self.dim = dim
        return self

    def __repr__(self):
        return self.dim.name

    __str__ = __repr__

    def __format__(self, spec):
        return self.dim.name if not spec else int.__format__(self, spec)


class Dim:
    """An unknown size: printed by `name`, stood in for by `sentinel`."""
    __slots__ = ("index", "name", "sentinel", "probes", "size")

    def __init__(self, index, sentinel, probes):
        self.index = index
        self.name = f"N{index}"
        self.sentinel = sentinel
        self.probes = probes
        self.size = SymInt(self)

    def __repr__(self):
        return self.name


_SENTINELS = (10007, 10009, 10037, 10039, 10061, 10067, 10069, 10079)
_PROBES = ((3, 29), (5, 31), (7, 37), (11, 41), (13, 43), (17, 47), (19, 53), (23, 59))
SYMBOLS = tuple(Dim(i, s, p) for i, (s, p) in enumerate(zip(_SENTINELS, _PROBES)))
BY_SENTINEL = {d.sentinel: d for d in SYMBOLS}


def symbol_for_axis(axis, op="static.data"):
    if axis >= len(SYMBOLS):
        raise ValueError(f"{op}: an unknown size is supported on the first {len(SYMBOLS)} axes "
                         f"only, got one on axis {axis}")
    return SYMBOLS[axis]


def stand_in_shape(dims):
    return tuple(d.sentinel if isinstance(d, Dim) else d for d in dims)


def pretty_shape(shape):
    """A stand-in shape with its unknown sizes as SymInts (printed by name)."""
    return tuple(BY_SENTINEL[s].size if s in BY_SENTINEL else s for s in shape)


def dims_of(shape):
    """The dims (ints and Dims) of a stand-in shape."""
    return tuple(BY_SENTINEL.get(s, s) for s in shape)


def has_symbol(shape):
    return any(s in BY_SENTINEL for s in shape)


def rebind_int(value, sizes):
    """`value` with each factor of a sentinel replaced by the bound size."""
    if value < 10007:
        return value
    out, rest = 1, value
    for sentinel, size in sizes.items():
        while rest % sentinel == 0 and rest:
            rest //= sentinel
            out *= size
    return value if out == 1 and rest == value else out * rest


def bind(value, sizes):
    """`value` (a param or constant) with sentinel-derived ints re-bound to `sizes`."""
    t = type(value)
    if isinstance(value, (int, np.integer)) and not isinstance(value, (bool, np.bool_)):
        bound = rebind_int(int(value), sizes)
        return t(bound) if t is not SymInt else bound
    if isinstance(value, (tuple, list)):
        return type(value)(bind(v, sizes) for v in value)
    if t is dict:
        return {k: bind(v, sizes) for k, v in value.items()}
    if t is slice:
        return slice(bind(value.start, sizes), bind(value.stop, sizes), bind(value.step, sizes))
    return value


def mentions_symbol(value):
    """Whether `value` holds an int a sentinel entered (so `bind` must see it at run time)."""
    t = type(value)
    if isinstance(value, (int, np.integer)) and not isinstance(value, (bool, np.bool_)):
        return int(value) >= 10007 and any(int(value) % s == 0 for s in BY_SENTINEL)
    if isinstance(value, (tuple, list)):
        return any(mentions_symbol(v) for v in value)
    if t is slice:
        return any(mentions_symbol(v) for v in (value.start, value.stop, value.step))
    if t is dict:
        return any(mentions_symbol(v) for v in value.values())
    return False


def format_dims(dims):
    return ",".join(str(d) for d in dims)
