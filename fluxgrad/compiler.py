"""PyTorch's `torch.compiler` namespace over `fluxgrad.compile`.

`reset()` drops every compiled function's traces (the next call traces again);
`is_compiling()` is True while `fluxgrad.compile` traces a function; `disable(fn)` marks a
function that `compile` then returns unchanged. Unlike torch.compile's graph break, a disabled
function called inside a compiled one is traced with it (fluxgrad traces through every call,
so its result is the same; only its Python side effects run at trace time alone).
`allow_in_graph(fn)` returns `fn`: every fluxgrad function can be traced.
"""
from .jit.compiled import reset_all as reset
from .static.staging import programs as _programs

__all__ = ["reset", "is_compiling", "is_dynamo_compiling", "disable", "allow_in_graph"]


def is_compiling():
    """Whether `fluxgrad.compile` is tracing a function now."""
    return _programs.tracing


is_dynamo_compiling = is_compiling


def disable(fn=None, recursive=True, *, reason=None):
    """`fn` marked so that `fluxgrad.compile(fn)` returns it as it is (a decorator too)."""
    if fn is None:
        return lambda f: disable(f, recursive, reason=reason)
    fn._fluxgrad_compile_disabled = True
    return fn


def allow_in_graph(fn):
    return fn
