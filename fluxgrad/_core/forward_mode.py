"""Forward-mode state: how many dual levels are open (0: the hot path skips tangents), and
the level whose tangents no reverse pass will ever differentiate (0: none), whose JVP rules
therefore run without recording (`fluxgrad.func.hvp` opens such a level).

At that untaped level an op's output keeps its tangent as a plain ndarray in `_tangent` (no
Tensor made per op); whatever hands a tangent to a rule or to the user wraps it with
`tangent_tensor` first.
"""
import threading

import numpy as np

from .tensor import Tensor


class _State(threading.local):
    level = 0
    untaped = 0


state = _State()

_ndarray = np.ndarray
_make = Tensor._make


def tangent_tensor(dot):
    """A tensor's `_tangent` as a Tensor (None stays None)."""
    return _make(dot) if type(dot) is _ndarray else dot
