"""A compiled function called under `vmap`: the batched function is traced and compiled.

`call(compiled, args, kwargs)` runs `compiled.fn` on arguments some of which are
BatchedTensors. Each Tensor leaf is peeled to its plain (physical) tensor and its batch
layers `[(level, bdim)]`, the levels renamed by rank (0: the outermost level the arguments
carry). For each pattern of layers (and each level's `randomness`) a `Compiled` of the
batched function is kept: a function of the plain tensors that wraps them in the levels
open at this call, runs `fn` (its ops run through their batching rules, which stage the
batched ops), and returns each result leaf's plain tensor with every level's batch
dimension in front (outermost first; a result the same for every example is broadcast).
The call then wraps those in the levels again, so vmap unwraps them as it would `fn`'s own.
So `vmap(compile(f))` runs one compiled program per pattern, whose sizes follow the usual
cache (a new batch size traces again, or becomes symbolic), and equals `vmap(f)`.

Forward mode (a tangent on a plain tensor), and an open vmap level that no argument carries
(`fn` may capture a tensor batched there, which a trace would freeze), run `fn` eagerly.
"""
import numpy as np

from .._core import batching
from .._core.tensor import Tensor
from . import signature

_LIMIT = 64  # patterns kept per compiled function
_HOLE = np.zeros(())  # a leaf's place in the kept argument structure


class _Batched:
    """The compiled batched function of one pattern of layers."""

    def __init__(self, compiled, structure, layouts):
        from .compiled import Compiled
        self.fn, self.structure, self.layouts = compiled.fn, structure, layouts
        self.levels = ()  # the open levels of the current call, outermost first
        self.out_structure = None

        def batched(*plains):
            leaves = iter(batching.rebuild(p, [(self.levels[r], b) for r, b in layout])
                          for p, layout in zip(plains, self.layouts))
            args, kwargs = signature.substitute(self.structure, leaves)
            result = self.fn(*args, **kwargs)
            out = []
            self.out_structure = signature.flatten_value(result, out)
            front = [(level, 0) for level in self.levels]
            return tuple(batching.to_physical_like(t, front) for t in out)
        batched.__name__ = f"{getattr(self.fn, '__name__', 'fn')}_batched"
        self.compiled = Compiled(batched, cache_size=compiled.cache_size, check=compiled.check,
                                 fullgraph=compiled.fullgraph, dynamic=compiled.dynamic,
                                 backend=compiled.backend)


def call(compiled, args, kwargs):
    structure, tensors = signature.flatten_args(args, kwargs)
    peeled = [batching.layers(t) for t in tensors]
    if any(plain._tangent is not None for _, plain in peeled):
        return compiled.fn(*args, **kwargs)
    levels = sorted({level for found, _ in peeled for level, _ in found}, reverse=True)
    if len(levels) != len(batching.state.sizes):
        # an open level none of the arguments carry: fn may capture a tensor batched there,
        # which a trace would freeze; it runs eagerly, through the batching rules
        return compiled.fn(*args, **kwargs)
    rank = {level: k for k, level in enumerate(levels)}
    layouts = tuple(tuple((rank[level], bdim) for level, bdim in found) for found, _ in peeled)
    key = (structure, layouts,
           tuple(batching.state.randomness[level] for level in levels))
    cache = compiled._batched
    entry = cache.get(key)
    if entry is None:
        if len(cache) >= _LIMIT:
            cache.clear()
        holes = iter([Tensor._make(_HOLE) for _ in peeled])
        entry = cache[key] = _Batched(compiled, (signature.substitute(args, holes),
                                                 signature.substitute(kwargs, holes)), layouts)
    entry.levels = tuple(levels)
    traces = entry.compiled.trace_count
    outs = entry.compiled(*[plain for _, plain in peeled])
    compiled.trace_count += entry.compiled.trace_count - traces
    compiled.code = entry.compiled.code
    front = [(level, 0) for level in levels]
    return signature.unflatten(entry.out_structure,
                               iter(batching.rebuild(o, front) for o in outs))
