"""Sample inputs for every registered op, one module per op family.

A `Sample` names the primitive it exercises (`op`, a key of
`fluxgrad._core.primitive.REGISTRY`), a fluxgrad call `fn(*tensors)` and, where
PyTorch has the same computation, `torch_fn(*torch_tensors)`. `args` are the
differentiable inputs as float64 NumPy arrays; constants (indices, axes, ...)
are closed over by the two callables. Generic tests in test_registry.py walk
the registry and check every op through its samples.
"""
import dataclasses
import importlib
import pkgutil
from typing import Callable, Optional

import numpy as np


@dataclasses.dataclass
class Sample:
    op: str
    fn: Callable
    args: list
    torch_fn: Optional[Callable] = None
    second_order: bool = True  # False where the second derivative is not defined / not smooth
    forward: bool = True  # False for an op with a reverse-mode rule only (py_func)
    in_place: bool = False  # fn writes its other arguments into a copy of the first one
    vmap: bool = True  # False where fn writes its arguments into a tensor it creates itself
    rtol: float = 1e-6
    atol: float = 1e-7

    def __repr__(self):
        shapes = ", ".join(str(list(np.shape(a))) for a in self.args)
        return f"{self.op}({shapes})"


def rng(seed=0):
    return np.random.default_rng(seed)


def positive(*shape, seed=0):
    return rng(seed).uniform(0.5, 2.0, shape)


def normal(*shape, seed=0):
    return rng(seed).standard_normal(shape)


def away_from(values, points, margin=0.1, *, seed=0):
    """`values` nudged so no element is within `margin` of a kink in `points`."""
    values = np.array(values, dtype=float)
    for p in points:
        close = np.abs(values - p) < margin
        values[close] = p + margin * np.where(values[close] >= p, 2, -2)
    return values


def all_samples():
    samples = []
    for info in pkgutil.iter_modules(__path__):
        module = importlib.import_module(f"{__name__}.{info.name}")
        samples.extend(getattr(module, "SAMPLES", []))
    return samples
