"""`vmap`: a function of one example turned into a function of a batch, by batching rules.

The arguments' batch dimensions (`in_dims`) are hidden behind BatchedTensors for
the duration of the call; every op inside runs its primitive's batching rule
once for the whole batch, and the results get their batch dimension back at
`out_dims`.
"""
import functools

from .._core import batching
from .._core.tensor import Tensor
from ._tree import flatten

__all__ = ["vmap"]


def vmap(f, in_dims=0, out_dims=0, randomness="error", *, chunk_size=None):
    """`f` mapped over a batch dimension of its arguments, vectorised.

    `in_dims`: the batch dimension of each argument (an int, None for an argument shared by
    every example, or a nested structure matching the arguments); `out_dims` likewise for
    the outputs. `randomness`: whether random numbers drawn inside are an error (default),
    'different' for every example or the 'same' for all. `chunk_size` bounds how many
    examples run at once.
    """
    if randomness not in ("error", "different", "same"):
        raise ValueError(f"vmap: randomness must be 'error', 'different' or 'same', "
                         f"got {randomness!r}")
    if chunk_size is not None and (not isinstance(chunk_size, int) or chunk_size < 1):
        raise ValueError(f"vmap: chunk_size must be a positive int or None, got {chunk_size!r}")

    @functools.wraps(f)
    def wrapper(*args, **kwargs):
        leaves, dims, rebuild = _leaves_and_dims(args, in_dims)
        size = _batch_size(leaves, dims)
        if chunk_size is None or chunk_size >= size:
            return _run(f, leaves, dims, rebuild, size, out_dims, randomness, kwargs)
        from ..ops import concat, narrow
        chunks = []
        for start in range(0, size, chunk_size):
            n = min(chunk_size, size - start)
            part = [x if d is None else narrow(x, d, start, n) for x, d in zip(leaves, dims)]
            chunks.append(_run(f, part, dims, rebuild, n, out_dims, randomness, kwargs))
        out_leaves = [flatten(c)[0] for c in chunks]
        _, rebuild_out = flatten(chunks[0])
        out_d = _out_dims(out_dims, len(out_leaves[0]))
        return rebuild_out([concat([c[i] for c in out_leaves], d)
                            for i, d in enumerate(out_d)])
    return wrapper


def _leaves_and_dims(args, in_dims):
    if isinstance(in_dims, (tuple, list)):
        if len(in_dims) != len(args):
            raise ValueError(f"vmap: in_dims has {len(in_dims)} entries but the function got "
                             f"{len(args)} positional arguments; give one per argument")
        per_arg = in_dims
    else:
        per_arg = (in_dims,) * len(args)
    leaves, dims = [], []
    for i, (arg, d) in enumerate(zip(args, per_arg)):
        arg_leaves, _ = flatten(arg)
        if isinstance(d, (tuple, list, dict)):
            d_leaves = _dims_like(arg, d, i)
        else:
            d_leaves = [d] * len(arg_leaves)
        leaves.extend(arg_leaves)
        dims.extend(_check_dim(x, dd, i) for x, dd in zip(arg_leaves, d_leaves))
    _, rebuild = flatten(args)
    return leaves, dims, rebuild


def _dims_like(arg, d, i):
    """The per-tensor dims of an argument whose in_dims entry is itself a structure."""
    if isinstance(arg, (tuple, list)) and isinstance(d, (tuple, list)) and len(arg) == len(d):
        return [x for a, dd in zip(arg, d) for x in (
            _dims_like(a, dd, i) if isinstance(dd, (tuple, list, dict)) else
            [dd] * len(flatten(a)[0]))]
    if isinstance(arg, dict) and isinstance(d, dict) and arg.keys() == d.keys():
        return [x for k in arg for x in (
            _dims_like(arg[k], d[k], i) if isinstance(d[k], (tuple, list, dict)) else
            [d[k]] * len(flatten(arg[k])[0]))]
    raise ValueError(f"vmap: in_dims entry {d!r} for argument {i} does not match its structure")


def _check_dim(x, d, i):
    if d is None:
        return None
    if not isinstance(d, int):
        raise TypeError(f"vmap: in_dims entries must be ints or None, got {d!r} for argument {i}")
    if not -x.ndim <= d < x.ndim:
        raise ValueError(f"vmap: in_dim {d} for argument {i} is out of range: that tensor has "
                         f"shape {list(x.shape)}")
    return d % x.ndim


def _batch_size(leaves, dims):
    sizes = {(i, x.shape[d]) for i, (x, d) in enumerate(zip(leaves, dims)) if d is not None}
    if not sizes:
        raise ValueError("vmap: no argument is batched (every in_dim is None or no argument is "
                         "a tensor); give at least one tensor a batch dimension")
    distinct = sorted({s for _, s in sizes})
    if len(distinct) > 1:
        found = ", ".join(f"input {i}: {s}" for i, s in sorted(sizes))
        raise ValueError(f"vmap: the batched inputs have different batch sizes ({found}); "
                         "every batched dimension must have the same size")
    if distinct[0] == 0:
        raise ValueError("vmap: the batch is empty (batch dimension of size 0)")
    return distinct[0]


def _out_dims(out_dims, n):
    if isinstance(out_dims, (tuple, list)):
        if len(out_dims) != n:
            raise ValueError(f"vmap: out_dims has {len(out_dims)} entries but the function "
                             f"returned {n} tensors")
        return list(out_dims)
    return [out_dims] * n


def _run(f, leaves, dims, rebuild, size, out_dims, randomness, kwargs):
    level = batching.open_level(size, randomness)
    try:
        wrapped = [x if d is None else batching.wrap(x, level, d) for x, d in zip(leaves, dims)]
        out = f(*rebuild(wrapped), **kwargs)
        out_leaves, rebuild_out = flatten(out)
        if not out_leaves or _has_non_tensor(out):
            raise TypeError(f"vmap: the function must return tensors (or nested tuples/lists/"
                            f"dicts of tensors), got {type(out).__name__}")
        results = []
        for y, d in zip(out_leaves, _out_dims(out_dims, len(out_leaves))):
            if d is None:
                if batching.is_batched_at(y, level):
                    raise ValueError("vmap: out_dims is None for an output that differs between "
                                     "examples; give it a batch dimension")
                results.append(y)
                continue
            if not isinstance(d, int) or not -(y.ndim + 1) <= d <= y.ndim:
                raise ValueError(f"vmap: out_dim {d!r} is out of range for an output of shape "
                                 f"{list(y.shape)} per example: the batch dimension can go at "
                                 f"{-(y.ndim + 1)} to {y.ndim}")
            d = d % (y.ndim + 1)
            results.append(batching.take_level(y, level, d, size))
    finally:
        batching.close_level(level)
    return rebuild_out(results)


def _has_non_tensor(tree):
    if isinstance(tree, (tuple, list)):
        return any(_has_non_tensor(t) for t in tree)
    if isinstance(tree, dict):
        return any(_has_non_tensor(t) for t in tree.values())
    return not isinstance(tree, Tensor)
