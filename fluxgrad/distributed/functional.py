"""Differentiable collectives (torch's `torch.distributed.nn.functional`): they return new
tensors, and autograd carries gradients back across the ranks.

    y = all_reduce(x)          # y = sum of the ranks' x;   x.grad = sum of the ranks' y grads
    parts = all_gather(x)      # parts[r] = rank r's x;     x.grad = sum over ranks of their
                               #                            gradient for parts[my rank]
    y = reduce_scatter(out, [x0, x1, ...])  # the transpose of all_gather
    y = broadcast(x, src)      # rank src's x everywhere;   x.grad (on src) = sum of y grads

Every rank must run the backward pass too, since the backward of a collective is another
collective. The backward rules call these same functions, so higher order works.
"""
import numpy as np

from .._core.tensor import Tensor
from ..autograd.function import Function
from . import collectives
from .collectives import ReduceOp
from .process_group import default_group

__all__ = ["all_reduce", "all_gather", "reduce_scatter", "broadcast"]


def all_reduce(tensor, op=ReduceOp.SUM, group=None):
    """The ranks' `tensor` combined with `op` (SUM or AVG when it needs a gradient)."""
    if op not in (ReduceOp.SUM, ReduceOp.AVG) and tensor.requires_grad:
        raise ValueError(f"all_reduce: op {op!r} has no gradient here; use ReduceOp.SUM or AVG "
                         "for a differentiable all-reduce, or detach the tensor")
    return _AllReduce.apply(tensor, op, group)


def all_gather(tensor, group=None):
    """A tuple of world_size tensors: element r is rank r's `tensor`."""
    return _AllGather.apply(tensor, group)


def reduce_scatter(output, input_list, op=ReduceOp.SUM, group=None):
    """Rank r gets the sum over ranks of their `input_list[r]`; `output` gives shape and dtype
    (it is not written, as in torch)."""
    if op != ReduceOp.SUM:
        raise ValueError(f"reduce_scatter: op {op!r} has no gradient here; use ReduceOp.SUM")
    return _ReduceScatter.apply(output, group, *input_list)


def broadcast(tensor, src, group=None):
    """Rank `src`'s `tensor`, on every rank."""
    return _Broadcast.apply(tensor, src, group)


class _AllReduce(Function):
    @staticmethod
    def forward(ctx, x, op, group):
        ctx.op, ctx.group = op, group
        out = Tensor._make(x._data.copy())
        collectives.all_reduce(out, op, group)
        return out

    @staticmethod
    def backward(ctx, out_bar):
        return _AllReduce.apply(out_bar, ctx.op, ctx.group), None, None


class _AllGather(Function):
    @staticmethod
    def forward(ctx, x, group):
        ctx.group = group
        parts = []
        collectives.all_gather(parts, x, group)
        return tuple(parts)

    @staticmethod
    def backward(ctx, *out_bars):
        like = next(g for g in out_bars if g is not None)._data
        out_bars = [g if g is not None else Tensor._make(np.zeros_like(like)) for g in out_bars]
        x_bar = _ReduceScatter.apply(out_bars[0], ctx.group, *out_bars)
        return x_bar, None


class _ReduceScatter(Function):
    @staticmethod
    def forward(ctx, like, group, *xs):
        ctx.group = group
        ctx.n_inputs = len(xs)
        out = Tensor._make(np.empty_like(xs[0]._data))
        collectives.reduce_scatter(out, list(xs), ReduceOp.SUM, group)
        return out

    @staticmethod
    def backward(ctx, out_bar):
        parts = _AllGather.apply(out_bar, ctx.group)
        return (None, None) + tuple(parts)


class _Broadcast(Function):
    @staticmethod
    def forward(ctx, x, src, group):
        ctx.src, ctx.group = src, group
        out = Tensor._make(x._data.copy())
        collectives.broadcast(out, src, group)
        return out

    @staticmethod
    def backward(ctx, out_bar):
        total = _AllReduce.apply(out_bar, ReduceOp.SUM, ctx.group)
        if (ctx.group or default_group("broadcast")).rank() != ctx.src:
            total = Tensor._make(np.zeros_like(total._data))
        return total, None, None
