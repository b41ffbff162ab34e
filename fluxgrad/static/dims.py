"""Unknown dimensions (`None` / -1 in `static.data`) and how they are bound.

An unknown dimension is a symbol `Dim`, one per axis position (every unknown axis 0
is the same batch size `N0`, every unknown axis 1 is `N1`, ...), so that `x` and
`label`, both `[None, ...]`, combine. A Variable's stand-in array uses the symbol's
`sentinel` (a large prime) for its size, so that any Python code reading shapes
sees a plain int; an output size that is a multiple of unknown sizes (`2*N0` after
`cat([x, x])`, `N0*N1`) stands in as that multiple of the sentinels; a static param or
integer constant that the sentinel entered
(`reshape(x.shape[0], -1)`, the element count of a mean) is a multiple of it and is
re-bound to the actual size when the program runs (`bind`). Output shapes are
found by running the op on small arrays under two bindings (`PROBES`): a dim that
changes between them is a symbol (or a multiple of symbols), one that doesn't is static. Limits: a size
derived from a symbol other than by multiplication (N + 1, N // 2) is refused
when the op is staged; a static size that is a multiple of a sentinel (10007)
would be mistaken for it.

A number computed in Python from an unknown size while a program is built (`1.0 /
x.shape[0]`, `x.shape[0] - 1`) is a `Derived` int or float: the stand-in value, plus how
to recompute it from the bound sizes. An op that takes one is staged as symbolic, and
`bind` recomputes it at run time, so that the program is right for every size. Python
gives a float on the left the first word (`1.0 / x.shape[0]`, `0.5 * x.shape[0]`): float's
operator reads the size as a plain int, so that number stays the stand-in's. Write
`1 / x.shape[0]` or keep the size in a tensor op (`x / x.shape[0]`).

For `fluxgrad.compile`, which must never give a silently wrong result: `alternate_sentinels()`
lets a function be traced a second time with other sentinels (two traces that differ beyond
the multiples of the sentinels used a size in a way the program can't re-bind), and while
`recorder` is a list, a SymInt compared or combined in Python (`x.shape[0] > 64`, `n - 1`)
is noted there as text (such a use can't be re-bound either), except a comparison for
equality with a small int (`x.shape == (3,)`), noted as (Dim, int): the trace holds for
every size but that one. In static mode an op whose staging depends on an unknown size
being 1 (`squeeze`) calls `assume_not`: the Executor refuses to bind that size.
"""
import contextlib
import operator

import numpy as np

recorder = None
refuse_sizes = None  # set by staging: refuse_sizes(Dim, sizes) tells the program being built


def assume_not(size, sizes):
    """An op chose what to stage as if the unknown `size` were none of `sizes` (`squeeze(0)`
    keeps an axis whose stand-in size isn't 1): the program refuses to run with them."""
    if isinstance(size, SymInt) and refuse_sizes is not None:
        refuse_sizes(size.dim, sizes)


def _derive(op, a, b):
    """op(a, b) for numbers of which one or both are SymInts or Derived: a Derived number
    (NotImplemented where the other operand is no number, so that it can take over)."""
    if not isinstance(a, (int, float)) or not isinstance(b, (int, float)):
        return NotImplemented
    value = op(_stand_in_value(a), _stand_in_value(b))
    kind = DerivedInt if type(value) is int else DerivedFloat if type(value) is float else None
    if kind is None:
        return value
    return kind(value, lambda sizes: op(_bound_value(a, sizes), _bound_value(b, sizes)),
                symbols_in((a, b)))


def _stand_in_value(v):
    if isinstance(v, bool):
        return v
    return int.__int__(v) if isinstance(v, int) else float.__float__(v)


def _bound_value(v, sizes):
    if isinstance(v, Derived):
        return v.compute(sizes)
    if type(v) is SymInt:
        return rebind_int(int.__int__(v), sizes)
    return v


def _forward(op):
    return lambda self, other: _derive(op, self, other)


def _reflected(op):
    return lambda self, other: _derive(op, other, self)


class Derived:
    """A number computed from unknown sizes in Python while a program is built: its stand-in
    value, `compute(sizes)` to recompute it from the bound sizes, and `symbols`, the Dims it
    was computed from."""
    __slots__ = ()
    __add__, __radd__ = _forward(operator.add), _reflected(operator.add)
    __sub__, __rsub__ = _forward(operator.sub), _reflected(operator.sub)
    __mul__, __rmul__ = _forward(operator.mul), _reflected(operator.mul)
    __truediv__, __rtruediv__ = _forward(operator.truediv), _reflected(operator.truediv)
    __floordiv__ = _forward(operator.floordiv)
    __pow__, __rpow__ = _forward(operator.pow), _reflected(operator.pow)

    def __neg__(self):
        return _derive(operator.mul, self, -1)


class DerivedInt(Derived, int):
    def __new__(cls, value, compute, symbols):
        self = int.__new__(cls, value)
        self.compute, self.symbols = compute, symbols
        return self

    __hash__ = int.__hash__


class DerivedFloat(Derived, float):
    def __new__(cls, value, compute, symbols):
        self = float.__new__(cls, value)
        self.compute, self.symbols = compute, symbols
        return self

    __hash__ = float.__hash__


def _arithmetic(op, text, reflected=False):
    """A SymInt operator: noted while `recorder` is a list (a compile trace keeps the size
    concrete), a Derived number while a program is built."""
    def method(self, other):
        a, b = (other, self) if reflected else (self, other)
        if recorder is None:
            return _derive(op, a, b)
        return self._note(text, other, op(_stand_in_value(a), _stand_in_value(b)))
    return method


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

    def __reduce__(self):
        return _size_of, (self.dim.index,)

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

    __add__ = _arithmetic(operator.add, "+")
    __radd__ = _arithmetic(operator.add, "+", reflected=True)
    __sub__ = _arithmetic(operator.sub, "-")
    __rsub__ = _arithmetic(operator.sub, "(subtracted from)", reflected=True)
    __floordiv__ = _arithmetic(operator.floordiv, "//")
    __truediv__ = _arithmetic(operator.truediv, "/")
    __rtruediv__ = _arithmetic(operator.truediv, "(divides)", reflected=True)
    __mod__ = _arithmetic(operator.mod, "%")
    _float_mul = _arithmetic(operator.mul, "*")

    def __mul__(self, other):
        # times an int: a multiple of the sentinel, which `bind` re-binds as it is; times a
        # float: a Derived number (else the stand-in's product would be frozen)
        return self._float_mul(other) if isinstance(other, float) else int.__mul__(self, other)

    __rmul__ = __mul__

    def __float__(self):
        return self._note("float()", None, int.__float__(self))


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

    def __reduce__(self):  # (a saved program's dims are the same Dims after loading)
        return _symbol, (self.index,)


def _symbol(index):
    return SYMBOLS[index]


def _size_of(index):
    return SYMBOLS[index].size


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
    """Whether a stand-in shape has an unknown size (a sentinel or a multiple of one)."""
    return not BY_SENTINEL.keys().isdisjoint(shape) or any(
        s >= 10007 and _sentinel_multiple(s) for s in shape)


def size_from_probes(a, b):
    """The dim of an output whose size was `a` and `b` under the two probe bindings: an int
    that does not change, a Dim, or the stand-in of a multiple of unknown sizes (`2 * N0`,
    `N0 * N1`: an int rebind_int re-binds); None for any other size (N - 1, N // 2)."""
    if a == b:
        return a
    for d in SYMBOLS:
        if (a, b) == d.probes:
            return d
    for k, d in enumerate(SYMBOLS):
        for e in SYMBOLS[k:]:
            for p, q, sentinel in ((d.probes[0], d.probes[1], d.sentinel),
                                   (d.probes[0] * e.probes[0], d.probes[1] * e.probes[1],
                                    d.sentinel * e.sentinel)):
                if a % p == 0 and b % q == 0 and a // p == b // q and a:
                    return a // p * sentinel
    return None


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
    if isinstance(value, Derived):
        return value.compute(sizes)
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
    if isinstance(value, Derived):
        return True
    if isinstance(value, (int, np.integer)) and not isinstance(value, (bool, np.bool_)):
        return int(value) >= 10007 and _sentinel_multiple(int(value))
    if isinstance(value, (tuple, list)):
        return any(mentions_symbol(v) for v in value)
    if t is slice:
        return any(mentions_symbol(v) for v in (value.start, value.stop, value.step))
    return False


def symbols_in(value):
    """The Dims `value` (a param, a scalar or a container of them) was computed from."""
    if isinstance(value, Derived):
        return value.symbols
    if type(value) is SymInt:
        return frozenset((value.dim,))
    if isinstance(value, Dim):
        return frozenset((value,))
    if isinstance(value, (int, np.integer)) and not isinstance(value, (bool, np.bool_)):
        value = int(value)
        return frozenset(d for d in SYMBOLS if value >= 10007 and value % d.sentinel == 0)
    if isinstance(value, dict):
        value = list(value.values())
    elif isinstance(value, slice):
        value = (value.start, value.stop, value.step)
    if isinstance(value, (tuple, list)):
        return frozenset().union(*map(symbols_in, value))
    return frozenset()


def _sentinel_multiple(value):
    return any(value % s == 0 for s in BY_SENTINEL)


def format_dims(dims):
    return ",".join(map(_format_dim, dims))


def _format_dim(d):
    """A dim as text: `3`, `N0`, or a multiple of unknown sizes as `2*N0` / `N0*N1`."""
    if type(d) is not int or d < 10007 or not _sentinel_multiple(d):
        return str(d)
    factors, rest = [], d
    for sentinel, dim in BY_SENTINEL.items():
        while rest % sentinel == 0:
            rest //= sentinel
            factors.append(dim.name)
    return "*".join(([str(rest)] if rest != 1 else []) + factors)
