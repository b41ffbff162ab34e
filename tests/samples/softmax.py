"""Samples for softmax and log_softmax (fluxgrad/ops/softmax.py), large inputs included."""
import numpy as np

import fluxgrad as fg

from . import Sample, normal

LARGE = np.array([[1000.0, 999.0, -1000.0, 998.5], [-800.0, -801.0, -799.5, -802.0]])


def _samples(name):
    fn = getattr(fg, name)

    def torch_along(dim):
        def torch_fn(x):
            import torch
            return getattr(torch, name)(x, dim)
        return torch_fn

    samples = [Sample(name, lambda x, d=dim: fn(x, d), [normal(*shape, seed=seed)],
                      torch_along(dim))
               for seed, (shape, dim) in enumerate([((5,), -1), ((3, 4), 0), ((3, 4), 1),
                                                    ((3, 4), -1), ((2, 3, 4), 1),
                                                    ((2, 3, 4), -3), ((4, 1), 1), ((1, 3), 0)])]
    samples += [
        Sample(name, lambda x: fn(x), [normal(2, 3, 4, seed=9)], torch_along(-1)),
        Sample(name, lambda x: getattr(x, name)(dim=1), [normal(3, 4, seed=10)],
               torch_along(1)),
        Sample(name, lambda x: fn(x, axis=0), [normal(3, 2, seed=11)], torch_along(0)),
        Sample(name, lambda x: fn(x, 0), [np.array(0.4)], torch_along(0)),
        Sample(name, lambda x: fn(x), [LARGE], torch_along(-1)),
        Sample(name, lambda x: fn(x, 0), [LARGE.T], torch_along(0)),
    ]
    return samples


SAMPLES = _samples("softmax") + _samples("log_softmax")
SAMPLES += [
    Sample("softmax", lambda x: fg.nn.functional.softmin(x, 1), [normal(3, 4, seed=7)],
           lambda x: __import__("torch").nn.functional.softmin(x, 1)),
    Sample("softmax", lambda x: fg.nn.Softmin(dim=0)(x), [normal(3, 4, seed=8)],
           lambda x: __import__("torch").nn.Softmin(dim=0)(x)),
]
