"""Guards as generated code: one function per trace, checking a call's arguments against it and
running it.

`runner(entry, specs, grad, finish, forward, contiguous)` -> `run(args)` for calls with
positional arguments only, one per spec: `("tensor", class, dtype, requires_grad, dims,
excluded)` or `("value", python_scalar)`. It returns `MISS` unless grad mode is `grad`, each
value argument has its type and value, and each Tensor argument has its class (exactly: never
a static Variable), dtype (the same object), requires_grad flag (in grad mode), with
`contiguous` (a trace that read an argument's memory layout, `views`) a C-contiguous array (a
trace of other strides is keyed by them: `signature`; a trace that read none serves
arguments of any strides), and, per axis, its concrete size (or, on an unknown axis, a size
>= 2, not in `excluded[axis]`, equal to the other sizes sharing its unknown); else it calls
`finish(entry, args, tensors, arrays)` (which runs the compiled code on the Tensors' arrays
and wraps the results), or, given
`forward` (code returning one array to wrap as a Tensor), calls that directly. For a trace
of `x: f32[N0, 4]`, `w: f32[4, 3]` that reads a layout:

    def run(args):
        if _disabled and _grad.enabled is not True or _open.count and (_batch.sizes or
                                                                         _forward.level):
            return MISS  # (under vmap or forward mode the call runs `fn` inline)
        try:
            a0, a1, = args
        except ValueError:  # another number of arguments
            return MISS
        if type(a0) is not _c0 or type(a1) is not _c1:
            return MISS
        d0, d1, = a0._data, a1._data,
        if d0.dtype is not _t0 or d1.dtype is not _t1 or a0._requires_grad is not _r0 ...:
            return MISS
        if d1.shape != _s0:  # (4, 3)
            return MISS
        if d1.strides != _st0:  # C order: (12, 4)
            return MISS
        if not d0.flags.c_contiguous:  # (strides that follow an unknown size)
            return MISS
        s0 = d0.shape
        if len(s0) != 2 or s0[1] != 4 or s0[0] < 2:
            return MISS
        return _finish(_entry, args, (a0, a1, ), (d0, d1, ))  # or: _make(_code(d0, d1)[0])

For more than a few arguments each kind of check is one comparison of tuples instead
(`(d0.dtype, d1.dtype, ...) != _tall`); for many (more than `_MAPPED`), of tuples that `map`
makes, with no local per argument (`tuple(map(_dtype, ds)) != _tall`: `_mapped`).
"""
from itertools import compress
from operator import attrgetter

from .._core.batching import state as _batch_state
from .._core.forward_mode import state as _forward_state
from .._core.grad_mode import disabled as _grad_disabled, state as _grad_state
from .._core.open_levels import state as _open_levels
from .._core.tensor import Tensor
from ..static import dims as _dims

MISS = object()


def miss(args):
    return MISS


def runner(entry, specs, grad, finish, forward=None, contiguous=False):
    names = {"_grad": _grad_state, "_disabled": _grad_disabled, "_open": _open_levels,
             "_batch": _batch_state, "_forward": _forward_state,
             "MISS": MISS, "_finish": finish, "_entry": entry,
             "_code": forward, "_make": Tensor._make}
    n = len(specs)
    tensors = [i for i, spec in enumerate(specs) if spec[0] == "tensor"]
    known = {i for i in tensors if not any(isinstance(x, _dims.Dim) for x in specs[i][4])}
    unknown = [i for i in tensors if i not in known]
    # (thread-local reads are slow: `_disabled` and `_open.count` say when none is needed)
    mode = "_disabled and _grad.enabled is not True" if grad else \
        "_grad.enabled is not False"
    lines = [f"if {mode} or _open.count and (_batch.sizes or _forward.level)"
             f"{'' if n else ' or args'}:", "    return MISS"]
    if n > _MAPPED:
        lines += _mapped(specs, tensors, known, grad, contiguous, names)
    else:
        lines += _unrolled(specs, tensors, known, grad, contiguous, names)
    if contiguous and unknown:
        lines += [f"if not ({' and '.join(f'd{i}.flags.c_contiguous' for i in unknown)}):",
                  "    return MISS"]
    first = {}
    for i in unknown:
        spec = specs[i]
        row = spec[4]
        conds = [f"len(s{i}) != {len(row)}"]
        for axis, x in enumerate(row):
            if not isinstance(x, _dims.Dim):
                conds.append(f"s{i}[{axis}] != {x}")
            elif x in first:
                conds.append(f"s{i}[{axis}] != {first[x]}")
            else:
                first[x] = f"s{i}[{axis}]"
                conds.append(f"s{i}[{axis}] < 2")
            if isinstance(x, _dims.Dim) and spec[5][axis]:
                conds.append(f"s{i}[{axis}] in {tuple(sorted(spec[5][axis]))!r}")
        lines += [f"s{i} = d{i}.shape", f"if {' or '.join(conds)}:", "    return MISS"]
    if n > _MAPPED:
        arrays, tensor_args = "*ds", "ts"
    else:
        arrays = ", ".join(f"d{i}" for i in tensors)
        tensor_args = f"({''.join(f'a{i}, ' for i in tensors)})"
    if forward is not None:  # one Tensor result: no need to call `finish`
        lines.append(f"return _make(_code({arrays})[0])")
    else:
        lines.append(f"return _finish(_entry, args, {tensor_args}, "
                     f"{'ds' if n > _MAPPED else '(' + arrays + ', )' if tensors else '()'})")
    source = "def run(args):\n" + "".join(f"    {line}\n" for line in lines)
    exec(compile(source, f"<fluxgrad.compile guard of {entry.name}>", "exec"), names)
    return names["run"]


def _unrolled(specs, tensors, known, grad, contiguous, names):
    """The checks of a few arguments, each its own local (`a0`, its array `d0`): the fastest
    call."""
    n = len(specs)
    checks = [_differs([f"type(a{i})" for i in range(n)], [
        spec[1] if spec[0] == "tensor" else type(spec[1]) for spec in specs], "_c", names)]
    checks += _value_checks(specs, "a{}", names)
    lines = []
    if n:
        lines += ["try:", f"    {''.join(f'a{i}, ' for i in range(n))}= args",
                  "except ValueError:", "    return MISS",
                  f"if {' or '.join(checks)}:", "    return MISS"]
    if not tensors:
        return lines
    lines.append(f"{''.join(f'd{i}, ' for i in tensors)}= "
                 f"{''.join(f'a{i}._data, ' for i in tensors)}")
    checks = [_differs([f"d{i}.dtype" for i in tensors], [specs[i][2] for i in tensors],
                       "_t", names)]
    if grad:  # without grad mode, requires_grad changes nothing the code does
        checks.append(_differs([f"a{i}._requires_grad" for i in tensors],
                               [bool(specs[i][3]) for i in tensors], "_r", names))
    lines += [f"if {' or '.join(checks)}:", "    return MISS"]
    known = [i for i in tensors if i in known]
    if known:
        shapes = _differs([f"d{i}.shape" for i in known], [tuple(specs[i][4]) for i in known],
                          "_s", names)
        lines += [f"if {shapes}:", "    return MISS"]
        if contiguous:  # the strides of C order (cheaper to read than `flags`)
            strides = _differs([f"d{i}.strides" for i in known], [
                _c_strides(specs[i][4], specs[i][2].itemsize) for i in known], "_st", names)
            lines += [f"if {strides}:", "    return MISS"]
    return lines


def _mapped(specs, tensors, known, grad, contiguous, names):
    """The checks of many arguments, each kind one comparison of tuples made by `map` (`ts`:
    the Tensor arguments, `ds` their arrays; `d<i>` only for those of unknown sizes): code of
    a few lines, which compiles in a fraction of the time of the unrolled checks (guards of 181
    arguments: 0.3 ms instead of 4.3 ms) and calls about as fast."""
    names.update(_type=type, _data=attrgetter("_data"), _dtype=attrgetter("dtype"),
                 _requires=attrgetter("_requires_grad"), _shape=attrgetter("shape"),
                 _strides=attrgetter("strides"), _compress=compress,
                 _call=tuple(spec[1] if spec[0] == "tensor" else type(spec[1]) for spec in specs),
                 _tensors=tuple(spec[0] == "tensor" for spec in specs),
                 _known=tuple(i in known for i in tensors),
                 _tall=tuple(specs[i][2] for i in tensors),
                 _rall=tuple(bool(specs[i][3]) for i in tensors),
                 _sall=tuple(tuple(specs[i][4]) for i in tensors if i in known),
                 _stall=tuple(_c_strides(specs[i][4], specs[i][2].itemsize)
                              for i in tensors if i in known))
    checks = [f"len(args) != {len(specs)}", "tuple(map(_type, args)) != _call"]
    checks += _value_checks(specs, "args[{}]", names)
    every = len(tensors) == len(specs)
    lines = [f"if {' or '.join(checks)}:", "    return MISS",
             f"ts = {'args' if every else 'tuple(_compress(args, _tensors))'}",
             "ds = tuple(map(_data, ts))"]
    checks = ["tuple(map(_dtype, ds)) != _tall"]
    if grad:
        checks.append("tuple(map(_requires, ts)) != _rall")
    known_ds = "ds" if len(known) == len(tensors) else "tuple(_compress(ds, _known))"
    if known:
        checks.append(f"tuple(map(_shape, {known_ds})) != _sall")
        if contiguous:
            checks.append(f"tuple(map(_strides, {known_ds})) != _stall")
    lines += [f"if {' or '.join(checks)}:", "    return MISS"]
    lines += [f"d{i} = ds[{k}]" for k, i in enumerate(tensors) if i not in known]
    return lines


def _value_checks(specs, argument, names):
    checks = []
    for i, spec in enumerate(specs):
        if spec[0] == "value" and spec[1] is not None:
            names[f"_v{i}"] = spec[1]
            checks.append(f"{argument.format(i)} != _v{i}")
    return checks


def _c_strides(shape, itemsize):
    strides, step = [], itemsize
    for n in reversed(shape):
        strides.append(step)
        step *= n
    return tuple(reversed(strides))


_UNROLLED = 8
_MAPPED = 16


def _differs(items, expected, prefix, names):
    """Code that is true when any of the expressions `items` is not its `expected` value
    (those are put in `names`): one test each for a few (the fastest call), else one
    comparison of two tuples, which compiles in half the time of a chain of tests (guards of
    181 arguments: 2.8 ms instead of 5.4 ms) and calls within ~8 ns per argument of it."""
    if len(items) > _UNROLLED:
        names[f"{prefix}all"] = tuple(expected)
        return f"({''.join(x + ', ' for x in items)}) != {prefix}all"
    tests = []
    for k, (x, value) in enumerate(zip(items, expected)):
        names[f"{prefix}{k}"] = value
        tests.append(f"{x} {'!=' if type(value) is tuple else 'is not'} {prefix}{k}")
    return " or ".join(tests)
