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

For `fluxgrad.compile`, which must never give a silently wrong result: `alternate_sentinels()`
lets a function be traced a second time with other sentinels (two traces that differ beyond
the multiples of the sentinels used a size in a way the program can't re-bind), and while
`recorder` is a list, a SymInt compared or combined in Python (`x.shape[0] > 64`, `n - 1`)
is noted there as text (such a use can't be re-bound either), except a comparison for
equality with a small int (`x.shape == (3,)`), noted as (Dim, int): the trace holds for
every size but that one.
"""
import contextlib

import numpy as np

recorder = None


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

    __hash__ = int.__hash__

    def _note(self, op, other, result):
        if recorder is None or type(other) in (int, SymInt) and (
                int(other) == int(self) or int(other) <= 1):
            return result  # a size >= 2 exceeds 0 and 1 and equals itself, whatever its value
        if op in ("==", "!=") and type(other) is int and other < 10007:
            recorder.append((self.dim, other))  # right for every size but `other`: a guard
        else:
            recorder.append(f"{self.dim.name} {op} {other!r}")
        return result

    def __eq__(self, other):
        return self._note("==", other, int.__eq__(self, other))

    def __ne__(self, other):
        return self._note("!=", other, int.__ne__(self, other))

    def __lt__(self, other):
        return self._note("<", other, int.__lt__(self, other))

    def __le__(self, other):
        return self._note("<=", other, int.__le__(self, other))

    def __gt__(self, other):
        return self._note(">", other, int.__gt__(self, other))

    def __ge__(self, other):
        return self._note(">=", other, int.__ge__(self, other))

    def __add__(self, other):
        return self._note("+", other, int.__add__(self, other))

    def __sub__(self, other):
        return self._note("-", other, int.__sub__(self, other))

    def __rsub__(self, other):
        return self._note("(subtracted from)", other, int.__rsub__(self, other))

    def __floordiv__(self, other):
        return self._note("//", other, int.__floordiv__(self, other))

    def __truediv__(self, other):
        return self._note("/", other, int.__truediv__(self, other))

    def __rtruediv__(self, other):
        return self._note("(divides)", other, int.__rtruediv__(self, other))

    def __mod__(self, other):
        return self._note("%", other, int.__mod__(self, other))

    def __float__(self):
        return self._note("float()", None, int.__float__(self))

    __radd__ = __add__


class Dim:
    """An unknown size: printed by `name`, stood in for by `sentinel`."""
    __slots__ = ("index", "name", "sentinel", "alternate", "probes", "size")

    def __init__(self, index, sentinel, alternate, probes):
        self.index = index
        self.name = f"N{index}"
        self.sentinel = sentinel
        self.alternate = alternate
        self.probes = probes
        self.size = SymInt(self)

    def __repr__(self):
        return self.name


_SENTINELS = (10007, 10009, 10037, 10039, 10061, 10067, 10069, 10079)
_ALTERNATES = (10091, 10093, 10099, 10103, 10111, 10133, 10139, 10141)
_PROBES = ((3, 29), (5, 31), (7, 37), (11, 41), (13, 43), (17, 47), (19, 53), (23, 59))
SYMBOLS = tuple(Dim(i, s, a, p) for i, (s, a, p) in
                enumerate(zip(_SENTINELS, _ALTERNATES, _PROBES)))
BY_SENTINEL = {d.sentinel: d for d in SYMBOLS}


@contextlib.contextmanager
def alternate_sentinels():
    """Every Dim stands in by its `alternate` sentinel meanwhile."""
    _swap()
    try:
        yield
    finally:
        _swap()


def _swap():
    for d in SYMBOLS:
        d.sentinel, d.alternate = d.alternate, d.sentinel
        d.size = SymInt(d)
    BY_SENTINEL.clear()
    BY_SENTINEL.update((d.sentinel, d) for d in SYMBOLS)


def could_be_sentinel(size):
    """Whether a static size would be mistaken for a multiple of a sentinel."""
    return size >= 10007 and any(size % d.sentinel == 0 or size % d.alternate == 0
                                 for d in SYMBOLS)


def symbol_for_axis(axis, op="static.data"):
    if axis >= len(SYMBOLS):
        raise ValueError(f"{op}: an unknown size is supported on the first {len(SYMBOLS)} axes "
                         f"only, got one on axis {axis}")
    return SYMBOLS[axis]


def stand_in_shape(dims):
    if Dim not in map(type, dims):  # (known sizes: the common case, without a loop)
        return tuple(dims)
    return tuple(d.sentinel if isinstance(d, Dim) else d for d in dims)


def pretty_shape(shape):
    """A stand-in shape with its unknown sizes as SymInts (printed by name)."""
    return tuple(BY_SENTINEL[s].size if s in BY_SENTINEL else s for s in shape)


def dims_of(shape):
    """The dims (ints and Dims) of a stand-in shape."""
    return tuple(BY_SENTINEL.get(s, s) for s in shape)


def has_symbol(shape):
    return not BY_SENTINEL.keys().isdisjoint(shape)


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
    if t is int:  # the common cases first, without a call per int (staging asks for every op)
        return value >= 10007 and _sentinel_multiple(value)
    if t is tuple or t is list or t is dict:
        for v in (value.values() if t is dict else value):
            if (v >= 10007 and _sentinel_multiple(v)) if type(v) is int else \
                    mentions_symbol(v):
                return True
        return False
    if isinstance(value, (int, np.integer)) and not isinstance(value, (bool, np.bool_)):
        return int(value) >= 10007 and _sentinel_multiple(int(value))
    if isinstance(value, (tuple, list)):
        return any(mentions_symbol(v) for v in value)
    if t is slice:
        return any(mentions_symbol(v) for v in (value.start, value.stop, value.step))
    return False


def _sentinel_multiple(value):
    return any(value % s == 0 for s in BY_SENTINEL)


def format_dims(dims):
    return ",".join(str(d) for d in dims)
