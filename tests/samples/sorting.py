"""Samples for the sorting permutation (fluxgrad/ops/sorting.py): argsort has no derivative;
sort, topk and kthvalue gather the input through it (tests/test_sorting.py checks those)."""
import numpy as np

import fluxgrad as fg

from . import Sample, normal, positive


def _torch_argsort(**kwargs):
    def fn(x):
        import torch
        return torch.argsort(x, stable=True, **kwargs)
    return fn


SAMPLES = [
    Sample("argsort", lambda x: fg.argsort(x), [normal(3, 5, seed=1)], _torch_argsort()),
    Sample("argsort", lambda x: fg.argsort(x, dim=0, descending=True), [normal(4, 3, seed=2)],
           _torch_argsort(dim=0, descending=True)),
    Sample("argsort", lambda x: fg.argsort(x.round()), [np.array([3.0, 1.0, 1.0, 2.0, 1.0])],
           lambda x: __import__("torch").argsort(x.round(), stable=True)),
    Sample("argsort", lambda x: fg.topk(x, 2, dim=1).values, [normal(2, 4, 3, seed=3)],
           lambda x: __import__("torch").topk(x, 2, dim=1).values),
]


def _torch(name, *args, **kwargs):
    def fn(x):
        import torch
        return getattr(torch, name)(x, *args, **kwargs)
    return fn


_COPIES_MEDIAN = np.array([[1.0, 2.0, 1.0, 0.5, 1.0]])  # x * this: three tie for the median


def _copies(x):
    return x.reshape(-1, 1) * fg.tensor(_COPIES_MEDIAN, dtype=fg.float64)


def _torch_copies(x):
    import torch
    return x.reshape(-1, 1) * torch.tensor(_COPIES_MEDIAN)


# the median of all elements shares the gradient among ties (copies of one input stay tied
# under perturbation, so finite differences still hold)
SAMPLES += [
    Sample("median_all", lambda x: fg.median(x), [normal(3, 4, seed=4)], _torch("median")),
    Sample("median_all", lambda x: fg.median(_copies(x)), [positive(1)],
           lambda x: _torch_copies(x).median()),
    Sample("nanmedian_all", lambda x: fg.nanmedian(x), [normal(2, 5, seed=8)],
           _torch("nanmedian")),
    Sample("nanmedian_all", lambda x: fg.nanmedian(_copies(x)), [positive(2)],
           lambda x: _torch_copies(x).nanmedian()),
]

# median(dim) and mode gather the input at a chosen index: the gradient goes to that element
SAMPLES += [
    Sample("argsort", lambda x: fg.median(x, 1).values, [normal(3, 4, seed=5)],
           lambda x: __import__("torch").median(x, 1).values),
    Sample("argsort", lambda x: fg.nanmedian(x, 0, keepdim=True).values, [normal(5, 2, seed=6)],
           lambda x: __import__("torch").nanmedian(x, 0, keepdim=True).values),
    Sample("mode_index", lambda x: fg.mode(x, 1).values, [normal(3, 4, seed=7)],
           lambda x: __import__("torch").mode(x, 1).values),
    Sample("mode_index", lambda x: fg.mode(x.round(), 0).indices * 1.0,
           [np.array([[1.0, 2.0], [2.0, 2.0], [1.0, 3.0], [3.0, 3.0]])],
           lambda x: __import__("torch").mode(x.round(), 0).indices * 1.0),
]

# unique and unique_consecutive (no derivative): repeated entries, runs, a dim, NaNs (distinct)
_REPEATS = np.array([[2.0, 1.0, 1.0], [2.0, 3.0, 1.0], [2.0, 1.0, 1.0], [0.0, 0.0, 0.0]])
SAMPLES += [
    Sample(op, lambda x, op=op, k=k: getattr(fg, op)(x, return_inverse=True,
                                                     return_counts=True)[k],
           [_REPEATS], lambda x, op=op, k=k: getattr(__import__("torch"), op)(
               x, return_inverse=True, return_counts=True)[k])
    for op in ("unique", "unique_consecutive") for k in range(3)
] + [
    Sample(op, lambda x, op=op, k=k: getattr(fg, op)(x, return_inverse=True,
                                                     return_counts=True, dim=0)[k],
           [_REPEATS], lambda x, op=op, k=k: getattr(__import__("torch"), op)(
               x, return_inverse=True, return_counts=True, dim=0)[k])
    for op in ("unique", "unique_consecutive") for k in range(3)
] + [
    Sample("unique", lambda x: fg.unique(x), [np.array([1.0, np.nan, 1.0, np.nan])],
           lambda x: __import__("torch").unique(x)),
]
