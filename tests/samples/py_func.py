"""Samples for `py_func` (static.py_func's op): a NumPy function staged as an op, its VJP
another py_func that runs the user's backward function (so no second order and no JVP)."""
import numpy as np
import torch

from fluxgrad._core.dispatch import apply
from fluxgrad.static.py_func import py_func_p

from . import Sample, normal


def _sin_backward(x, out, out_bar):
    return out_bar * np.cos(x)


def _sin(x):
    return apply(py_func_p, x, func=np.sin, backward=_sin_backward,
                 out_types=((tuple(x.shape), x._data.dtype.str),), keep=(True,))[0]


SAMPLES = [
    Sample("py_func", _sin, [normal(3, 2)], torch_fn=torch.sin, second_order=False,
           forward=False),
]
