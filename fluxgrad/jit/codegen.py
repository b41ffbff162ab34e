"""Code generation: a traced Program -> Python source that calls the primitives' NumPy impls.

`first_run(traced, arrays)` runs the program once, equation by equation (as the Executor
does), returning the outputs and a `FirstRun`: the equations whose impl returned something
other than an ndarray (a NumPy scalar, a tuple of them; only those get `_asarray(...)` in the
code) and the layout of the ufunc results (for buffer reuse).
`generate(traced, name, first)` -> (source, function):

    def forward(x, w):
        a = _matmul(x, w)                  # model.py:12: h = x @ w
        del x, w
        b = _tanh(a, a)                    # model.py:13: return h.tanh()
        return (b,)

one line per equation: its primitive's `impl` (a global named `_<primitive>`) called on the
arrays, with the static params as keywords (literals where Python can write them, else
globals `_p<k>`), constants as globals `_c<k>`; a ufunc's last positional argument, when
there is one, is the dead buffer it writes into (`buffers.plan`: `_tanh(a, a)` is in
place); `del` after each value's last use (or the buffer's reuse); the user's line that
staged the equation as a comment. A large matrix product writes into a dead buffer too
(`_matmul_into(x, w, buf)`), and so may ReLU's backward (`_relu_backward(g, y, g)`).
Independent neighbouring equations are ordered to hold fewer bytes at once (`schedule`: a
convolution's weight gradient before its input gradient). A long run of elementwise
equations on large arrays is written as one loop over cache-sized chunks (`fusion`). A boolean mask cast to float only to
be multiplied (`y * (y > 0)`) is multiplied as it is (`_masks_multiplied_as_bools`). Control
flow (`while_loop`, `scan`, `cond`) is written as Python statements calling generated
functions for its sub-programs, defined before the main one (`loops`). The source is registered with
`linecache`, so tracebacks through the generated function show its lines.

The large arrays (>= `SCRATCH_BYTES`) a call allocates and frees again (nothing returned
may alias them; sizes all known) come from a workspace kept between calls, so a training
step does not page-fault fresh memory in every call. The workspace is one arena of bytes in
which arrays that are never in use at once share memory (`arena_layout`, from each array's
first and last equation, `buffers.Plan.lifetimes`), so it holds no more than the most the
call's scratch arrays hold at one time; and it holds only arrays that don't raise the most
memory a call holds at once (`_below_peak`), since it is there during the whole call:

    try:
        scratch = _scratch.pop()               # a free workspace ...
    except IndexError:                         # ... or a new one (first call, other threads)
        arena = _empty(524288, _p4)
        scratch = (_carve(arena, 0, (256, 512), _p3),)
    b = _matmul_into(x, a, scratch[0])
    ...
    _scratch.append(scratch)
"""
import itertools
import keyword
import linecache
import math
import os

import numpy as np

from .._core.tensor import Tensor
from ..static import dims as _dims
from ..static.control_flow import ControlOp
from ..static.program import Equation, Variable
from ..ops import activation
from . import buffers, fusion, kernels, loops, schedule

_ndarray = np.ndarray
_may_share_memory = np.may_share_memory
SCRATCH_BYTES = 1 << 16
_ids = itertools.count(1)


class FirstRun:
    """What the first run saw: the (ids of the) equations whose impl returned something other
    than an ndarray, and the `buffers.layout_key` of each output of a ufunc equation that has
    one (the buffers `buffers.plan` may reuse), and likewise of each new array a product
    made (`made`: buffers that ufuncs may reuse once dead)."""
    __slots__ = ("wrapped", "layout", "fresh", "made")

    def __init__(self):
        self.wrapped = set()
        self.layout = {}
        self.fresh = set()  # ids of the outputs that share no memory with an input
        self.made = {}


def first_run(traced, arrays):
    env = {id(v): a for v, a in zip(traced.inputs, arrays)}
    seen = FirstRun()
    # as the code will run them, so that `layout` sees the products' C-contiguous results
    for eq in _into_dying_gradients(
            _transposed_products(traced.program.equations, traced.outputs)):
        args = [env[id(x)] if isinstance(x, Variable) else
                (x._data if isinstance(x, Tensor) else x) for x in eq.inputs]
        out = eq.prim.impl(*args, **eq.params)
        outs = (out,) if eq.prim.n_outputs == 1 else tuple(out)
        if any(type(o) is not _ndarray for o in outs):
            seen.wrapped.add(id(eq))
        elif buffers.writes_out(eq) and _key(eq.outputs[0], out) is not None:
            seen.layout[id(eq.outputs[0])] = _key(eq.outputs[0], out)
        arrays_in = [a for a in args if type(a) is _ndarray]
        for o, value in zip(eq.outputs, outs):
            env[id(o)] = value = np.asarray(value)
            if not any(map(_may_share_memory, itertools.repeat(value), arrays_in)):
                seen.fresh.add(id(o))
                if eq.prim.name in buffers.PRODUCTS and _key(o, value) is not None:
                    seen.made[id(o)] = _key(o, value)
    input_ids = {id(v) for v in traced.inputs}
    results = [(env[id(o)].copy() if id(o) in input_ids else env[id(o)])
               if isinstance(o, Variable) else np.array(o._data) for o in traced.outputs]
    return results, seen


def _key(var, value):
    """`buffers.layout_key` of a Variable's first value, with the Variable's dims as its shape
    where some are unknown (`symbolic`): two results of one shape now may differ later."""
    key = buffers.layout_key(value)
    if key is not None and any(type(d) is not int for d in var.dims):
        key = (tuple(var.dims),) + key[1:]
    return key


class _Names:
    """Python identifiers for Variables, primitives, params and constants."""

    def __init__(self, inputs, function_name):
        self.globals = {"_asarray": np.asarray, "_empty": np.empty}
        self.used = {"_asarray", "_empty", function_name}
        self.of_var = {}
        self._impls = {}
        for v in inputs:
            self.of_var[id(v)] = self.fresh(v.name)

    def fresh(self, base):
        base = base.lstrip("_0123456789") or "v"  # a sub-program's "7_a" is "a" (or "a_1")
        if not base.isidentifier() or keyword.iskeyword(base):
            base = "v_" + "".join(c if c.isalnum() else "_" for c in base)
        name, k = base, 1
        while name in self.used:
            name, k = f"{base}_{k}", k + 1
        self.used.add(name)
        return name

    def var(self, v):
        name = self.of_var.get(id(v))
        if name is None:
            name = self.of_var[id(v)] = self.fresh(v.name)
        return name

    def impl(self, prim):
        name = self._impls.get(id(prim))
        if name is None:
            base = "_" + "".join(c if c.isalnum() else "_" for c in prim.name)
            name, k = base, 1
            while name in self.used:
                name, k = f"{base}_{k}", k + 1
            self.used.add(name)
            self.globals[name] = prim.impl
            self._impls[id(prim)] = name
        return name

    def helper(self, base, value):
        """The global name of a helper function the code calls (registered once)."""
        name = self._impls.get(id(value))
        if name is None:
            name = self._impls[id(value)] = self.global_name(base, value)
        return name

    def global_name(self, base, value):
        name, k = base, 1
        while name in self.used:
            name, k = f"{base}_{k}", k + 1
        self.used.add(name)
        self.globals[name] = value
        return name

    def value(self, x, prefix):
        """A literal for `x` when Python can write it exactly, else a new global."""
        if _literal(x):
            return repr(x)
        name = f"_{prefix}{len(self.globals)}"
        self.used.add(name)
        self.globals[name] = x
        return name


def _literal(x):
    if x is None or type(x) in (bool, int, str):
        return True
    if type(x) is float:
        return math.isfinite(x)
    if type(x) in (tuple, list):
        return all(_literal(v) for v in x)
    return False


def generate(traced, name, first, backend=None):
    """`backend`: "numba" runs fused elementwise groups as numba kernels (`kernels`; numba
    is imported only where a group is large enough); None writes NumPy calls only."""
    names = _Names(traced.inputs, name)
    fused_kernels = kernels if backend == "numba" else None
    equations, outputs, wrapped = _without_identities(
        traced.program.equations, traced.outputs, first.wrapped)
    equations = _masks_multiplied_as_bools(equations, outputs)
    equations = _into_dying_gradients(_transposed_products(equations, outputs))
    equations = schedule.fewer_live_bytes(equations, traced.inputs, outputs, first.fresh)
    keep = {id(o) for o in outputs if isinstance(o, Variable)}
    last_use, read = {}, {}
    for n, eq in enumerate(equations):
        for x in eq.inputs:
            if isinstance(x, Variable):
                last_use[id(x)] = n
                read[id(x)] = x
    regions = fusion.regions(equations, first.layout, fused_kernels)
    fused = {id(eq.outputs[0]) for start, stop in regions.items() for eq in equations[start:stop]}
    layout = {k: v for k, v in first.layout.items() if k not in fused}
    takes_out = {id(eq) for eq in equations if _large(first.made.get(id(eq.outputs[0]))) and (
        eq.prim is _MATMUL_T or eq.prim.name == "matmul" and
        all(isinstance(x, Variable) and x._data.ndim == 2 for x in eq.inputs))}
    reuse = buffers.plan(equations, traced.inputs, keep, last_use, layout,
                         _in_place(traced, outputs), first.fresh, first.made, takes_out)
    fused_eqs = {id(eq) for start, stop in regions.items() for eq in equations[start:stop]}
    scratch = {} if _symbolic(traced.inputs) else _below_peak({
        k: key for k, key in reuse.scratch.items() if _large(key) and k not in fused_eqs}, reuse)
    slot = {key: k for k, key in enumerate(scratch)}
    workspace = names.fresh("scratch") if scratch else None
    deletions = {}
    for key, n in reuse.delete_at.items():
        if key not in keep:
            deletions.setdefault(n, []).append(read[key])
    body, comments, functions = [], {}, []
    notes = {}  # the user's line as a comment, per line of `body` (not compiled: see below)
    unused_inputs = [names.var(v) for v in traced.inputs
                     if id(v) not in last_use and id(v) not in keep]
    if unused_inputs:
        body.append(f"del {', '.join(unused_inputs)}")
    if scratch:
        pool = names.global_name("_scratch", Scratch())
        offsets, size = arena_layout([(_nbytes(key), reuse.lifetimes[k])
                                      for k, key in scratch.items()])
        arena = names.fresh("arena")
        arrays = [_allocation(key, names, arena, offset)
                  for key, offset in zip(scratch.values(), offsets)]
        body += ["try:", f"    {workspace} = {pool}.pop()", "except IndexError:",
                 f"    {arena} = _empty({size}, {names.value(np.dtype(np.uint8), 'p')})",
                 f"    {workspace} = ({', '.join(arrays)},)"]
    n = 0
    while n < len(equations):
        if n in regions:
            stop = regions[n]
            body += fusion.emit(equations, n, stop, names, first.layout, last_use, keep,
                                lambda eq, width: _comment(eq.source, width, comments),
                                reuse.out_of, fused_kernels)
            dead = [names.var(x) for k in range(n, stop) for x in deletions.get(k, ())
                    if id(x) not in fused or id(x) in last_use and last_use[id(x)] >= stop]
            if dead:
                body.append(f"del {', '.join(dead)}")
            n = stop
            continue
        eq = equations[n]
        args = [names.var(x) if isinstance(x, Variable) else
                names.value(x._data if isinstance(x, Tensor) else x, "c") for x in eq.inputs]
        lines = loops.emit(eq, args, [names.var(o) if id(o) in last_use or id(o) in keep else
                                      None for o in eq.outputs], names, functions,
                           lambda eq, width: _comment(eq.source, width, comments)) \
            if isinstance(eq.prim, ControlOp) else None
        if lines is not None:
            body += lines
            dead = [names.var(x) for x in deletions.get(n, ())]
            if dead:
                body.append(f"del {', '.join(dead)}")
            n += 1
            continue
        buffer = reuse.out_of.get(id(eq))
        if buffer is not None:
            args.append(buffers.out_argument(eq, names.var(buffer)))
        elif id(eq) in slot:
            args.append(buffers.out_argument(eq, f"{workspace}[{slot[id(eq)]}]"))
        prim = _MATMUL_INTO if eq.prim.name == "matmul" and len(args) == 3 else eq.prim
        args += [f"{k}={names.value(v, 'p')}" for k, v in eq.params.items()]
        call = f"{names.impl(prim)}({', '.join(args)})"
        outs = [names.var(o) if id(o) in last_use or id(o) in keep else "_"
                for o in eq.outputs]
        if eq.prim.n_outputs == 1:
            line = f"{outs[0]} = {'_asarray(' + call + ')' if id(eq) in wrapped else call}"
        else:
            line = f"{', '.join(outs)}, = {call}" if len(outs) == 1 else \
                f"{', '.join(outs)} = {call}"
        body.append(line)
        notes[len(body) - 1] = _comment(eq.source, len(line), comments)
        if id(eq) in wrapped and eq.prim.n_outputs != 1:
            body += [f"{o} = _asarray({o})" for o in outs if o != "_"]
        dead = [names.var(x) for x in deletions.get(n, ())]
        if dead:
            body.append(f"del {', '.join(dead)}")
        n += 1
    results = []
    input_ids = {id(v) for v in traced.inputs}
    for o in outputs:
        if isinstance(o, Variable):
            results.append(f"{names.var(o)}.copy()" if id(o) in input_ids else names.var(o))
        else:
            results.append(f"{names.value(np.asarray(o._data), 'c')}.copy()")
    if scratch:
        body.append(f"{pool}.append({workspace})")
    body.append(f"return ({', '.join(results)}{',' if len(results) == 1 else ''})")
    params = ", ".join(names.var(v) for v in traced.inputs)
    head = "".join(f"{f}\n\n" for f in functions) + f"def {name}({params}):\n"
    source = head + "".join(f"    {line}{notes.get(k, '')}\n" for k, line in enumerate(body))
    filename = f"<fluxgrad.compile {name} #{next(_ids)}>"
    lines = source.splitlines(True)
    linecache.cache[filename] = (len(source), None, lines, filename)
    namespace = dict(names.globals)
    # compiled without the main function's comments (~10% of compile()'s time): the same
    # lines, so tracebacks show them from `linecache`, comments included
    exec(compile(head + "".join(f"    {line}\n" for line in body), filename, "exec"), namespace)
    return source, namespace[name]


class Scratch(list):
    """A generated function's free workspaces (tuples of arrays): a call takes one (or makes
    one) and puts it back when it returns, so calls from several threads never share one."""
    __slots__ = ()


def _allocation(key, names, arena, offset):
    """Code making an array of this `buffers.layout_key` at `offset` in the arena."""
    shape, dtype, order = key
    carve = names.helper("_carve", carve_array)
    dtype = names.value(dtype, "p")
    if order is None:
        return f"{carve}({arena}, {offset}, {shape!r}, {dtype})"
    inverse = tuple(sorted(range(len(order)), key=order.__getitem__))
    return f"{carve}({arena}, {offset}, {tuple(shape[k] for k in order)!r}, " \
           f"{dtype}).transpose({inverse!r})"


def carve_array(arena, offset, shape, dtype):
    """The array of `shape` and `dtype` at byte `offset` of the byte array `arena`."""
    return arena[offset:offset + math.prod(shape) * dtype.itemsize].view(dtype).reshape(shape)


def _nbytes(key):
    return math.prod(key[0]) * key[1].itemsize


_ALIGN = 64


def arena_layout(arrays):
    """Byte offsets in one arena for arrays given as (size in bytes, (first, last) equation
    that uses them), such that arrays used at once never overlap in memory, and the arena's
    size: each array in turn (the largest first) at the lowest offset free during its
    lifetime. The workspace then holds about the most memory the call's scratch arrays hold
    at any one time, not the sum of them all."""
    placed, offsets, size = [], [0] * len(arrays), 0
    for k in sorted(range(len(arrays)), key=lambda k: (-arrays[k][0], arrays[k][1])):
        nbytes, (first, last) = arrays[k]
        offset = 0
        for start, stop in sorted((o, o + n) for o, n, (f, l) in placed
                                  if f <= last and first <= l):
            if start - offset >= nbytes:
                break
            offset = max(offset, -(-stop // _ALIGN) * _ALIGN)
        placed.append((offset, nbytes, (first, last)))
        offsets[k] = offset
        size = max(size, offset + nbytes)
    return offsets, size


def _below_peak(scratch, reuse):
    """The scratch arrays (of `scratch`: {id(equation): key}) that a workspace kept between
    calls can hold without raising the most memory a call holds at once, counted from the
    large arrays the call makes and their lifetimes (`buffers.Plan.arrays`): at every
    equation, the arrays in use outside the workspace plus the workspace stay within that
    most. While they don't, the largest array not in use where the workspace costs most is
    left out (it is allocated as any other array)."""
    arrays = [a for a in reuse.arrays if a[0] >= SCRATCH_BYTES]  # small ones: malloc's caches
    in_use = _in_use(arrays)
    most = max(in_use, default=0)
    chosen = dict(scratch)
    while chosen:
        sizes = [(_nbytes(key), reuse.lifetimes[k]) for k, key in chosen.items()]
        held = _in_use([(nbytes, first, last) for nbytes, (first, last) in sizes])
        outside = [n - h for n, h in itertools.zip_longest(in_use, held, fillvalue=0)]
        worst = max(range(len(outside)), key=outside.__getitem__)
        if outside[worst] + arena_layout(sizes)[1] <= most:
            break
        idle = [k for k in chosen if not reuse.lifetimes[k][0] <= worst <= reuse.lifetimes[k][1]]
        del chosen[max(idle or chosen, key=lambda k: _nbytes(chosen[k]))]
    return chosen


def _in_use(arrays):
    """Bytes in use at each equation, of arrays given as (bytes, first, last equation)."""
    steps = 1 + max((last for _, _, last in arrays), default=-1)
    change = [0] * (steps + 1)
    for nbytes, first, last in arrays:
        change[first] += nbytes
        change[last + 1] -= nbytes
    return list(itertools.accumulate(change[:steps]))


def _large(layout):
    """Whether an array of this (shape, dtype) is worth a buffer kept between calls (a new one
    costs page faults; a small one comes from NumPy's and malloc's caches)."""
    return layout is not None and all(type(d) is int for d in layout[0]) and \
        math.prod(layout[0]) * layout[1].itemsize >= SCRATCH_BYTES


def _symbolic(inputs):
    return any(isinstance(d, _dims.Dim) for v in inputs for d in v.dims)


def _in_place(traced, outputs):
    """{id(output): the input whose array it may be written into} for a training step's new
    parameter and state values and the arguments' new values (see `buffers.plan`)."""
    pairs = [] if traced.state is None else list(traced.state.in_place.items())
    pairs += [(k, traced.inputs[i]) for i, k in traced.arg_writes]
    return {id(outputs[k]): v for k, v in pairs if isinstance(outputs[k], Variable)}


class _Emitted:
    """An equation's stand-in for a primitive: code the generator writes, never traced.
    `writes_out`: its impl is elementwise and takes an output array as its next positional
    argument, as a ufunc (`buffers.writes_out`)."""
    __slots__ = ("name", "impl", "n_outputs", "writes_out")

    def __init__(self, name, impl, writes_out=False):
        self.name, self.impl, self.n_outputs, self.writes_out = name, impl, 1, writes_out


def _matmul_transposed(x, y, out=None):
    return np.matmul(y.T, x.T, out=out)


def _matmul_into(x, y, out):
    return np.matmul(x, y, out=out)


_MATMUL_T = _Emitted("matmul_transposed", _matmul_transposed)
_MATMUL_INTO = _Emitted("matmul_into", _matmul_into)
buffers.PRODUCTS.add(_MATMUL_T.name)


_RELU_BACKWARD_INTO = _Emitted("relu_backward", activation.relu_backward_into, writes_out=True)


def _into_dying_gradients(equations):
    """ReLU's backward (`relu_backward`) as an elementwise equation that may write into a
    dead buffer (`buffers.plan`), typically its incoming gradient: a convolutional network's
    backward pass then holds no second activation-sized gradient at once."""
    return [Equation(_RELU_BACKWARD_INTO, eq.inputs, eq.outputs, {}, eq.source, eq.symbolic)
            if eq.prim.name == "relu_backward" and not eq.params else eq for eq in equations]


def _transposed_products(equations, outputs):
    """`permute(matmul(x, y), perm=(1, 0))` of matrices, the product read by nothing else,
    as one `matmul(y.T, x.T)`: a C-contiguous result (a weight's gradient), so the
    elementwise ops that read it beside C-contiguous arrays (the parameter update) don't
    run strided."""
    uses = {}
    for x in [x for eq in equations for x in eq.inputs] + list(outputs):
        if isinstance(x, Variable):
            uses[id(x)] = uses.get(id(x), 0) + 1
    made_by = {}
    for n, eq in enumerate(equations):
        if eq.prim.name == "matmul" and eq.prim.n_outputs == 1 and all(
                isinstance(x, Variable) and x._data.ndim == 2 for x in eq.inputs):
            made_by[id(eq.outputs[0])] = n
    rewritten, dropped = list(equations), set()
    for n, eq in enumerate(equations):
        x = eq.inputs[0] if eq.inputs else None
        if eq.prim.name == "permute" and eq.params.get("perm") == (1, 0) and \
                isinstance(x, Variable) and id(x) in made_by and uses[id(x)] == 1:
            k = made_by[id(x)]
            rewritten[k] = Equation(_MATMUL_T, equations[k].inputs, eq.outputs, {},
                                    equations[k].source)
            dropped.add(n)
    return [eq for n, eq in enumerate(rewritten) if n not in dropped]


def _masks_multiplied_as_bools(equations, outputs):
    """`y = cast(mask, float)` read only by products `y * g` with arrays `g` of that float
    dtype (a gradient written `g * (x > 0)`): the products read the boolean mask itself,
    which NumPy multiplies as 0 and 1 into `g`'s dtype, and the cast (a pass writing a float
    array the size of g) is dropped."""
    readers = {}
    for eq in equations:
        for x in eq.inputs:
            if isinstance(x, Variable):
                readers.setdefault(id(x), []).append(eq)
    returned = {id(o) for o in outputs if isinstance(o, Variable)}
    masks = {}
    for eq in equations:
        if eq.prim.name != "cast" or not isinstance(eq.inputs[0], Variable):
            continue
        mask, y = eq.inputs[0], eq.outputs[0]
        if mask._data.dtype != np.bool_ or y._data.dtype.kind != "f" or id(y) in returned:
            continue
        if all(r.prim.impl is np.multiply and len(r.inputs) == 2 and not r.params and all(
                isinstance(x, Variable) and x._data.dtype == y._data.dtype for x in r.inputs)
                and r.outputs[0]._data.shape == y._data.shape for r in readers.get(id(y), ())):
            masks[id(y)] = mask
    if not masks:
        return equations
    rewritten = []
    for eq in equations:
        if eq.prim.name == "cast" and id(eq.outputs[0]) in masks:
            continue
        if any(id(x) in masks for x in eq.inputs):
            eq = Equation(eq.prim, [masks.get(id(x), x) for x in eq.inputs], eq.outputs,
                          eq.params, eq.source, eq.symbolic)
        rewritten.append(eq)
    return rewritten


def _without_identities(equations, outputs, wrapped):
    """(equations, outputs, wrapped) with the identity equations (`stop_gradient`, which
    tracing under no_grad puts after every op: it only matters to differentiation) dropped
    and their outputs replaced by their inputs, so that they neither cost a call nor split
    a fused chain."""
    alias, kept, wrapped = {}, [], set(wrapped)
    for eq in equations:
        inputs = eq.inputs
        if not alias.keys().isdisjoint(map(id, inputs)):
            inputs = tuple(alias.get(id(x), x) if isinstance(x, Variable) else x for x in inputs)
        if eq.prim.name == "stop_gradient" and isinstance(inputs[0], Variable):
            alias[id(eq.outputs[0])] = inputs[0]
            continue
        if inputs is not eq.inputs:
            new = Equation(eq.prim, inputs, eq.outputs, eq.params, eq.source, eq.symbolic)
            if id(eq) in wrapped:
                wrapped.add(id(new))
            eq = new
        kept.append(eq)
    outputs = [alias.get(id(o), o) if isinstance(o, Variable) else o for o in outputs]
    return kept, outputs, wrapped


def _comment(source, width, cache):
    if not source:
        return ""
    text = cache.get(source)
    if text is None:
        path, _, line = source.rpartition(":")
        code = linecache.getline(path, int(line)).strip() if line.isdigit() else ""
        text = cache[source] = f"# {os.path.basename(path)}:{line}" + (
            f": {code}" if code else "")
    return " " * max(1, 44 - width) + text
