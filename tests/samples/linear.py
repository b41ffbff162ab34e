"""Samples for the linear layer's primitive (fluxgrad/ops/linear.py) through F.linear, against
torch's: a batch of rows, leading batch dimensions, one example of shape [in], and an empty
batch."""
import fluxgrad.nn.functional as F

from . import Sample, normal


def _torch(x, w, b):
    import torch
    return torch.nn.functional.linear(x, w, b)


SAMPLES = [
    Sample("linear", F.linear, [normal(5, 4), normal(3, 4, seed=1), normal(3, seed=2)], _torch),
    Sample("linear", F.linear, [normal(2, 3, 4), normal(5, 4, seed=1), normal(5, seed=2)],
           _torch),
    Sample("linear", F.linear, [normal(4), normal(3, 4, seed=1), normal(3, seed=2)], _torch),
    Sample("linear", F.linear, [normal(0, 4), normal(3, 4, seed=1), normal(3, seed=2)], _torch),
]
