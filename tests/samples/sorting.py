"""Samples for the sorting permutation (fluxgrad/ops/sorting.py): argsort has no derivative;
sort, topk and kthvalue gather the input through it (tests/test_sorting.py checks those)."""
import numpy as np

import fluxgrad as fg

from . import Sample, normal


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
