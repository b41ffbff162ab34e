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
changes between them is a symbol (or a multiple of symbols), one that doesn't is static. A size
that is neither (`x[1:]`: N - 1, `x[::2]`: (N + 1) // 2, a convolution's
(N + 2p - k) // s + 1, `cat` with a known size: N + 3) is fitted, from runs of the op at many
sizes of one unknown dim, as a `Size`: max(0, (a*N + b) // q) with a, q >= 1; it stands in as a
prime of its own (`Size.stand_in`, above the sentinels; `pretty_shape` gives it as a `SizeInt`),
and the Executor checks at run time that every step whose output has one gives that size.
Limits: a size computed from two unknown sizes other than by multiplication (N0 + N1) is refused
when the op is staged; a static size that is a multiple of a sentinel (10007) or of a Size's
stand-in would be mistaken for it; a Size's stand-in is numbered in the order Sizes are made,
so a program saved with one (`static.save`) loads into a process that makes them in that order.
Python reads a size without a call fluxgrad sees, and so decides unseen, in: a float on the
left (`2.5 < n`, `1.0 / n`: float's operator reads the size as a plain int: write `n > 2.5`,
`1 / n`), set and dict lookups (`n in {1, 2}`: hashing; a tuple is seen), a size times an int
(`2 * n`: a plain multiple of the sentinel, re-bound where an op takes it, compared as the
stand-in), NumPy and C code (`np.sqrt(n)`, `range(n)`: the Executor refuses a program in which
one line staged about k times a stand-in's count of equations, a Python loop over
`range(x.shape[0])`), and fluxgrad's own code (a model of fluxgrad.vision deciding from a size);
a comparison made after static mode is turned off decides nothing the program holds.

A size that depends on the values of the data (the count of entries `x[x > 0]` selects) is a
`produced` Dim of its own (U0, U1, ..., `PRODUCED`: sentinels and probes of their own, above
the ones of `static.data`'s sizes): staging gives it to an op's result (`staging.DATA_DEPENDENT`),
the same one to the same op on masks computed alike (its JVP, `x > 0` written twice), and the
Executor binds it from the shape of the first result that has it; every other rule above holds
for it as for a fed size.

A number computed in Python from an unknown size while a program is built (`1 /
x.shape[0]`, `x.shape[0] - 1`, `-n`, `n ** 2`, `n % 2`, `abs`, `round`, `math.ceil`) is a
`Derived` int or float: the stand-in value, plus its `formula` (data: Dims, Sizes, numbers and
the operators) to recompute it from the bound sizes. An op that takes one is staged as
symbolic, and `bind` recomputes it at run time, so that the program is right for every size.
float() and int() must give plain numbers: in user code, float() of a SymInt or Derived and
int() of a Derived are refused (`int(x.shape[0])` stays the sentinel, re-bound as a multiple).

Python code that decides something from an unknown size while a program is built (`if
x.shape[0] > 64:`, `x.shape == (5, 3)`, `min(x.shape[0], 5)`, `x.shape[0] % 2 == 0`, `if
x.shape[0]:`, on SymInts, Derived numbers and SizeInts alike) gets the stand-ins' answer, and
the program is right only for the sizes that give the same one. So each comparison and bool()
made in user code while static mode is on is a `Condition` (`left rel right`, the relation found
true, as formulas) of the program being built (`decide`: the enclosing program, for a branch),
with the user's line; the Executor refuses a run whose sizes break one. A decision true for every
size (a size compared with a negative number, a formula with itself: `settled`) is none; one
that no size makes true (a clamped Size's stand-in above its clamp) is refused at once. User
code is a frame outside fluxgrad (`user_frame`, NumPy's frames passed through): fluxgrad's own
shape checks compare sizes all the time (a size against 1 to broadcast), and a condition of
theirs would refuse sizes the staging proves right (N0 = 1 in 9 of the 66 programs of
test_static_unknown_sizes/sizes/random_programs); the sizes they would decide otherwise
(below 3, a Size's) are the Executor's shape checks' to refuse.

For `fluxgrad.compile`, which must never give a silently wrong result: `alternate_sentinels()`
lets a function be traced a second time with other sentinels (two traces that differ beyond
the multiples of the sentinels used a size in a way the program can't re-bind), and while
`recorder` is a list, a SymInt compared or combined in Python (`x.shape[0] > 64`, `n - 1`)
is noted there as text (such a use can't be re-bound either), except a comparison for
equality with a small int (`x.shape == (3,)`), noted as (Dim, int): the trace holds for
every size but that one (the static Conditions above are not made while `recorder` is a list:
a compile trace keeps its own guards). In static mode an op whose staging depends on an unknown
size being 1 (`squeeze`) calls `assume_not`: the Executor refuses to bind that size.
"""
import contextlib
import math
import operator
import sys

import numpy as np

from .._core.static_mode import state as _static

recorder = None
refuse_sizes = None  # set by staging: refuse_sizes(Dim, sizes) tells the program being built


def assume_not(size, sizes):
    """An op chose what to stage as if the unknown `size` were none of `sizes` (`squeeze(0)`
    keeps an axis whose stand-in size isn't 1): the program refuses to run with them (with
    the sizes of its dim that give them, for a Size)."""
    if refuse_sizes is None:
        return
    if isinstance(size, SymInt):
        refuse_sizes(size.dim, sizes)
    elif isinstance(size, SizeInt):
        expr = size.expr
        solutions = [expr.solve(s) for s in sizes]
        if None in solutions:
            raise ValueError(f"the size {expr.name} is {sorted(sizes)} for every large "
                             f"{expr.dim.name}, where the program was built as if it were not; "
                             "give static.data a known size")
        refuse_sizes(expr.dim, {n for ns in solutions for n in ns})


decide = None  # set by staging: decide(Condition) adds it to the program being built
_RELATIONS = {"==": operator.eq, "!=": operator.ne, "<": operator.lt, "<=": operator.le,
              ">": operator.gt, ">=": operator.ge}
_NEGATION = {"==": "!=", "!=": "==", "<": ">=", "<=": ">", ">": "<=", ">=": "<"}
_METHODS = {"==": "__eq__", "!=": "__ne__", "<": "__lt__", "<=": "__le__", ">": "__gt__",
            ">=": "__ge__"}
_OPERATORS = {operator.add: "+", operator.sub: "-", operator.mul: "*", operator.truediv: "/",
              operator.floordiv: "//", operator.mod: "%", operator.pow: "**"}


class Condition:
    """`left rel right`, formulas of unknown sizes (see `formula`) that user code found true
    while the program was built, deciding at `source` ('file:line'); the program is right
    only for sizes where it holds (`holds(sizes)`), the Executor refuses the others."""
    __slots__ = ("rel", "left", "right", "source", "symbols")

    def __init__(self, rel, left, right, source):
        self.rel, self.left, self.right, self.source = rel, left, right, source
        self.symbols = _formula_symbols(left) | _formula_symbols(right)

    def holds(self, sizes):
        return bool(_RELATIONS[self.rel](evaluate(self.left, sizes),
                                         evaluate(self.right, sizes)))

    def key(self):
        return self.rel, self.left, self.right

    def __str__(self):
        return f"{formula_text(self.left)} {self.rel} {formula_text(self.right)}"

    __repr__ = __str__


def decided(rel, left, right, frame):
    """User code at `frame` found `left rel right` true of numbers computed from unknown sizes
    (SymInts, Derived) while static mode is on: a Condition of the program being built,
    unless it is true whatever the sizes (`settled`)."""
    left, right = formula(left), formula(right)
    if decide is None or settled(rel, left, right):
        return
    condition = Condition(rel, left, right, f"{frame.f_code.co_filename}:{frame.f_lineno}")
    if settled(_NEGATION[rel], left, right):  # (a clamped size's stand-in exceeds its clamp)
        raise ValueError(
            f"{condition.source}: Python code compared unknown sizes while a static program was "
            f"built and found {condition} of the stand-in sizes ({evaluate(left, {})} {rel} "
            f"{evaluate(right, {})}), which no size fed makes true: give static.data a known "
            "size, or make the choice inside the program with tensor ops (fluxgrad.where) or "
            "static.nn.cond")
    decide(condition)


def formula(v):
    """A number computed from unknown sizes as data: a Dim, a Size, a plain number,
    (operator, formula, formula) or (function, formula) (`abs`, `math.ceil`): picklable;
    `evaluate` computes it under bound sizes."""
    if type(v) is SymInt:
        return v.dim
    if isinstance(v, Derived):
        return v.formula
    if isinstance(v, (np.integer, np.floating)):
        return v.item()
    return v


def evaluate(f, sizes):
    """The value of formula `f` under `sizes` (sentinel -> size)."""
    t = type(f)
    if t is tuple:
        return f[0](*[evaluate(a, sizes) for a in f[1:]])
    if t is Dim:
        return sizes.get(f.sentinel, f.sentinel)
    if t is Size:
        return f.evaluate(sizes)
    if t is int:
        return rebind_int(f, sizes)  # (a multiple of sentinels, `2 * n`, is a plain int)
    return f


def formula_text(f, inner=False):
    if type(f) is tuple:
        if f[0] not in _OPERATORS:
            return f"{f[0].__name__}({', '.join(map(formula_text, f[1:]))})"
        op, a, b = f
        text = f"{formula_text(a, True)} {_OPERATORS[op]} {formula_text(b, True)}"
        return f"({text})" if inner else text
    if type(f) is Size:
        return f"({f.name})" if inner and not f.name.startswith(("(", "min(")) else f.name
    if type(f) is Dim:
        return f.name
    return _format_dim(f) if type(f) is int else repr(f)


def _formula_symbols(f):
    t = type(f)
    if t is tuple:
        return frozenset().union(*map(_formula_symbols, f[1:]))
    if t is Dim:
        return frozenset((f,))
    if t is Size:
        return frozenset((f.dim,))
    return symbols_in(f) if t is int else frozenset()


def settled(rel, left, right):
    """Whether `left rel right` is true for every size: a formula equals itself, and a size
    (from 0 up, at most a Size's clamp) compared with a number outside its range."""
    if left == right:
        return rel in ("==", "<=", ">=")
    for size, number, flipped in ((left, right, False), (right, left, True)):
        if type(size) in (Dim, Size) and type(number) in (int, float) and not (
                type(number) is int and number >= 10007 and _sentinel_multiple(number)):
            low = size.evaluate({size.dim.sentinel: 0}) if type(size) is Size else 0
            high = size.hi if type(size) is Size and size.hi is not None else float("inf")
            if rel == "!=":
                return number < low or number > high or number % 1 != 0
            if rel == "==":
                return False
            compare = _RELATIONS[rel]  # (monotone in the size: true at both ends, throughout)
            if flipped:
                return compare(number, low) and compare(number, high)
            return compare(low, number) and compare(high, number)
    return False


def _derive(op, a, b):
    """op(a, b) for numbers of which one or both are SymInts or Derived: a Derived number
    (NotImplemented where the other operand is no number, so that it can take over)."""
    if not isinstance(a, (int, float)) or not isinstance(b, (int, float)):
        return NotImplemented
    value = op(_stand_in_value(a), _stand_in_value(b))
    kind = DerivedInt if type(value) is int else DerivedFloat if type(value) is float else None
    if kind is None:
        return value
    return kind(value, (op, formula(a), formula(b)), symbols_in((a, b)))


def _stand_in_value(v):
    if isinstance(v, bool):
        return v
    return int.__int__(v) if isinstance(v, int) else float.__float__(v)


def _unary(function):
    """function(self) (abs, round, math.ceil, ...) of a SymInt or Derived: a Derived number."""
    def method(self, *args):
        value = function(_stand_in_value(self), *args)
        kind = DerivedInt if type(value) is int else DerivedFloat
        return kind(value, (function, formula(self), *args), symbols_in(self))
    return method


def _forward(op):
    return lambda self, other: _derive(op, self, other)


def _reflected(op):
    return lambda self, other: _derive(op, other, self)


def _decision(rel):
    """A comparison operator of SymInt and Derived while a program is built: the stand-ins'
    result, which user code's comparison (not fluxgrad's own shape checks) makes a condition
    of the program (see `decided`); noted as `SymInt._note` says while a compile trace
    records."""
    compare = _RELATIONS[rel]
    noted = getattr(int, _METHODS[rel])

    def method(self, other):
        if recorder is not None and type(self) is SymInt:
            return self._note(rel, other, noted(self, other))
        if not isinstance(other, (int, float)):
            if not isinstance(other, (np.integer, np.floating)) or isinstance(other, np.bool_):
                return NotImplemented
            other = other.item()
        result = compare(_stand_in_value(self), _stand_in_value(other))
        if _static.enabled:
            frame = user_frame()
            if frame is not None:
                decided(rel if result else _NEGATION[rel], self, other, frame)
        return result
    return method


def _truth(self):
    """bool() of a SymInt or Derived: a decision as `_decision`'s, `size != 0`."""
    result = _stand_in_value(self) != 0
    if _static.enabled and recorder is None:
        frame = user_frame()
        if frame is not None:
            decided("!=" if result else "==", self, 0, frame)
    return result


def _plain_float(v):
    """float() of a SymInt or Derived: refused in user code while static mode is on (a plain
    float can't follow the size fed, and float() must give one)."""
    if _static.enabled and user_frame(3) is not None:
        text, term = formula_text(formula(v)), formula_text(formula(v), inner=True)
        raise TypeError(
            f"float() of {text}, a number computed from an unknown size, gives the stand-in "
            f"{_stand_in_value(v)!r}, which the program can't recompute for the size fed (math "
            "functions call float() too); compute with operators instead "
            f"(`{term} * 1.0`, `1 / {term}`: numbers the program recomputes), keep it in a tensor "
            "op (x / x.shape[0]), or give static.data a known size")
    return float(_stand_in_value(v))


def user_frame(depth=2):
    """The frame that called the caller (depth 2), if it is user code, else None: fluxgrad's
    own shape checks compare sizes too, and are right for every size the Executor lets
    through; NumPy's Python code is passed through to the code that called it (np.prod of
    a shape in fluxgrad is fluxgrad's)."""
    frame = sys._getframe(depth)
    name = frame.f_globals.get("__name__", "")
    while name.startswith("numpy") and frame.f_back is not None:
        frame = frame.f_back
        name = frame.f_globals.get("__name__", "")
    return None if name.startswith("fluxgrad") else frame


class Derived:
    """A number computed from unknown sizes in Python while a program is built: its stand-in
    value, `formula` (see `formula`) to recompute it from the bound sizes (`compute(sizes)`),
    and `symbols`, the Dims it was computed from. Comparing one is a decision (`_decision`)."""
    __slots__ = ()
    __add__, __radd__ = _forward(operator.add), _reflected(operator.add)
    __sub__, __rsub__ = _forward(operator.sub), _reflected(operator.sub)
    __mul__, __rmul__ = _forward(operator.mul), _reflected(operator.mul)
    __truediv__, __rtruediv__ = _forward(operator.truediv), _reflected(operator.truediv)
    __floordiv__, __rfloordiv__ = _forward(operator.floordiv), _reflected(operator.floordiv)
    __mod__, __rmod__ = _forward(operator.mod), _reflected(operator.mod)
    __pow__, __rpow__ = _forward(operator.pow), _reflected(operator.pow)
    __eq__, __ne__ = _decision("=="), _decision("!=")
    __lt__, __le__ = _decision("<"), _decision("<=")
    __gt__, __ge__ = _decision(">"), _decision(">=")
    __bool__ = _truth
    __abs__, __round__ = _unary(abs), _unary(round)
    __ceil__, __floor__, __trunc__ = _unary(math.ceil), _unary(math.floor), _unary(math.trunc)

    def __neg__(self):
        return _derive(operator.mul, self, -1)

    def __divmod__(self, other):
        return self // other, self % other

    def __float__(self):
        return _plain_float(self)

    def __int__(self):
        if _static.enabled and user_frame() is not None:
            text = formula_text(self.formula)
            raise TypeError(
                f"int() of {text}, a number computed from an unknown size, gives the plain "
                f"stand-in {_stand_in_value(self)!r}, which the program can't recompute for the "
                f"size fed; drop the int() (`//`, round() and math.floor keep the number one "
                "the program recomputes), or give static.data a known size")
        return int(_stand_in_value(self))

    def compute(self, sizes):
        return evaluate(self.formula, sizes)


class DerivedInt(Derived, int):
    def __new__(cls, value, formula, symbols):
        self = int.__new__(cls, value)
        self.formula, self.symbols = formula, symbols
        return self

    __hash__ = int.__hash__

    def __reduce__(self):
        return DerivedInt, (int.__int__(self), self.formula, self.symbols)


class DerivedFloat(Derived, float):
    def __new__(cls, value, formula, symbols):
        self = float.__new__(cls, value)
        self.formula, self.symbols = formula, symbols
        return self

    __hash__ = float.__hash__

    def __reduce__(self):
        return DerivedFloat, (float.__float__(self), self.formula, self.symbols)


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

    __eq__, __ne__ = _decision("=="), _decision("!=")
    __lt__, __le__ = _decision("<"), _decision("<=")
    __gt__, __ge__ = _decision(">"), _decision(">=")
    __bool__ = _truth

    __add__ = _arithmetic(operator.add, "+")
    __radd__ = _arithmetic(operator.add, "+", reflected=True)
    __sub__ = _arithmetic(operator.sub, "-")
    __rsub__ = _arithmetic(operator.sub, "(subtracted from)", reflected=True)
    __floordiv__ = _arithmetic(operator.floordiv, "//")
    __truediv__ = _arithmetic(operator.truediv, "/")
    __rtruediv__ = _arithmetic(operator.truediv, "(divides)", reflected=True)
    __mod__ = _arithmetic(operator.mod, "%")
    __rmod__ = _arithmetic(operator.mod, "(modulo)", reflected=True)
    __pow__ = _arithmetic(operator.pow, "**")
    __rpow__ = _arithmetic(operator.pow, "(raised to)", reflected=True)
    __rfloordiv__ = _arithmetic(operator.floordiv, "(floor-divides)", reflected=True)
    _float_mul = _arithmetic(operator.mul, "*")

    def __mul__(self, other):
        # times an int: a multiple of the sentinel, which `bind` re-binds as it is; times a
        # float: a Derived number (else the stand-in's product would be frozen)
        return self._float_mul(other) if isinstance(other, float) else int.__mul__(self, other)

    __rmul__ = __mul__

    def __neg__(self):
        return _derive(operator.mul, self, -1) if recorder is None else int.__neg__(self)

    def __divmod__(self, other):
        return self // other, self % other

    def __float__(self):
        if recorder is None:
            return _plain_float(self)
        return self._note("float()", None, int.__float__(self))


class Dim:
    """An unknown size: printed by `name`, stood in for by `sentinel`; `produced`: a size an
    op's result has (`x[mask]`), bound when the Executor runs that op, not from a feed."""
    __slots__ = ("index", "name", "sentinel", "alternate", "probes", "size", "produced")

    def __init__(self, index, sentinel, alternate, probes, produced=False):
        self.index = index
        self.produced = produced
        self.name = f"U{index - len(_SENTINELS)}" if produced else f"N{index}"
        self.sentinel = sentinel
        self.alternate = alternate
        self.probes = probes
        self.size = SymInt(self)

    def __repr__(self):
        return self.name

    def __reduce__(self):  # (a saved program's dims are the same Dims after loading)
        return _symbol, (self.index,)


def _symbol(index):
    return ALL_SYMBOLS[index]


def _size_of(index):
    return ALL_SYMBOLS[index].size


_SENTINELS = (10007, 10009, 10037, 10039, 10061, 10067, 10069, 10079)
_ALTERNATES = (10091, 10093, 10099, 10103, 10111, 10133, 10139, 10141)
# the sizes staging runs an op at: each pair's difference and ratio its own, so that no size
# a + k*N of one dim has another dim's pair (N0 + 2 would be N1 with (3, 29) and (5, 31))
_PROBES = ((3, 29), (5, 37), (7, 47), (11, 59), (13, 67), (17, 79), (19, 89), (23, 97))
SYMBOLS = tuple(Dim(i, s, a, p) for i, (s, a, p) in
                enumerate(zip(_SENTINELS, _ALTERNATES, _PROBES)))
# the sizes of data-dependent results (`x[mask]`, see `produced_dim`): primes of their own, and
# probe pairs whose differences and ratios differ from the ones above and from each other
_PRODUCED_SENTINELS = (20011, 20021, 20023, 20029, 20047, 20051, 20063, 20071)
_PRODUCED_ALTERNATES = (20089, 20101, 20107, 20113, 20117, 20123, 20129, 20143)
_PRODUCED_PROBES = ((41, 113), (43, 127), (53, 139), (61, 151), (71, 167), (73, 179),
                    (83, 191), (101, 211))
PRODUCED = tuple(Dim(len(_SENTINELS) + i, s, a, p, produced=True) for i, (s, a, p) in
                 enumerate(zip(_PRODUCED_SENTINELS, _PRODUCED_ALTERNATES, _PRODUCED_PROBES)))
ALL_SYMBOLS = SYMBOLS + PRODUCED
BY_SENTINEL = {d.sentinel: d for d in ALL_SYMBOLS}


def produced_dim(taken, op):
    """A size of a data-dependent result that none of `taken` (the ones a program has) is."""
    for d in PRODUCED:
        if d not in taken:
            return d
    raise ValueError(f"{op}: a program can hold {len(PRODUCED)} sizes that depend on the data "
                     "(x[mask], masked_select), this is one more; split the program, or keep the "
                     "selection as a mask (fluxgrad.where, x * mask)")


class Size:
    """A size computed from one unknown size N: max(0, (a*N + b) // q), with a, q >= 1, and
    at most `hi` where that is not None (`x[:4]`: min(N, 4)) (see the module docstring); made
    once per (dim, a, b, q, hi) by `size_of`."""
    __slots__ = ("dim", "a", "b", "q", "hi", "stand_in", "name")

    def __init__(self, dim, a, b, q, hi, stand_in):
        self.dim, self.a, self.b, self.q, self.hi = dim, a, b, q, hi
        self.stand_in = stand_in
        term = dim.name if a == 1 else f"{a}*{dim.name}"
        if b:
            term += f"{b:+d}"
        self.name = term if q == 1 else f"({term})//{q}"
        if hi is not None:
            self.name = f"min({self.name},{hi})"

    def __repr__(self):
        return self.name

    def __reduce__(self):
        return size_of, (self.dim, self.a, self.b, self.q, self.hi)

    def evaluate(self, sizes):
        n = sizes.get(self.dim.sentinel)
        if n is None:
            return self.stand_in
        size = max(0, (self.a * n + self.b) // self.q)
        return size if self.hi is None or size < self.hi else self.hi

    def size(self):
        """This size as `Variable.shape` gives it (a SizeInt)."""
        return SizeInt(self)

    def solve(self, value):
        """The sizes of `dim` for which this size is `value` (from 0 up; None: all from some
        size up)."""
        a, b, q = self.a, self.b, self.q
        if self.hi is not None and value >= self.hi:
            return range(0) if value > self.hi else None  # (None: every size from one up)
        low = max(0, -(-(q * value - b) // a)) if value else 0
        return range(low, max(low, -(-(q * (value + 1) - b) // a)))


class SizeInt(DerivedInt):
    """A Size as `Variable.shape` gives it: its stand-in, recomputed from the bound sizes."""

    def __new__(cls, expr):
        self = DerivedInt.__new__(cls, expr.stand_in, expr, frozenset((expr.dim,)))
        self.expr = expr
        return self

    def __repr__(self):
        return self.expr.name

    __str__ = __repr__
    __hash__ = int.__hash__

    def __reduce__(self):
        return _size_int, (self.expr,)


def _size_int(expr):
    return SizeInt(expr)


SIZES = {}  # stand-in -> Size
_BY_FORM = {}  # (dim, a, b, q) -> Size
FIRST_STAND_IN = 10151  # the first prime above the sentinels and their alternates


def size_of(dim, a, b, q, hi=None):
    """The dim max(0, (a*N + b) // q) (at most `hi`) of the unknown size N = `dim`: a Dim, a
    multiple of its sentinel, or a Size."""
    if q == 1 and b == 0 and hi is None:
        return dim if a == 1 else a * dim.sentinel
    key = (dim, a, b, q, hi)
    size = _BY_FORM.get(key)
    if size is None:
        stand_in = max(SIZES, default=FIRST_STAND_IN - 2) + 2
        while any(stand_in % k == 0 for k in range(3, int(stand_in ** 0.5) + 1, 2)) or \
                stand_in in _PRODUCED_SENTINELS or stand_in in _PRODUCED_ALTERNATES:
            stand_in += 2
        size = _BY_FORM[key] = SIZES[stand_in] = Size(dim, a, b, q, hi, stand_in)
    return size


# the sizes an output's size is fitted on (`fit`): small ones, where slices empty, and a few
# larger ones of every residue of small strides
FIT_SIZES = (0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 16, 24, 29, 30, 31, 37, 64)


def fit(dim, observed):
    """The dim of an output whose size was `observed[n]` when `dim` was n (sizes where the op
    failed are left out): a Size, a Dim or a multiple of it; None if none fits."""
    ns = sorted(observed)
    if len(ns) < 8 or ns[-1] < 29:
        return None
    top = observed[ns[-1]]
    # a size that stops growing (`x[:4]`) is clamped: the affine part fits below the clamp
    clamp = top if observed[ns[-2]] == top == observed[ns[-3]] and top > 0 else None
    rising = [n for n in ns if observed[n] != clamp]
    if len(rising) >= 2 and observed[rising[-1]] > observed[rising[0]]:
        slope = (observed[rising[-1]] - observed[rising[0]]) / (rising[-1] - rising[0])
    elif clamp is not None:
        slope = None  # from 0 straight to the clamp: try slopes up to 4
    else:
        return None
    for q in range(1, 17):
        slopes = range(1, 4 * q + 1) if slope is None else \
            range(max(1, int(slope * q) - 1), int(slope * q) + 2)
        for a in slopes:
            lo, hi = -float("inf"), float("inf")
            for n in ns:
                out = observed[n]
                if out == clamp:
                    lo = max(lo, q * out - a * n)
                elif out:
                    lo, hi = max(lo, q * out - a * n), min(hi, q * out + q - 1 - a * n)
                else:
                    hi = min(hi, q - 1 - a * n)
            if lo <= hi and lo != -float("inf"):
                return size_of(dim, a, int(lo), q, clamp)
    return None


@contextlib.contextmanager
def alternate_sentinels():
    """Every Dim stands in by its `alternate` sentinel meanwhile."""
    _swap()
    try:
        yield
    finally:
        _swap()


def _swap():
    for d in ALL_SYMBOLS:
        d.sentinel, d.alternate = d.alternate, d.sentinel
        d.size = SymInt(d)
    BY_SENTINEL.clear()
    BY_SENTINEL.update((d.sentinel, d) for d in ALL_SYMBOLS)


def could_be_sentinel(size):
    """Whether a static size would be mistaken for a multiple of a sentinel."""
    return size >= 10007 and (any(size % d.sentinel == 0 or size % d.alternate == 0
                                  for d in ALL_SYMBOLS) or any(size % s == 0 for s in SIZES))


def symbol_for_axis(axis, op="static.data"):
    if axis >= len(SYMBOLS):
        raise ValueError(f"{op}: an unknown size is supported on the first {len(SYMBOLS)} axes "
                         f"only, got one on axis {axis}")
    return SYMBOLS[axis]


def stand_in_shape(dims):
    types = set(map(type, dims))
    if Dim not in types and Size not in types:  # (known sizes: the common case, without a loop)
        return tuple(dims)
    return tuple(d.sentinel if isinstance(d, Dim) else d.stand_in if isinstance(d, Size) else d
                 for d in dims)


def pretty_shape(shape):
    """A stand-in shape with its unknown sizes as SymInts (printed by name), its Sizes as
    SizeInts."""
    return tuple(BY_SENTINEL[s].size if s in BY_SENTINEL else
                 SIZES[s].size() if s in SIZES else s for s in shape)


def dims_of(shape):
    """The dims (ints, Dims and Sizes) of a stand-in shape."""
    return tuple(BY_SENTINEL.get(s) or SIZES.get(s, s) for s in shape)


def bind_dim(d, sizes):
    """The size a dim (an int, a Dim or a Size) has under `sizes`."""
    if isinstance(d, Dim):
        return sizes.get(d.sentinel, d.sentinel)
    if isinstance(d, Size):
        return d.evaluate(sizes)
    return rebind_int(d, sizes)


def produced_in(dims):
    """Whether `dims` hold a size that depends on the data (a `produced` Dim)."""
    return any(isinstance(d, Dim) and d.produced for d in dims)


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
    for d in ALL_SYMBOLS:
        if (a, b) == d.probes:
            return d
    for k, d in enumerate(ALL_SYMBOLS):
        for e in ALL_SYMBOLS[k:]:
            for p, q, sentinel in ((d.probes[0], d.probes[1], d.sentinel),
                                   (d.probes[0] * e.probes[0], d.probes[1] * e.probes[1],
                                    d.sentinel * e.sentinel)):
                if a % p == 0 and b % q == 0 and a // p == b // q and a:
                    return a // p * sentinel
    return None


def lost_size(value):
    """An int in `value` (params, scalars) that looks computed from an unknown size but is a
    plain int (`operator.index`, `int()` dropped the Derived it was): within 64 of a multiple
    of a sentinel without being one, nor a multiple of 10 (10000 is taken for a known size).
    None if there is none."""
    t = type(value)
    if isinstance(value, (tuple, list)):
        return next((v for v in map(lost_size, value) if v is not None), None)
    if t is dict:
        return lost_size(list(value.values()))
    if t is slice:
        return lost_size((value.start, value.stop, value.step))
    if t is int or isinstance(value, np.integer) and not isinstance(value, np.bool_):
        v = abs(int(value))
        if v < 10007 - 64 or v % 10 == 0 or _sentinel_multiple(v):
            return None
        for s in BY_SENTINEL:
            k = max(1, round(v / s))
            if abs(v - k * s) <= 64 and k <= 64:
                return int(value)
    return None


def sizes_in(value):
    """The Sizes a value (a shape, params, a scalar) mentions: a Size, a SizeInt, an int a
    Size's stand-in divides, or containers of them."""
    t = type(value)
    if t is Size:
        return [value]
    if t is SizeInt:
        return [value.expr]
    if t is slice:
        value = (value.start, value.stop, value.step)
    elif t is dict:
        value = list(value.values())
    if isinstance(value, (tuple, list)):
        return [s for v in value for s in sizes_in(v)]
    if isinstance(value, (int, np.integer)) and not isinstance(value, (bool, np.bool_)) and \
            value >= FIRST_STAND_IN:
        return [size for stand_in, size in SIZES.items() if int(value) % stand_in == 0]
    return []


def size_from_units(probed, sizes, dims):
    """The dim whose sizes under the two probe bindings were `probed`, as a multiple of one of
    `sizes` (Sizes), maybe times one of them or of `dims`: the Size, or the int stand-in of
    the multiple; None if there is none."""
    a, b = probed
    bindings = [{d.sentinel: d.probes[k] for d in ALL_SYMBOLS} for k in (0, 1)]
    units = [(s, s.evaluate(bindings[0]), s.evaluate(bindings[1]), s.stand_in) for s in sizes]
    others = [(None, 1, 1, 1)] + units + [(d, *d.probes, d.sentinel) for d in dims]
    for size, p, q, stand_in in units:
        for other, p2, q2, stand_in2 in others:
            p1, q1 = p * p2, q * q2
            if p1 and q1 and a % p1 == 0 and b % q1 == 0 and a // p1 == b // q1:
                if a == p1 and other is None:
                    return size
                return a // p1 * stand_in * stand_in2
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
    if rest >= FIRST_STAND_IN and SIZES:
        for stand_in, size in SIZES.items():
            while rest % stand_in == 0:
                rest //= stand_in
                out *= size.evaluate(sizes)
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
    if isinstance(value, Size):
        return frozenset((value.dim,))
    if isinstance(value, (int, np.integer)) and not isinstance(value, (bool, np.bool_)):
        value = int(value)
        if value < 10007:
            return frozenset()
        return frozenset([d for d in ALL_SYMBOLS if value % d.sentinel == 0] +
                         [e.dim for s, e in SIZES.items() if value % s == 0])
    if isinstance(value, dict):
        value = list(value.values())
    elif isinstance(value, slice):
        value = (value.start, value.stop, value.step)
    if isinstance(value, (tuple, list)):
        return frozenset().union(*map(symbols_in, value))
    return frozenset()


def _sentinel_multiple(value):
    return any(value % s == 0 for s in BY_SENTINEL) or (
        value >= FIRST_STAND_IN and value in SIZES or any(value % s == 0 for s in SIZES))


def format_dims(dims):
    return ",".join(map(_format_dim, dims))


def _format_dim(d):
    """A dim as text: `3`, `N0`, `N0-1`, or a multiple of unknown sizes as `2*N0` / `N0*N1`."""
    if type(d) is not int or d < 10007 or not _sentinel_multiple(d):
        return str(d)
    factors, rest = [], d
    for sentinel, dim in BY_SENTINEL.items():
        while rest % sentinel == 0:
            rest //= sentinel
            factors.append(dim.name)
    for stand_in, size in SIZES.items():
        while rest % stand_in == 0:
            rest //= stand_in
            factors.append(f"({size.name})")
    return "*".join(([str(rest)] if rest != 1 else []) + factors)
