"""Samples for the Hurwitz zeta and the regularized incomplete gamma functions
(fluxgrad/ops/special_functions.py). They are differentiable in their second argument only (as
in PyTorch), so the first is a constant closed over."""
import numpy as np

import fluxgrad as fg

from . import Sample, rng


def _uniform(low, high, *shape, seed=0):
    return rng(seed).uniform(low, high, shape)


def _torch_special(name, first):
    def fn(second):
        import torch
        return getattr(torch.special, name)(torch.as_tensor(first), second)
    return fn


def _samples():
    exponents = np.array([[1.5, 2.0, 3.0], [4.5, 2.5, 7.0]])
    shapes = np.array([[0.5, 1.0, 2.5], [4.0, 0.2, 12.0]])
    samples = []
    for name, first, second in [
            ("zeta", exponents, _uniform(0.3, 3.0, 2, 3)),
            ("zeta", 2.0, _uniform(0.5, 12.0, 4, seed=1)),
            ("gammainc", shapes, _uniform(0.2, 14.0, 2, 3, seed=2)),
            ("gammaincc", shapes, _uniform(0.2, 14.0, 2, 3, seed=3)),
            ("gammainc", 3.0, np.array([0.5, 3.5, 4.0, 9.0])),  # both sides of x = a + 1
            ("gammaincc", 1.0, np.array([0.1, 2.0, 2.5]))]:
        fn = getattr(fg.special, name)
        samples.append(Sample(name, lambda s, fn=fn, f=first: fn(fg.as_tensor(f), s), [second],
                              _torch_special(name, first)))
    return samples


SAMPLES = _samples()
