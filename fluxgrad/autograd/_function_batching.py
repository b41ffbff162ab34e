"""Custom Functions inside vmap: a batching rule generated from the Function itself.

When `Function.apply` meets arguments batched at a vmap level, it applies a generated
Function to their physical tensors instead, as a primitive's batching rule would: its
forward runs the user's forward on the examples, its backward and jvp run the user's
backward and jvp on the examples (in a batch level of their own, so a backward after the
vmap has returned works too). The graph then holds physical tensors only, and gradients
and tangents reach them. Tensors that backward or jvp read must be passed through
`ctx.save_for_backward`: other attributes of ctx are not re-batched.
"""
import functools

import numpy as np

from .._core import batching
from .._core.batching import BatchedTensor, is_batched_at, take_level, wrap
from .._core.tensor import Tensor


class _Call:
    """What the generated Function needs to know of one batched call."""
    __slots__ = ("function", "level", "size", "bdims", "kwargs")

    def __init__(self, function, level, size, bdims, kwargs):
        self.function, self.level, self.size = function, level, size
        self.bdims, self.kwargs = bdims, kwargs


def apply_batched(function, args, kwargs):
    """`function.apply(*args, **kwargs)` where some args are BatchedTensors."""
    level = max(x._level for x in args if type(x) is BatchedTensor)
    physicals, bdims = batching.peel(args, level)
    call = _Call(function, level, batching.state.sizes[level], bdims, kwargs)
    outs = _generated(function).apply(call, *physicals)
    if isinstance(outs, tuple):
        return tuple(wrap(o, level, 0) for o in outs)
    return wrap(outs, level, 0)


@functools.cache
def _generated(function):
    from .function import Function
    rules = {"forward": staticmethod(_forward), "backward": staticmethod(_backward)}
    if function.jvp is not None:
        rules["jvp"] = staticmethod(_jvp)
    return type(function.__name__, (Function,), rules)


def _forward(ctx, call, *xs):
    from .function import FunctionCtx
    level, size = call.level, call.size
    inner = FunctionCtx(ctx.needs_input_grad[1:])
    examples = [x if d is None else wrap(x, level, d) for x, d in zip(xs, call.bdims)]
    outs = call.function._run_forward(inner, examples, call.kwargs)
    single = not isinstance(outs, (tuple, list))
    outs = [Tensor(o) if isinstance(o, np.ndarray) else o
            for o in ((outs,) if single else outs)]
    physical = {id(o): take_level(o, level, 0, size) for o in outs if isinstance(o, Tensor)}
    saved, saved_dims = [], []
    for t in inner._saved:
        if t is None or not is_batched_at(t, level):
            saved.append(t)
            saved_dims.append(None)
        elif id(t) in physical:
            saved.append(physical[id(t)])
            saved_dims.append(0)
        elif t._level == level:
            saved.append(t._physical)  # an input: the very tensor, so its graph is kept
            saved_dims.append(t._bdim)
        else:
            saved.append(take_level(t, level, 0, size))
            saved_dims.append(0)
    ctx.save_for_backward(*saved)
    ctx.mark_non_differentiable(*(physical[id(t)] for t in inner._non_differentiable
                                  if id(t) in physical))
    ctx.call, ctx.inner, ctx.saved_dims = call, inner, tuple(saved_dims)
    ctx.example_shapes = tuple(tuple(x.shape) if isinstance(x, Tensor) else None
                               for x in examples)
    results = tuple(physical.get(id(o), o) for o in outs)
    return results[0] if single else results


def _in_examples(ctx, rule, values, dims):
    """Run `rule(*values)` on the examples of `values` (batched along `dims`) with the
    saved tensors batched likewise, in a batch level of its own; its results come back
    physical, the batch in front (None stays None)."""
    size = ctx.call.size
    level = batching.open_level(size)
    try:
        def examples(ts, ds):
            return tuple(t if d is None or t is None else wrap(t, level, d)
                         for t, d in zip(ts, ds))
        ctx.inner._saved = examples(ctx.saved_tensors, ctx.saved_dims)
        results = rule(ctx.inner, *examples(values, dims))
        results = (results,) if not isinstance(results, (tuple, list)) else tuple(results)
        return [r if not isinstance(r, Tensor) else take_level(r, level, 0, size)
                for r in results]
    finally:
        ctx.inner._saved = ()
        batching.close_level(level)


def _backward(ctx, *out_bars):
    from .function import _align
    call = ctx.call
    x_bars = _in_examples(ctx, call.function.backward, out_bars, (0,) * len(out_bars))
    x_bars = _align(call.function, x_bars, [s is not None for s in ctx.example_shapes])
    result = [None]
    for x_bar, d, shape in zip(x_bars, call.bdims, ctx.example_shapes):
        if not isinstance(x_bar, Tensor) or shape is None:
            result.append(x_bar)
            continue
        x_bar = x_bar.broadcast_to((call.size,) + shape)
        # an argument shared by every example gets the sum of their gradients
        result.append(x_bar.sum(0) if d is None else x_bar.movedim(0, d))
    return tuple(result)


def _jvp(ctx, _, *tangents):
    call = ctx.call
    return tuple(_in_examples(ctx, call.function.jvp, tangents, call.bdims))
