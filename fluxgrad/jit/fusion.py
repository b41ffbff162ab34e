"""Fusion of elementwise chains: a run of ufunc equations over one large shape runs as a loop
over chunks small enough to stay in the CPU's cache, so the chain makes one pass over main
memory instead of one per op.

`regions(equations, layout, kernels=None)` -> {start: stop}: maximal runs (at least `MIN_RUN` equations)
of consecutive ufunc equations (those in `layout` with C order: the first run's C-contiguous
results of the equations `buffers.writes_out` takes) whose output has at least `MIN_SIZE`
elements and whose inputs are Variables of exactly that shape, 0-d Variables (a learning
rate: read whole) or Python scalars (and, with `kernels`, smaller runs holding a kernel
group, see the end).

`emit(equations, start, stop, ...)` writes one region:

    y_flat, w_flat = y.reshape(-1), w.reshape(-1)
    e = _empty((1000000,), _dtype_float32)          # values read after the region
    e_flat = e.reshape(-1)
    _t0, _t1 = _empty(32768, ...), _empty(32768, ...)  # chunk buffers of values that die inside
    for _s in range(0, 1000000, 32768):
        y_c, w_c = y_flat[_s:_s + 32768], w_flat[_s:_s + 32768]
        t0, t1 = _t0[:len(y_c)], _t1[:len(y_c)]
        a_c = _mul(y_c, w_c, t0)                     # the user's line
        ...
        e_c = _sub(c_c, d_c, e_flat[_s:_s + 32768])
    del y_flat, w_flat, e_flat, ...

Inside a chunk each equation writes in place into a chunk buffer of an input that dies there
when it can (as `buffers` does for whole arrays). A value read after the region that
`buffers.plan` writes into an input's array (a parameter's update: `p - lr * g`) is written
there chunk by chunk when that array is C-contiguous, so the update needs no temporary of the
parameter's size. Measured on the 200-op chain of
bench_compile.py, against the same code without chunks: as fast at 65536 and 131072
elements, 1.7x at 200000, 1.1x at 10^6, 1.7x at 4 * 10^6. CHUNK measured there: 8192 and
16384 slower (per-call overhead), 65536 the same. The chunked code runs at 93-100% of the
floor of its NumPy calls (the same calls on one chunk in cache), whose 40 tanh calls are
half; numexpr (not a dependency) ran the chain at 0.03x this code's speed (its float32 tanh
is ~40x slower than NumPy's here), so no numexpr backend.

With `compile(backend="numba")` (`kernels`), each run of consecutive arithmetic equations
in a region that pays (`kernels.pays`: by its length and the arrays' size) is one call of a
fused kernel on the chunks, which keeps the run's intermediate values in registers; the
values read after the run are written into chunk buffers (never into a buffer the kernel
reads) or the escaping arrays. A run of such equations on arrays smaller than `MIN_SIZE`
is then a region too when it holds a group that pays (its loop runs once or a few times).
"""
import math

from .buffers import out_argument


CHUNK = 32768
MIN_SIZE = 5 * CHUNK  # measured: no gain at 131072 elements, 1.7x at 200000
MIN_RUN = 2  # measured: a parameter's SGD update (lr * g, p - that) 3% of an MLP step


def _fusable(eq, layout, min_size):
    from ..static.program import Variable
    key = layout.get(id(eq.outputs[0]))  # only outputs of equations `buffers.writes_out` takes
    if key is None or key[2] is not None or any(type(d) is not int for d in key[0]) or \
            math.prod(key[0]) < min_size:  # C order and known sizes only
        return None
    for x in eq.inputs:
        if isinstance(x, Variable):
            if x._data.shape != key[0] and x._data.ndim:
                return None
        elif type(x) not in (int, float, bool):
            return None
    return key[0]


def regions(equations, layout, kernels=None):
    """`kernels`: the `kernels` module when fused kernels may be used: a shorter run, of
    smaller arrays, is then a region too when it holds a kernel group that pays."""
    min_size = MIN_SIZE if kernels is None else 1
    found, start, shape = {}, 0, None
    for n, eq in enumerate(list(equations) + [None]):
        this = _fusable(eq, layout, min_size) if eq is not None else None
        if this is None or this != shape:
            if shape is not None and n - start >= MIN_RUN and (
                    math.prod(shape) >= MIN_SIZE or
                    _groups(equations, start, n, layout, kernels)):
                found[start] = n
            start, shape = n, this
    return found


def _groups(equations, start, stop, layout, kernels):
    """{start: (stop, [(output, steps)])}: the runs of equations in [start, stop) that one
    fused kernel computes where it pays (`kernels.pays`; none without `kernels`)."""
    found, run = {}, []
    if kernels is None or not kernels.available():
        return found
    for n in range(start, stop + 1):
        steps = kernels.group(equations[n], layout) if n < stop else None
        if steps is not None:
            run.append((equations[n].outputs[0], steps))
            continue
        if run and kernels.pays(len(run), math.prod(layout[id(run[0][0])][0])):
            found[n - len(run)] = (n, run)
        run = []
    return found


def emit(equations, start, stop, names, layout, last_use, keep, comment, out_of, kernels=None):
    """The lines of one region (see the module docstring); `comment(eq, width)` gives the
    user's line as a comment; `out_of` (`buffers.Plan.out_of`) the input whose array a value
    read after the region is written into, where it has one (a parameter's update);
    `kernels`: the `kernels` module when its groups run as fused kernels."""
    from ..static.program import Variable
    run = equations[start:stop]
    groups = _groups(equations, start, stop, layout, kernels)
    defined = {id(o): o for eq in run for o in eq.outputs}
    outside, escaping = {}, {}
    for eq in run:
        for x in eq.inputs:
            if isinstance(x, Variable) and id(x) not in defined and x._data.ndim:
                outside.setdefault(id(x), x)  # a 0-d one is read whole
    buffer_of = {id(eq.outputs[0]): out_of[id(eq)] for eq in run if id(eq) in out_of}
    for key, v in defined.items():
        if id(v) in keep or last_use.get(key, -1) >= stop:
            escaping[key] = v
    inside = set()  # values a kernel keeps in registers: no array
    for g_start, (g_stop, _) in groups.items():
        inside.update(id(eq.outputs[0]) for eq in equations[g_start:g_stop]
                      if id(eq.outputs[0]) not in escaping and
                      last_use.get(id(eq.outputs[0]), -1) < g_stop)
    shape = layout[id(run[0].outputs[0])][0]
    size = math.prod(shape)
    lines, local = [], []
    chunk = {}  # id(var) -> its name inside the loop
    flat = {}
    for key, x in list(outside.items()) + list(escaping.items()):
        flat[key] = names.fresh(names.var(x) + "_flat")
        local.append(flat[key])
    for key, v in escaping.items():
        new = f"_empty({shape!r}, {names.value(layout[key][1], 'p')})"
        if key in buffer_of:
            # in place only into a C-contiguous array: of another, reshape(-1) is a copy
            buffer = names.var(buffer_of[key])
            new = f"{buffer} if {buffer}.flags.c_contiguous else {new}"
        lines.append(f"{names.var(v)} = {new}")
    if flat:
        lines.append(_assign([flat[k] for k in flat], [
            names.var(outside.get(k, escaping.get(k))) + ".reshape(-1)" for k in flat]))
    # chunk buffers for the values that die inside the region: in place where an input dies
    # (never a kernel's: it would read and write one array through two pointers, unvectorised)
    slots, free, slot_of = [], {}, {}
    n = start
    while n < stop:
        g_stop = groups[n][0] if n in groups else n + 1
        made = [eq.outputs[0] for eq in equations[n:g_stop]]
        reads = {id(x): x for eq in equations[n:g_stop] for x in eq.inputs
                 if isinstance(x, Variable) and id(x) in slot_of}
        dying = [x for x in reads.values() if last_use.get(id(x)) < g_stop]
        for out in made:
            if id(out) in escaping or id(out) in inside:
                continue
            dtype = layout[id(out)][1]
            slot = None
            if n not in groups:
                slot = next((slot_of[id(x)] for x in dying if slots[slot_of[id(x)]] == dtype),
                            None)
            if slot is None and free.get(dtype):
                slot = free[dtype].pop()
            if slot is None:
                slot = len(slots)
                slots.append(dtype)
            slot_of[id(out)] = slot
        taken = {slot_of[id(out)] for out in made if id(out) in slot_of}
        for x in dying:
            if slot_of[id(x)] not in taken:
                free.setdefault(slots[slot_of[id(x)]], []).append(slot_of[id(x)])
        n = g_stop
    slot_names = [names.fresh(f"buf{k}") for k in range(len(slots))]
    views = [names.fresh(f"buf{k}_c") for k in range(len(slots))]
    for name, dtype in zip(slot_names, slots):
        lines.append(f"{name} = _empty({CHUNK}, {names.value(dtype, 'p')})")
    local += slot_names + views
    s = names.fresh("_s")
    lines.append(f"for {s} in range(0, {size}, {CHUNK}):")
    for key, x in outside.items():
        chunk[key] = names.fresh(names.var(x) + "_c")
    local += list(chunk.values())
    first = None
    if outside:
        lines.append("    " + _assign(list(chunk.values()),
                                    [f"{flat[k]}[{s}:{s} + {CHUNK}]" for k in outside]))
        first = next(iter(chunk.values()))
    if views:
        length = f"len({first})" if first else f"min({CHUNK}, {size} - {s})"
        lines.append("    " + _assign(views, [f"{n}[:{length}]" for n in slot_names]))

    def target(out):
        return f"{flat[id(out)]}[{s}:{s} + {CHUNK}]" if id(out) in escaping else \
            views[slot_of[id(out)]]

    def read(x):
        return (chunk[id(x)] if id(x) in chunk else names.var(x)) if isinstance(x, Variable) \
            else names.value(x, "c")
    n = start
    while n < stop:
        if n in groups:
            g_stop, steps = groups[n]
            lines += ["    " + line for line in _kernel_call(
                equations[n:g_stop], steps, inside, chunk, buffer_of, names, target, read,
                local, comment, kernels)]
            n = g_stop
            continue
        eq = equations[n]
        out = eq.outputs[0]
        args = [read(x) for x in eq.inputs]
        name = chunk[id(out)] = names.fresh(names.var(out) + "_c")
        local.append(name)
        args.append(out_argument(eq, target(out)))
        line = f"{name} = {names.impl(eq.prim)}({', '.join(args)})"
        lines.append("    " + line + comment(eq, len(line) + 4))
        n += 1
    lines.append(f"del {', '.join(dict.fromkeys(local))}")
    return lines


def _kernel_call(group, steps, inside, chunk, buffer_of, names, target, read, local, comment,
                 kernels):
    """The lines calling one fused kernel for the equations of `group`: the arrays of the
    values it writes first, then the call."""
    from ..static.program import Variable
    made = {id(eq.outputs[0]) for eq in group}
    inputs = list({id(x): x for eq in group for x in eq.inputs
                   if isinstance(x, Variable) and id(x) not in made}.values())
    outputs = [eq.outputs[0] for eq in group if id(eq.outputs[0]) not in inside]
    position = {id(x): k for k, x in enumerate(inputs)}
    in_place = [(k, position[id(buffer_of[id(o)])]) for k, o in enumerate(outputs)
                if id(o) in buffer_of and id(buffer_of[id(o)]) in position]
    text = kernels.source(steps, inputs, outputs, in_place)
    function = names.helper("_kernel", kernels.kernel(text))
    for o in outputs:
        chunk[id(o)] = names.fresh(names.var(o) + "_c")
        local.append(chunk[id(o)])
    line = f"{function}({', '.join([read(x) for x in inputs] + [chunk[id(o)] for o in outputs])})"
    return [f"# one kernel: {', '.join(eq.prim.name for eq in group)}",
            _assign([chunk[id(o)] for o in outputs], [target(o) for o in outputs]),
            line + comment(group[0], len(line) + 4)]


def _assign(targets, values):
    return f"{', '.join(targets)} = {', '.join(values)}"

