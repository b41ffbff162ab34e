"""`fluxgrad.compile` / `fluxgrad.jit.to_static`: trace eager code into a static Program,
optimise it, and run it as generated NumPy code.

    @fluxgrad.compile
    def f(x, w):
        return (x @ w).tanh().sum()

    f(x, w)              # traces for this signature (argument structure, shapes, dtypes,
                         # requires_grad, Python scalars' values, grad mode)
    f(x, w)              # runs the generated code
    print(f.code)        # the generated Python source; f.traces: why each trace happened
    f(x, w).backward()   # one graph node; its backward is generated code too
    f.save("step.py")    # the generated code as a module that runs with NumPy alone

`fn` may return Tensors, Python scalars, and tuples, lists, dicts of them; every `func`
transform of a function compiles too (`grad`, `value_and_grad`, `vjp`, `jvp`, `jacrev`,
`jacfwd`, `hessian`, `hvp`, `vmap`, and their compositions): their batching and JVP rules
run first and stage the ops they issue on the Variables. A compiled function called inside
vmap or forward mode on batched or dual tensors runs its Python function inline (eagerly).
A whole training step compiles: `opt.zero_grad()`, the model, `loss.backward()` and
`opt.step()` (SGD, Momentum, Adam, AdamW, RMSprop, Adagrad) inside `fn`; parameters, buffers,
`.grad` and the optimizer's state are implicit inputs and outputs of the program, read and
written back in place at each call as eager mode would (see `state`). Random ops (rand,
dropout, ...) are equations: every call draws anew. Other captured tensors (closures) are
constants of the trace.

Refused with a clear error (never a silently wrong result): a Python `if` on a traced value
(use `static.nn.cond`), a captured tensor that requires grad in a function that doesn't
call backward() (pass it as an argument, e.g. a model's parameters through
`func.functional_call`), numbers drawn by NumPy directly while tracing (`nn.init`), and what
`state` lists for training steps.

Modules: `signature` (cache keys), `trace` (function -> optimised Program), `state` (the
eager state of a training step as inputs, outputs and guards), `codegen` (Program -> Python
source), `buffers` (which ufunc calls write into dead buffers), `fusion` (long elementwise
chains on large arrays run in cache-sized chunks), `joint` (one forward+VJP program split
into forward and backward code), `export` (`save()`), `compiled` (the cache, and the
eager-graph node that makes compiled calls differentiable).
"""
from .compiled import Compiled

__all__ = ["compile", "to_static", "Compiled"]


def compile(fn=None, *, cache_size=64, check=False, disable=False, **options):
    """`fluxgrad.compile(fn)` or `@fluxgrad.compile(...)`: see the module docstring.
    `cache_size` signatures are kept (least recently used dropped first); `check=True`
    compares the first call of each signature with eager mode; `disable=True` returns `fn`
    itself. torch.compile's `fullgraph`, `mode`, `backend`, `dynamic` and `options` are
    accepted and change nothing yet (what can't be traced always raises, as with
    fullgraph=True)."""
    unknown = set(options) - {"fullgraph", "mode", "backend", "dynamic", "options"}
    if unknown:
        raise TypeError(f"fluxgrad.compile: unexpected keyword arguments {sorted(unknown)}")
    if disable:
        return fn if fn is not None else (lambda f: f)
    if fn is None:
        return lambda f: Compiled(f, cache_size, check)
    return Compiled(fn, cache_size, check)


def to_static(function=None, input_spec=None, build_strategy=None, full_graph=True, **kwargs):
    """PaddlePaddle's spelling of `compile` (`input_spec` is accepted; signatures come from the
    actual arguments)."""
    if function is None:
        return lambda f: Compiled(f)
    return Compiled(function)
