"""Fused elementwise kernels compiled by numba: the optional backend (`fluxgrad[numba]`) of
`fusion`'s chunked loops.

`group(eq, layout)` -> the steps of an equation a kernel can compute (`_Step`s: a NumPy ufunc,
its arguments and the dtypes NumPy's loop casts them to), or None: arithmetic, comparisons,
maximum/minimum (NaN-propagating as NumPy's), abs and sqrt on bool, int32,
int64, float32 and float64 values. Transcendental ufuncs (exp, log, tanh, ...) stay NumPy
calls: numba calls libm's scalar functions, measured here 5x (exp) to 40-100x (tanh) slower
than NumPy's SIMD float32 ones, and 2-3 ulp apart from them (bench_compile.py
`numba_transcendentals`).

`source(groups, inputs, outputs, in_place)` -> the source of a kernel that runs consecutive
equations as one loop over its arrays (all 1-d and of one length, chunks of `fusion`'s loop,
or 0-d ones, read whole), and `kernel(source)` -> its numba dispatcher:

    def kernel(x0, x1, x2, y0, y1):
        for i in range(y0.shape[0]):
            a0 = x0[i]
            a1 = x1[i]
            a2 = x2[i]
            v0 = np.float32(a1 * np.float32(0.25))
            v1 = np.float32(a0 - v0)
            v2 = np.float32(v1 * a2)
            v3 = np.float32(v2 + np.float32(0.5))
            y0[i] = v1
            y1[i] = v3

Every value is computed in the dtype NumPy's ufunc loop computes it in, so float32 results
equal NumPy's bit for bit (no fastmath, no contraction to fused multiply-adds). `in_place`
pairs (output k, input j) whose arrays may be one (a parameter's update written into the
parameter): the kernel then tests it and runs a loop that reads that input from the output
array, which LLVM vectorises (two different pointers to one array make it fall back to a
scalar loop: 3x slower). Compiled lazily, at the kernel's first call; cached in memory by
source and on disk (numba's `cache=True`, the source written to `cache_dir()`), so a kernel
compiles once per machine.

`pays(equations, size)`: whether a group is worth a kernel (the crossover measured);
`available()`: whether numba imports (an import that failed is not tried again);
`backend(name)`: the backend `compile(backend=name)` gets.
"""
import hashlib
import importlib.util
import os
import sys
import warnings

import numpy as np

# the fewest elements from which a kernel of n equations beats their NumPy calls, float32,
# measured (bench_compile.py `kernel_crossover`; 2 ops: 0.77x at 256, 1.03x at 16384, 1.71x
# at 262144; 4 ops: 0.98x at 16, 1.11x at 1024): 5 or more pay at any size (1.3x at 16)
MIN_SIZE = {2: 16384, 3: 4096, 4: 1024}


def pays(equations, size):
    """Whether a kernel of this many equations on arrays of `size` elements is worth it (one
    ufunc alone is as fast as NumPy's)."""
    return equations >= 2 and size >= MIN_SIZE.get(equations, 0)

_ARITHMETIC = {np.add: "{0} + {1}", np.subtract: "{0} - {1}", np.multiply: "{0} * {1}",
               np.true_divide: "{0} / {1}", np.negative: "-{0}", np.absolute: "abs({0})",
               np.square: "{0} * {0}", np.sqrt: "np.sqrt({0})",
               # NaN from either side, and the second operand on a tie, as NumPy's
               np.maximum: "({0} if {0} > {1} or {0} != {0} else {1})",
               np.minimum: "({0} if {0} < {1} or {0} != {0} else {1})"}
_COMPARISONS = {np.greater: "{0} > {1}", np.greater_equal: "{0} >= {1}", np.less: "{0} < {1}",
                np.less_equal: "{0} <= {1}", np.equal: "{0} == {1}",
                np.not_equal: "{0} != {1}"}
_FLOATS = {np.dtype(np.float32), np.dtype(np.float64)}
_NUMBERS = _FLOATS | {np.dtype(np.int32), np.dtype(np.int64)}
_VALUES = _NUMBERS | {np.dtype(np.bool_)}
_TYPE = {np.dtype(np.float32): "np.float32", np.dtype(np.float64): "np.float64",
         np.dtype(np.int32): "np.int32", np.dtype(np.int64): "np.int64",
         np.dtype(np.bool_): "np.bool_"}


class _Step:
    """One ufunc call of an equation: `args` are Variables, Python scalars or earlier
    `_Step`s of the same equation; `loop` the dtypes NumPy's loop casts them to, and its
    result's."""
    __slots__ = ("ufunc", "args", "loop")

    def __init__(self, ufunc, args, loop):
        self.ufunc, self.args, self.loop = ufunc, args, loop


def group(eq, layout):
    """The steps computing `eq` in a kernel, or None when a kernel can't (or shouldn't)."""
    from ..static.program import Variable
    out = layout.get(id(eq.outputs[0]))
    if out is None or eq.params:
        return None
    if eq.prim.impl not in _ARITHMETIC and eq.prim.impl not in _COMPARISONS:
        return None  # (relu_backward too: a select, which g * (y != 0) is not at -0, inf, NaN)
    steps = [_step(eq.prim.impl, tuple(eq.inputs))]
    if any(s is None for s in steps) or steps[-1].loop[-1] != out[1]:
        return None
    if any(isinstance(x, Variable) and x._data.dtype not in _VALUES for x in eq.inputs):
        return None
    return steps


def _step(ufunc, args):
    """A `_Step`, or None for dtypes or scalars a kernel doesn't compute exactly as NumPy."""
    from ..static.program import Variable
    dtypes = []
    for x in args:
        if isinstance(x, _Step):
            dtypes.append(x.loop[-1])
        elif isinstance(x, Variable):
            dtypes.append(x._data.dtype)
        elif type(x) is bool:
            dtypes.append(np.dtype(np.bool_))
        elif type(x) in (int, float):
            dtypes.append(type(x))  # weak: NumPy casts it to the other operand's dtype
        else:
            return None
    try:
        loop = ufunc.resolve_dtypes(tuple(dtypes) + (None,))
    except (TypeError, ValueError):
        return None
    allowed = _FLOATS if ufunc is np.sqrt else _NUMBERS if ufunc in _ARITHMETIC else _VALUES
    if any(d not in allowed for d in loop[:-1]) or loop[-1] not in _VALUES:
        return None
    for x, d in zip(args, loop):
        if type(x) is int and not (abs(x) < 2 ** 24 if d.kind == "f" else
                                   np.iinfo(d).min <= x <= np.iinfo(d).max):
            return None  # (NumPy's conversion of a large int is not one rounding)
    return _Step(ufunc, tuple(args), loop)


def _literal(x, dtype):
    if type(x) is float and x != x:
        text = "np.nan"
    elif type(x) is float and x in (float("inf"), float("-inf")):
        text = "np.inf" if x > 0 else "-np.inf"
    else:
        text = repr(x)
    return f"{_TYPE[dtype]}({text})"


def source(groups, inputs, outputs, in_place=()):
    """The kernel's Python source (see the module docstring): `groups` the steps of each
    equation, in order, beside its output Variable ([(output, steps)]); `inputs` and
    `outputs` the Variables read from and written to arrays, in argument order; `in_place`
    (output index, input index) pairs whose arrays may be one."""
    from ..static.program import Variable
    args = [f"x{k}" for k in range(len(inputs))]
    results = [f"y{k}" for k in range(len(outputs))]
    position = {id(x): k for k, x in enumerate(inputs)}
    whole = [k for k, x in enumerate(inputs) if x._data.ndim == 0]
    value = {}  # id(Variable or _Step) -> its local name
    head = [f"s{k} = x{k}[()]" for k in whole]
    for k in whole:
        value[id(inputs[k])] = f"s{k}"
    loads = [k for k in range(len(inputs)) if k not in whole]
    body = []
    n = 0
    for out, steps in groups:
        for s in steps:
            operands = []
            for x, dtype in zip(s.args, s.loop):
                if isinstance(x, (Variable, _Step)):
                    name = value[id(x)] if id(x) in value else f"a{position[id(x)]}"
                    have = x.loop[-1] if isinstance(x, _Step) else x._data.dtype
                    operands.append(name if have == dtype else f"{_TYPE[dtype]}({name})")
                else:
                    operands.append(_literal(x, dtype))
            if s.ufunc in _COMPARISONS:
                expression = _COMPARISONS[s.ufunc].format(*operands)
            else:
                expression = f"{_TYPE[s.loop[-1]]}({_ARITHMETIC[s.ufunc].format(*operands)})"
            value[id(s)] = f"v{n}"
            body.append(f"v{n} = {expression}")
            n += 1
        value[id(out)] = value[id(steps[-1])]

    def loop(read):
        lines = [f"for i in range({results[0]}.shape[0]):"]
        lines += [f"    a{k} = {read.get(k, args[k])}[i]" for k in loads]
        lines += ["    " + line for line in body]
        lines += [f"    {y}[i] = {value[id(o)]}" for y, o in zip(results, outputs)]
        return lines
    lines = [f"def kernel({', '.join(args + results)}):"] + ["    " + h for h in head]
    if in_place:
        same = " and ".join(f"{results[k]}.ctypes.data == {args[j]}.ctypes.data"
                            for k, j in in_place)
        lines += [f"    if {same}:"] + ["        " + line for line in
                                         loop({j: results[k] for k, j in in_place})]
        lines += ["    else:"] + ["        " + line for line in loop({})]
    else:
        lines += ["    " + line for line in loop({})]
    return "\n".join(lines) + "\n"


_HEADER = "import numpy as np\nfrom numba import njit\n\n\n" \
          "@njit(cache={cache}, error_model='numpy', nogil=True)\n"
_compiled = {}  # source -> numba dispatcher
_sources = {}  # id(dispatcher) -> (it, its source) (`export` writes it out)
_missing = False
_warned = False


def available():
    global _missing
    if _missing:
        return False
    try:
        import numba  # noqa: F401
    except ImportError:
        _missing = True
        return False
    return True


def backend(name):
    """What `compile(backend=name)` runs: "numba" when asked for and numba imports (else a
    warning, once, and None); None (NumPy code) for any other name."""
    global _warned
    if name != "numba":
        return None
    if available():
        return "numba"
    if not _warned:
        _warned = True
        warnings.warn("fluxgrad.compile(backend='numba'): numba is not installed, so the "
                      "compiled code calls NumPy only; install it with "
                      "`pip install fluxgrad[numba]`", stacklevel=3)
    return None


def cache_dir():
    """Where kernel sources (and numba's cache of their machine code) are kept:
    $FLUXGRAD_CACHE_DIR/numba, else ~/.cache/fluxgrad/numba."""
    root = os.environ.get("FLUXGRAD_CACHE_DIR") or os.path.join(
        os.path.expanduser("~"), ".cache", "fluxgrad")
    return os.path.join(root, "numba")


def kernel(text):
    """The numba dispatcher of a kernel's source (compiled at its first call)."""
    dispatcher = _compiled.get(text)
    if dispatcher is None:
        try:
            dispatcher = _from_file(text)
        except OSError:  # no writable cache directory: compiled in memory at each run
            namespace = {}
            exec(compile(_HEADER.format(cache=False) + text, "<fluxgrad kernel>", "exec"),
                 namespace)
            dispatcher = namespace["kernel"]
        _compiled[text] = dispatcher
        _sources[id(dispatcher)] = (dispatcher, text)
    return dispatcher


def _from_file(text):
    module_text = _HEADER.format(cache=True) + text
    digest = hashlib.sha1(module_text.encode()).hexdigest()[:20]
    directory = cache_dir()
    path = os.path.join(directory, f"kernel_{digest}.py")
    if not os.path.exists(path):  # (rewritten, its cached machine code would be stale)
        os.makedirs(directory, exist_ok=True)
        partial = f"{path}.{os.getpid()}.tmp"
        with open(partial, "w") as f:
            f.write(module_text)
        os.replace(partial, path)
    name = f"_fluxgrad_kernel_{digest}"
    spec = importlib.util.spec_from_file_location(name, path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    sys.modules.setdefault(name, module)
    return module.kernel


def source_of(value):
    """The source of a kernel this module made, or None for any other object."""
    dispatcher, text = _sources.get(id(value), (None, None))
    return text if dispatcher is value else None
