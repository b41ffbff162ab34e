"""`vmap`: a function of one example turned into a function of a batch, by batching rules.

The arguments' batch dimensions (`in_dims`) are hidden behind BatchedTensors for
the duration of the call; every op inside runs its primitive's batching rule
once for the whole batch, and the results get their batch dimension back at
`out_dims`.
"""
import functools

from .._core import batching
from .._core.errors import ArgumentError
from .._core.static_mode import state as _static_state
from .._core.tensor import Tensor
from ..creation import get_rng
from ._tree import flatten, is_tree_of_tensors

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
        raise ArgumentError(f"vmap: Only allowed values for randomness are 'error', "
                            f"'different', or 'same'. Got {randomness!r}")
    if chunk_size is not None and (not isinstance(chunk_size, int) or chunk_size < 1):
        raise ValueError(f"vmap: chunk_size must be a positive int or None, got {chunk_size!r}")

    @functools.wraps(f)
    def wrapper(*args, **kwargs):
        leaves, dims, rebuild = _leaves_and_dims(args, in_dims)
        size = _batch_size(leaves, dims)
        unknown = _static_state.armed and _is_unknown(size)
        if chunk_size is not None and unknown:
            raise ValueError(f"vmap: chunk_size needs a batch of known size, and this batch's "
                             f"size ({_name_of(size)}) is unknown (a static Variable's None / -1 "
                             "dimension); leave chunk_size out")
        if chunk_size is None or chunk_size >= size:
            outs, _, rebuild_out = _run(f, leaves, dims, rebuild, size, out_dims, randomness,
                                        kwargs, unknown)
            return rebuild_out(outs)
        from ..ops import concat, narrow
        rng_state = get_rng().bit_generator.state
        chunks = []
        for start in range(0, size, chunk_size):
            if randomness == "same":  # as in torch: every chunk draws the same numbers
                get_rng().bit_generator.state = rng_state
            n = min(chunk_size, size - start)
            part = [x if d is None else narrow(x, d, start, n) for x, d in zip(leaves, dims)]
            chunks.append(_run(f, part, dims, rebuild, n, out_dims, randomness, kwargs, False))
        outs = [c[0] for c in chunks]
        _, out_d, rebuild_out = chunks[0]
        # an output with out_dim None is the same in every chunk
        return rebuild_out([outs[0][i] if d is None else concat([o[i] for o in outs], d)
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
        leaves.extend(arg_leaves)
        dims.extend(_check_dim(x, dd, i) for x, dd in zip(
            arg_leaves, _dims_like(arg, d, "in_dims", f"for argument {i}")))
    _, rebuild = flatten(args)
    return leaves, dims, rebuild


def _dims_like(tree, d, kind, where):
    """One dim per tensor of `tree`, from `d`: an int or None for every tensor beneath it, or a
    structure of them matching `tree`'s."""
    if isinstance(d, (tuple, list, dict)):
        if isinstance(tree, (tuple, list)) and isinstance(d, (tuple, list)) and len(tree) == len(d):
            return [x for t, dd in zip(tree, d) for x in _dims_like(t, dd, kind, where)]
        if isinstance(tree, dict) and isinstance(d, dict) and tree.keys() == d.keys():
            return [x for k in tree for x in _dims_like(tree[k], d[k], kind, where)]
        raise ValueError(f"vmap: {kind} entry {d!r} {where} does not match its structure "
                         f"({_describe(tree)}); give one int or None for all of it, or a "
                         f"structure like it")
    if isinstance(tree, dict):
        tree = list(tree.values())
    if isinstance(tree, (tuple, list)):
        return [x for t in tree for x in _dims_like(t, d, kind, where)]
    if isinstance(tree, Tensor):
        return [d]
    if d is not None:
        raise ValueError(f"vmap: {kind} entry {d!r} {where} applies to a "
                         f"{type(tree).__name__}, which is not a tensor; use None for it")
    return []


def _describe(tree):
    if isinstance(tree, dict):
        return f"a dict with keys {list(tree)}"
    if isinstance(tree, (tuple, list)):
        return f"a {type(tree).__name__} of {len(tree)}"
    return "a tensor" if isinstance(tree, Tensor) else f"a {type(tree).__name__}"


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


def _is_unknown(size):
    from ..static.dims import has_symbol
    return has_symbol((size,))


def _name_of(size):
    from ..static.dims import pretty_shape
    return pretty_shape((size,))[0]


def _run(f, leaves, dims, rebuild, size, out_dims, randomness, kwargs, unknown):
    """(outputs, their out_dims, rebuild): `f` run once on the batch, its outputs flattened
    (`unknown`: the batch size is a static program's unknown dimension)."""
    level = batching.open_level(size, randomness, unknown)
    try:
        wrapped = [x if d is None else batching.wrap(x, level, d) for x, d in zip(leaves, dims)]
        out = f(*rebuild(wrapped), **kwargs)
        out_leaves, rebuild_out = flatten(out)
        if not is_tree_of_tensors(out):
            raise TypeError(f"vmap: the function must return tensors (or nested tuples/lists/"
                            f"dicts of tensors), got {type(out).__name__}")
        if isinstance(out, Tensor) and isinstance(out_dims, (tuple, list)) and len(out_dims) == 1:
            out_dims = out_dims[0]  # torch allows (d,) for a lone output
        out_d = _dims_like(out, out_dims, "out_dims", "for the output")
        results = []
        for y, d in zip(out_leaves, out_d):
            if d is None:
                if batching.is_batched_at(y, level):
                    raise ValueError("vmap: out_dims is None for an output that differs between "
                                     "examples; give it a batch dimension")
                results.append(y)
                continue
            if not isinstance(d, int):
                raise TypeError(f"vmap: out_dims entries must be ints or None, got {d!r}")
            if not -(y.ndim + 1) <= d <= y.ndim:
                raise ValueError(f"vmap: out_dim {d!r} is out of range for an output of shape "
                                 f"{list(y.shape)} per example: the batch dimension can go at "
                                 f"{-(y.ndim + 1)} to {y.ndim}")
            results.append(batching.take_level(y, level, d % (y.ndim + 1), size))
    finally:
        batching.close_level(level)
    return results, out_d, rebuild_out
