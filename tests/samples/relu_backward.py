"""Samples for relu's backward op (fluxgrad/ops/activation.py: relu_backward), called directly
on a cotangent and relu's output, against PyTorch's threshold_backward: its own rules (relu's
second and third derivatives) are checked, not only through relu's. Inputs stay away from 0."""
import fluxgrad.ops.activation as act

from . import Sample, away_from, normal


def _torch(g, x):
    import torch
    return torch.ops.aten.threshold_backward(g, torch.relu(x), 0)


SAMPLES = [
    Sample("relu_backward", lambda g, x: act.relu_backward(g, act.relu(x)),
           [normal(3, 4, seed=1), away_from(normal(3, 4, seed=2), [0.0])], _torch),
    Sample("relu_backward", lambda g, x: act.relu_backward(g, act.relu(x)),
           [normal(2, 1, 3, seed=3), away_from(normal(2, 1, 3, seed=4), [0.0])], _torch),
    Sample("relu_backward", lambda g, x: act.relu_backward(g, act.relu(x)),
           [normal(4, seed=5), away_from(normal(4, seed=6), [0.0])], _torch),
]
