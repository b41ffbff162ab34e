"""Samples for the fused cross-entropy and its cotangent (fluxgrad/ops/losses.py), through
F.cross_entropy and F.nll_loss: every reduction, class weights, ignore_index, label smoothing,
class axes other than the last (K-dimensional targets), one example of shape [C], and large
logits. The cotangent op is also called directly, so that its own rules are checked (third
derivatives of the loss)."""
import numpy as np

import fluxgrad as fg
import fluxgrad.nn.functional as F
from fluxgrad.ops.losses import cross_entropy_backward

from . import Sample, normal, rng

TARGETS = np.array([2, 0, -100, 3, 1])  # -100 is ignore_index: that example doesn't count
WEIGHT = rng(5).uniform(0.5, 2.0, 4)
SPATIAL = rng(6).integers(0, 3, (2, 4, 2))  # targets of a [2, 3, 4, 2] input, classes on axis 1
LARGE = np.array([[1000.0, 999.0, -1000.0, 998.5], [-800.0, -801.0, -799.5, -802.0]])


def _ours(name, targets, weight=None, **options):
    def fn(x):
        w = None if weight is None else fg.tensor(weight)
        return getattr(F, name)(x, fg.tensor(targets), weight=w, **options)
    return fn


def _torch(name, targets, weight=None, **options):
    def fn(x):
        import torch
        w = None if weight is None else torch.tensor(weight)
        return getattr(torch.nn.functional, name)(x, torch.tensor(targets), weight=w, **options)
    return fn


def _loss(name, x, targets, weight=None, **options):
    # nll_loss is linear in its input: its gradient is constant, with no second derivative
    return Sample("cross_entropy", _ours(name, targets, weight, **options), [x],
                  _torch(name, targets, weight, **options),
                  second_order=name == "cross_entropy")


def _cotangent(out_bar, x, targets, weight=None, **options):
    """The cotangent op called directly on (out_bar, x), against PyTorch's gradient made
    with create_graph, so that out_bar's and x's derivatives of it are both checked."""
    params = dict(dict(axis=1, ignore_index=-100, reduction="mean", smoothing=0.0, logits=True,
                       batch_dims=0), **options)

    def fn(g, x):
        w = 1.0 if weight is None else fg.tensor(weight)
        return cross_entropy_backward(g, x, fg.tensor(targets), w, **params)

    def torch_fn(g, x):
        import torch
        if not x.requires_grad:  # (the test of values alone)
            x = x.detach().requires_grad_()
        w = None if weight is None else torch.tensor(weight)
        f = torch.nn.functional.cross_entropy if params["logits"] else \
            torch.nn.functional.nll_loss
        extra = dict(label_smoothing=params["smoothing"]) if params["logits"] else {}
        loss = f(x, torch.tensor(targets), weight=w, reduction=params["reduction"], **extra)
        return torch.autograd.grad(loss, x, g, create_graph=True)[0]
    return Sample("cross_entropy_backward", fn, [out_bar, x], torch_fn,
                  second_order=params["logits"])


X = normal(5, 4, seed=1)
SAMPLES = [
    _loss("cross_entropy", X, TARGETS),
    _loss("cross_entropy", X, TARGETS, reduction="sum"),
    _loss("cross_entropy", X, TARGETS, reduction="none"),
    _loss("cross_entropy", X, TARGETS, WEIGHT),
    _loss("cross_entropy", X, TARGETS, WEIGHT, label_smoothing=0.3),
    _loss("cross_entropy", X, TARGETS, label_smoothing=0.3, reduction="none"),
    _loss("cross_entropy", X, np.array([2, 0, 1, 3, 1]), ignore_index=1),
    _loss("cross_entropy", normal(2, 3, 4, 2, seed=2), SPATIAL),
    _loss("cross_entropy", normal(2, 3, 4, 2, seed=3), SPATIAL, WEIGHT[:3], reduction="none"),
    _loss("cross_entropy", normal(2, 3, 4, 2, seed=4), SPATIAL, label_smoothing=0.1),
    _loss("cross_entropy", normal(4, seed=5), np.array(1)),
    _loss("cross_entropy", LARGE, np.array([0, 2])),
    _loss("nll_loss", X, TARGETS),
    _loss("nll_loss", X, TARGETS, WEIGHT, reduction="sum"),
    _loss("nll_loss", normal(2, 3, 4, 2, seed=6), SPATIAL, reduction="none"),
    _cotangent(np.array(0.7), X, TARGETS),
    _cotangent(normal(5, seed=7), X, TARGETS, WEIGHT, reduction="none", smoothing=0.2),
    _cotangent(np.array(1.3), X, TARGETS, WEIGHT, reduction="sum", logits=False),
    _cotangent(np.array(0.4), normal(2, 3, 4, 2, seed=8), SPATIAL, smoothing=0.1),
]
