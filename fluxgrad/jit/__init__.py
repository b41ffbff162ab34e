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
`opt.step()` (SGD, Momentum, Adam, AdamW, RMSprop, Adagrad, Lamb) inside `fn`; parameters,
buffers, `.grad` and the optimizer's state are implicit inputs and outputs of the program,
read and written back in place at each call as eager mode would (see `state`). Random ops
(rand, dropout, ...) are equations: every call draws anew. Other captured tensors (closures) are
constants of the trace. A write into an argument (`x.add_(1)`, `x[0] = 0`, `x.data.mul_(2)`,
through a view of x) writes the argument's memory at each call and bumps its version, as in
eager mode (`arguments`); inside the trace each value has the memory layout it has in eager
mode (an argument's strides are part of its signature), so `view`, `reshape`, `stride()`,
`is_contiguous()` and `contiguous()` behave as there (`views`); a trace that read no
argument's layout (none of those on an argument or a value whose layout follows one, no
write into an argument) serves arguments of any strides.

Sizes: a size that changes between calls (a batch size, typically) becomes symbolic: the
next trace leaves it unknown and its code serves every size (100 batch sizes, two traces).
That trace is checked to be right for every size (the function is traced a second time
under other stand-in sizes, and the trace is refused if the two programs differ or if Python
code compared or combined the size, e.g. `if x.shape[0] > 64`, `n - 1`, `x.var()`); when
it isn't, the size stays concrete and each new one traces again. An output size computed
from an unknown one other than the unknown itself (`reshape(-1, 2)` of `[N, 4]`, giving
`2N`) can't be staged yet: that size stays concrete too. Sizes 0 and 1 are never symbolic
(broadcasting depends on them), and sizes equal at trace time share one unknown, so a call
where they differ traces again.
`dynamic=True` makes every size symbolic from the first call, `dynamic=False` none. Each
call checks, against the trace it runs: the argument structure, ranks, dtypes,
requires_grad, C-contiguity if the trace read a layout (other strides key a trace of their
own), sizes 0/1, the concrete sizes, the values of Python scalars, grad mode (by generated
code, `guards`, for calls of positional Tensors and scalars; a training step's state has its
own guards, see `state`). Python values the function reads from elsewhere
(globals, closures) are not checked: they are constants of the trace.

Refused (never a silently wrong result): a Python `if` on a traced value (use
`static.nn.cond`), reading a traced value (`.item()`, `.numpy()`), a captured tensor that
requires grad in a function that doesn't call backward() (pass it as an argument, e.g. a
model's parameters through `func.functional_call`), numbers drawn by NumPy directly while
tracing (`nn.init`), and what `state` lists for training steps. With `fullgraph=False` (the
default, as torch.compile) any such refusal runs the function eagerly instead, with a
one-time warning naming the line, and later calls with that argument structure run eagerly
without tracing again (an error the function raises in eager mode too is raised as such);
with `fullgraph=True` the refusal is raised.

Modules: `signature` (cache keys), `tracing` (function -> optimised Program), `state` (the
eager state of a training step as inputs, outputs and guards), `symbolic` (unknown sizes,
and the check that a trace is right for every size), `codegen` (Program -> Python source),
`buffers` (which ufunc calls write into dead buffers), `fusion` (long elementwise chains on
large arrays run in cache-sized chunks), `kernels` (with `backend="numba"`: runs of
arithmetic in those chunks as fused numba kernels), `guards` (each trace's call checks, as generated
code), `joint` (one forward+VJP program split into forward and backward code), `export`
(`save()`), `views` (writes through views, memory layouts), `arguments` (writes into
arguments), `compiled` (the cache, and the eager-graph node that makes compiled calls
differentiable).
"""
from .compiled import Compiled
from .persistence import TranslatedLayer, load, save

__all__ = ["compile", "to_static", "script", "trace", "Compiled", "OptimizedModule", "save",
           "load", "TranslatedLayer"]


def compile(fn=None, *, cache_size=64, check=False, disable=False, fullgraph=False,
            dynamic=None, backend=None, **options):
    """`fluxgrad.compile(fn)` or `@fluxgrad.compile(...)`: see the module docstring.
    `cache_size` traces are kept (least recently used dropped first); `check=True` compares
    the first call of each signature with eager mode; `disable=True` returns `fn` itself (so
    does a function marked by `fluxgrad.compiler.disable`);
    `fullgraph=True` raises where the trace fails instead of running eagerly; `dynamic`: None
    (sizes become symbolic once they change), True (from the first call), False (never).
    `backend="numba"` runs long elementwise chains on large arrays as fused numba kernels
    (`kernels`; needs `pip install fluxgrad[numba]`, else a warning and NumPy code); any
    other backend (torch.compile's names) writes NumPy code, as do `mode` and `options`."""
    unknown = set(options) - {"mode", "options"}
    if unknown:
        raise TypeError(f"fluxgrad.compile: unexpected keyword arguments {sorted(unknown)}")
    if disable or getattr(fn, "_fluxgrad_compile_disabled", False):
        return fn if fn is not None else (lambda f: f)
    if fn is None:
        return lambda f: compile(f, cache_size=cache_size, check=check, fullgraph=fullgraph,
                                 dynamic=dynamic, backend=backend)
    from ..nn.module import Module
    if isinstance(fn, Module):
        from .module import OptimizedModule
        return OptimizedModule(fn, cache_size=cache_size, check=check, fullgraph=fullgraph,
                               dynamic=dynamic, backend=backend)
    return Compiled(fn, cache_size, check, fullgraph, dynamic, backend)


def script(obj, *args, **kwargs):
    """PyTorch's `torch.jit.script`: `compile(obj)` (a module: an `OptimizedModule`)."""
    return compile(obj)


def trace(func, example_inputs=None, *args, **kwargs):
    """PyTorch's `torch.jit.trace`: `compile(func)`, traced now on `example_inputs` (a tensor or a
    tuple of them) when given."""
    compiled = compile(func)
    if example_inputs is not None:
        from .._core.grad_mode import no_grad
        with no_grad():
            compiled(*(example_inputs if isinstance(example_inputs, tuple) else
                       (example_inputs,)))
    return compiled


def to_static(function=None, input_spec=None, build_strategy=None, full_graph=True, **kwargs):
    """PaddlePaddle's spelling of `compile` (`input_spec` is accepted; signatures come from the
    actual arguments); Paddle's `full_graph=False` is `fullgraph=False` (eager fallback)."""
    if function is None:
        return lambda f: Compiled(f, fullgraph=full_graph)
    return Compiled(function, fullgraph=full_graph)
