"""Batching rules shared by many ops (see `Primitive` for the rule signature).

A rule receives physical tensors holding the batch along `bdims[i]` (None: not
batched) and returns the batched result with the dimension its batch is along.
Most rules move the batch dimension to the front and call the op again with
its axis parameters shifted by one.
"""
from .._core.batching import move_dim
from .._core.dispatch import apply
from .._core.primitive import REGISTRY
from .._core.tensor import Tensor


def front(x, bdim):
    """`x` with its batch dimension first (`bdim` None: `x` unchanged)."""
    return x if bdim is None else move_dim(x, bdim, 0)


def logical_ndim(x, bdim):
    if not isinstance(x, Tensor):
        return 0
    return x.ndim - (bdim is not None)


def aligned(xs, bdims):
    """Batched inputs with the batch first and padded with size-1 dimensions so that they
    broadcast against the unbatched ones as their examples do."""
    rank = max(logical_ndim(x, b) for x, b in zip(xs, bdims))
    out = []
    for x, b in zip(xs, bdims):
        if b is not None:
            x = move_dim(x, b, 0)
            pad = rank - (x.ndim - 1)
            if pad:
                x = apply(REGISTRY["reshape"], x, shape=x.shape[:1] + (1,) * pad + x.shape[1:])
        out.append(x)
    return out


def broadcasting(prim_name):
    """The rule of an elementwise op (any number of inputs, NumPy broadcasting)."""
    def rule(bdims, *xs, **params):
        return apply(REGISTRY[prim_name], *aligned(xs, bdims), **params), 0
    return rule


def shifted_axes(axis, ndim):
    """Axis parameter `axis` of an op on `ndim`-dimensional examples, for the batch in front
    (None, meaning every axis, becomes every axis but the batch's)."""
    if axis is None:
        return tuple(range(1, ndim + 1))
    if isinstance(axis, (tuple, list)):
        return type(axis)(a % max(ndim, 1) + 1 for a in axis)
    return axis % max(ndim, 1) + 1


def along_axes(prim_name, *axis_params, none_means_all=True):
    """The rule of a one-input op whose `axis_params` name axes of its input (ints, tuples or
    None): the batch goes in front and the axes shift by one."""
    def rule(bdims, x, **params):
        (b,) = bdims
        ndim = x.ndim - 1
        x = move_dim(x, b, 0)
        for name in axis_params:
            value = params.get(name)
            if value is None and not none_means_all:
                continue
            params[name] = shifted_axes(value, ndim)
        return apply(REGISTRY[prim_name], x, **params), 0
    return rule


def per_example(prim_name):
    """The rule of an op that already treats leading dimensions as a batch (the batch goes
    in front of every batched input; unbatched ones are broadcast to the batch)."""
    def rule(bdims, *xs, **params):
        size = next(x.shape[b] for x, b in zip(xs, bdims) if b is not None)
        args = [move_dim(x, b, 0) if b is not None else
                apply(REGISTRY["broadcast_to"], x, shape=(size,) + x.shape)
                if isinstance(x, Tensor) else x for x, b in zip(xs, bdims)]
        return apply(REGISTRY[prim_name], *args, **params), 0
    return rule
