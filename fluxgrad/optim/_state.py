"""Optimizer state as PyTorch keeps it: `opt.state[p]` is a dict of tensors.

The built-in optimizers declare their entries (`_state_tensors`: shaped like the
parameter; `_state_numbers`: 0-d counters such as "step", float32 as PyTorch's, float64
under `set_default_dtype(float64)`). Their updates work on the tensors' arrays in place
(`arrays`, `count`), so the step stays as fast as on bare arrays and a user's reference to an
entry (`buf = opt.state[p]["exp_avg"]`) stays valid.

Code that works on arrays (the compiled training step of `fluxgrad.jit` writes its new
values back as arrays and numbers) may store an ndarray or a number under a declared entry:
it is written into the entry's tensor in place, or becomes a new tensor. Entries an
optimizer does not declare (a custom optimizer's) are stored as given.
"""
import collections
import functools

import numpy as np

from .._core import dtypes
from .._core.tensor import Tensor


def counter(value):
    """A 0-d counter tensor holding `value`, in PyTorch's dtype for optimizer scalars."""
    dtype = np.float64 if dtypes.get_default_dtype() == dtypes.float64 else np.float32
    return Tensor._make(np.array(value, dtype))


def zeros_like(p, value=0):
    """A state tensor shaped like the parameter array `p`, filled with `value`."""
    return Tensor._make(np.full_like(p, value))


class ParamState(dict):
    """One parameter's state (a dict, as PyTorch's); see the module docstring."""

    def __init__(self, tensors=(), numbers=(), *args, **kwargs):
        self._tensors, self._numbers = tensors, numbers
        super().__init__(*args, **kwargs)

    def __setitem__(self, key, value):
        declared = key in getattr(self, "_tensors", ()) or key in getattr(self, "_numbers", ())
        if declared and not isinstance(value, Tensor) and value is not None:
            old = self.get(key)
            value = np.asarray(value)
            if isinstance(old, Tensor) and old._data.shape == value.shape:
                np.copyto(old._data, value, casting="unsafe")
                return
            value = counter(value) if key in self._numbers else Tensor._make(np.array(value))
        super().__setitem__(key, value)

    def __reduce__(self):
        return (type(self), (self._tensors, self._numbers), None, None, iter(self.items()))


class States(collections.defaultdict):
    """`opt.state`: a defaultdict whose per-parameter dicts are `ParamState`s (a plain dict
    given for a parameter, as `state.setdefault(p, {})` gives, becomes one)."""

    def __init__(self, factory, *args):
        super().__init__(factory, *args)

    @classmethod
    def of(cls, optimizer):
        return cls(functools.partial(ParamState, tuple(optimizer._state_tensors or ()),
                                     tuple(optimizer._state_numbers)))

    def __setitem__(self, p, entries):
        if type(entries) is not ParamState:
            state = self.default_factory()
            for key, value in entries.items():
                state[key] = value
            entries = state
        super().__setitem__(p, entries)

    def setdefault(self, p, default=None):
        if p not in self:
            self[p] = default or {}
        return self[p]

    def __repr__(self):
        return repr(dict(self))


def arrays(state, *keys):
    """The arrays of the state tensors `keys` (None for a missing entry)."""
    return [None if state.get(key) is None else state[key]._data for key in keys]


def count(state, key="step"):
    """Add one to the counter `key` (made on the first call) and return its new value."""
    t = state.get(key)
    if t is None:
        t = state[key] = counter(0)
    t._data += 1
    return t._data.item()
