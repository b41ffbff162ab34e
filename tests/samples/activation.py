"""Samples for the activation functions (fluxgrad/ops/activation.py).

Inputs stay away from kinks (0 for the ReLUs, the bounds of hardtanh, +-3 for
hardsigmoid and hardswish, beta * x == threshold for softplus), cover both sides of
each, and reach the tails (sigmoid and softplus at +-30, gelu down to -12). gelu gets
an array of more than 512 elements too, where erfc takes its vectorised path.
"""
import numpy as np

import fluxgrad.ops.activation as act

from . import Sample, away_from, normal, rng

SHAPES = [(3, 4), (), (1,), (2, 1, 3)]


def _f(name, **kwargs):
    def fn(x):
        import torch.nn.functional as F
        return getattr(F, name)(x, **kwargs)
    return fn


def _kinked(*shape, kinks=(0.0,), scale=2.0, seed=0):
    return away_from(normal(*shape, seed=seed) * scale, kinks, 0.1)


TAILS = np.array([-30.0, -12.0, -5.0, -0.5, 0.5, 5.0, 12.0, 30.0])


def _samples():
    samples = []
    for shape in SHAPES:
        x = normal(*shape) * 2
        xk = _kinked(*shape)
        samples += [
            Sample("sigmoid", act.sigmoid, [x], _f("sigmoid")),
            Sample("relu", act.relu, [xk], _f("relu")),
            Sample("leaky_relu", act.leaky_relu, [xk], _f("leaky_relu")),
            Sample("elu", act.elu, [xk], _f("elu")),
            Sample("gelu", act.gelu, [x], _f("gelu")),
            Sample("gelu", lambda x: act.gelu(x, approximate="tanh"), [x],
                   _f("gelu", approximate="tanh")),
            Sample("silu", act.silu, [x], _f("silu")),
            Sample("softplus", act.softplus, [x], _f("softplus")),
            Sample("hardtanh", act.hardtanh, [_kinked(*shape, kinks=(-1, 1))], _f("hardtanh")),
        ]
    x = normal(3, 4, seed=1) * 3
    xk = _kinked(3, 4, seed=1)
    samples += [
        Sample("sigmoid", lambda x: x.sigmoid(), [TAILS], lambda x: x.sigmoid()),
        Sample("sigmoid", act.sigmoid, [normal(24, 25) * 8], _f("sigmoid")),
        Sample("relu", lambda x: x.relu(), [xk], lambda x: x.relu()),
        Sample("relu", lambda x: act.relu(x) * x, [xk], lambda x: x.relu() * x),
        Sample("leaky_relu", lambda x: act.leaky_relu(x, 0.2), [xk],
               _f("leaky_relu", negative_slope=0.2)),
        Sample("leaky_relu", lambda x: act.leaky_relu(x, -1.5) ** 2, [xk],
               lambda x: _f("leaky_relu", negative_slope=-1.5)(x) ** 2),
        Sample("elu", lambda x: act.elu(x, alpha=0.5), [xk], _f("elu", alpha=0.5)),
        Sample("elu", act.selu, [xk], _f("selu")),
        Sample("elu", lambda x: act.celu(x, alpha=2.0), [xk], _f("celu", alpha=2.0)),
        Sample("elu", act.celu, [xk], _f("celu")),
        Sample("gelu", act.gelu, [TAILS], _f("gelu")),
        Sample("gelu", act.gelu, [normal(24, 25, seed=2) * 3], _f("gelu")),
        Sample("gelu", lambda x: act.gelu(x, approximate=True), [TAILS],
               _f("gelu", approximate="tanh")),
        Sample("silu", act.silu, [TAILS], _f("silu")),
        Sample("softplus", act.softplus, [TAILS], _f("softplus")),
        Sample("softplus", lambda x: act.softplus(x, beta=2.0, threshold=5.0),
               [away_from(x, [2.5], 0.1)], _f("softplus", beta=2.0, threshold=5.0)),
        Sample("softplus", lambda x: act.softplus(x, beta=0.5), [x], _f("softplus", beta=0.5)),
        Sample("softplus", act.mish, [x], _f("mish")),
        Sample("softplus", act.mish, [TAILS], _f("mish")),
        Sample("hardtanh", lambda x: act.hardtanh(x, -0.5, 2.0),
               [_kinked(3, 4, kinks=(-0.5, 2.0))], _f("hardtanh", min_val=-0.5, max_val=2.0)),
        Sample("hardtanh", act.relu6, [_kinked(3, 4, kinks=(0, 6), scale=5)], _f("relu6")),
        # PyTorch has no second derivative of hardsigmoid
        Sample("hardtanh", act.hardsigmoid, [_kinked(3, 4, kinks=(-3, 3), scale=3)],
               _f("hardsigmoid"), second_order=False),
        Sample("hardtanh", act.hardsigmoid, [_kinked(3, 4, kinks=(-3, 3), scale=3)]),
        Sample("hardtanh", act.hardswish, [_kinked(3, 4, kinks=(-3, 3), scale=3)],
               _f("hardswish")),
        Sample("abs", act.softsign, [_kinked(3, 4)], _f("softsign")),
        Sample("tanh", act.tanhshrink, [x], _f("tanhshrink")),
        Sample("log", act.logit, [rng(3).uniform(0.05, 0.95, (3, 4))], lambda x: x.logit()),
        Sample("clamp", lambda x: x.logit(eps=0.1),
               [away_from(rng(3).uniform(0.01, 0.99, (3, 4)), [0.1, 0.9], 0.03)],
               lambda x: x.logit(eps=0.1)),
        Sample("relu", lambda x: (x * 1).relu_(), [xk], lambda x: (x * 1).relu_()),
        Sample("sigmoid", lambda x: (x * 1).sigmoid_(), [x], lambda x: (x * 1).sigmoid_()),
    ]
    return samples


SAMPLES = _samples()
