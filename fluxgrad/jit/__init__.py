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

`fn` may return Tensors, Python scalars, and tuples, lists, dicts of them; `func.grad`,
`value_and_grad` and `vjp` of a function compile too (they stage through Variables).
Captured tensors (closures) are constants of the trace.

Refused with a clear error (never a silently wrong result): a Python `if` on a traced value
(use `static.nn.cond`), a captured tensor that requires grad (pass it as an argument, e.g.
a model's parameters through `func.functional_call`), random numbers, vmap and forward mode
(so `func.hessian`, `jacfwd`, `hvp`), and `backward()` inside the traced function. Not built
yet: training steps with `backward()` / `opt.step()` inside, symbolic dims (each new shape
traces again), guards beyond the signature, the eager fallback of `fullgraph=False`.

Modules: `signature` (cache keys), `trace` (function -> optimised Program), `codegen`
(Program -> Python source), `buffers` (which ufunc calls write into dead buffers), `fusion`
(long elementwise chains on large arrays run in cache-sized chunks),
`joint` (one forward+VJP program split into forward and backward code), `export` (`save()`),
`compiled` (the cache, and the eager-graph node that makes compiled calls differentiable).
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
