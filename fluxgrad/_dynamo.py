"""The parts of PyTorch's `torch._dynamo` that ordinary scripts touch: `reset()` (as
`fluxgrad.compiler.reset`), `disable`, and `config`, whose settings are accepted and kept but
change nothing (`fluxgrad.compile(fn, cache_size=...)` bounds a function's traces)."""
import types

from .compiler import disable, reset

__all__ = ["reset", "disable", "config"]

config = types.SimpleNamespace(cache_size_limit=64, suppress_errors=False, verbose=False,
                               capture_scalar_outputs=False, automatic_dynamic_shapes=True,
                               optimize_ddp=True)
