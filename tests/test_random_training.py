"""Random small networks trained for a few steps with a random optimizer, in fluxgrad (eager and
compiled) and in PyTorch from the same initial weights: the losses and the final parameters
must agree. Layers: Linear, activations, LayerNorm, BatchNorm1d (train mode); optimizers: SGD
(momentum, nesterov, weight decay), Adam, AdamW (amsgrad), RMSprop, Adagrad; losses: cross
entropy, MSE, smooth L1."""
import numpy as np
import pytest

import fluxgrad as fg

torch = pytest.importorskip("torch")

ACTIVATIONS = ["ReLU", "Tanh", "GELU", "SiLU", "ELU", "Sigmoid", "LeakyReLU", "Softplus"]
OPTIMIZERS = [
    ("SGD", dict(lr=0.1)),
    ("SGD", dict(lr=0.05, momentum=0.9, nesterov=True, weight_decay=1e-3)),
    ("Adam", dict(lr=0.01)),
    ("AdamW", dict(lr=0.01, weight_decay=0.1, amsgrad=True)),
    ("RMSprop", dict(lr=0.01, momentum=0.5)),
    # (from an accumulator: Adagrad's first step is the sign of each gradient, which turns a
    # gradient of rounding size into a step of 0.1)
    ("Adagrad", dict(lr=0.1, initial_accumulator_value=0.1)),
]


def _layers(lib, rng):
    nn = lib.nn
    widths = [5] + [int(rng.integers(2, 7)) for _ in range(int(rng.integers(1, 4)))] + [3]
    layers = []
    for k, (a, b) in enumerate(zip(widths, widths[1:])):
        norm = rng.integers(4) if k < len(widths) - 2 else 0
        # no bias before batch norm (as people write it): its gradient would be rounding noise,
        # which the optimizers that divide by a gradient's size (Adam, RMSprop) amplify
        layers.append(nn.Linear(a, b, bias=norm != 2))
        if norm == 1:
            layers.append(nn.LayerNorm(b))
        elif norm == 2:
            layers.append(nn.BatchNorm1d(b))
        if k < len(widths) - 2:
            layers.append(getattr(nn, ACTIVATIONS[rng.integers(len(ACTIVATIONS))])())
    return nn.Sequential(*layers)


def _setup(lib, seed):
    rng = np.random.default_rng(seed)
    model = _layers(lib, rng)
    name, options = OPTIMIZERS[rng.integers(len(OPTIMIZERS))]
    loss_name = ["cross_entropy", "mse_loss", "smooth_l1_loss"][rng.integers(3)]
    x = rng.standard_normal((8, 5))
    target = rng.integers(0, 3, 8) if loss_name == "cross_entropy" else rng.standard_normal((8, 3))
    return model, name, options, loss_name, x, target


def _train(lib, seed, weights, compiled=False, steps=4):
    model, name, options, loss_name, x, target = _setup(lib, seed)
    model = model.double()
    with lib.no_grad():
        for p, w in zip(model.parameters(), weights):
            p.copy_(lib.tensor(w))
    opt = getattr(lib.optim, name)(model.parameters(), **options)
    x, target = lib.tensor(x), lib.tensor(target)
    loss_fn = getattr(lib.nn.functional, loss_name)

    def step(x, target):
        opt.zero_grad()
        loss = loss_fn(model(x), target)
        loss.backward()
        opt.step()
        return loss
    if compiled:
        step = lib.compile(step, fullgraph=True)
    losses = [step(x, target).item() for _ in range(steps)]
    return losses, [p.detach().numpy().copy() for p in model.parameters()]


@pytest.mark.parametrize("seed", range(100))
def test_random_training_matches_torch_eager_and_compiled(seed):
    init, *_ = _setup(torch, seed)
    weights = [p.detach().double().numpy().copy() for p in init.parameters()]
    want_losses, want_params = _train(torch, seed, weights)
    for compiled in (False, True):
        losses, params = _train(fg, seed, weights, compiled)
        np.testing.assert_allclose(losses, want_losses, rtol=1e-9, atol=1e-12)
        for got, want in zip(params, want_params):
            # (Adam-like steps divide by a gradient's size: near-zero gradients after batch norm
            # turn last-bit differences into 1e-7)
            np.testing.assert_allclose(got, want, rtol=1e-7, atol=1e-7)
