"""Random networks written as PaddlePaddle static scripts (`paddle` -> `fluxgrad`):
`static.data` with an unknown batch size, a stack of `static.nn.fc` layers with random
widths and activations, a random loss, `append_backward` for the gradients and an optimizer's
`minimize` (SGD, Momentum, Adam), run for several steps on batches of different sizes. The
same network is trained eagerly in PyTorch from the same initial weights: the losses, the
gradients of every step and the final parameters agree."""
import numpy as np
import pytest

import fluxgrad as paddle
import fluxgrad.nn.functional as F
from fluxgrad import static

torch = pytest.importorskip("torch")

ACTIVATIONS = [None, "relu", "tanh", "sigmoid"]
OPTIMIZERS = [
    ("SGD", dict(learning_rate=0.1), lambda ps: torch.optim.SGD(ps, lr=0.1)),
    ("Momentum", dict(learning_rate=0.05, momentum=0.9),
     lambda ps: torch.optim.SGD(ps, lr=0.05, momentum=0.9)),
    ("Adam", dict(learning_rate=0.01), lambda ps: torch.optim.Adam(ps, lr=0.01)),
]
LOSSES = ["mse", "cross_entropy", "l1"]
BATCHES = (4, 7, 1, 5)  # one feed per step: the batch size is unknown to the program


def _setup(seed):
    rng = np.random.default_rng(seed)
    widths = [int(rng.integers(2, 6))] + [int(rng.integers(2, 7))
                                          for _ in range(int(rng.integers(1, 4)))]
    classes = int(rng.integers(2, 5))
    acts = [ACTIVATIONS[rng.integers(len(ACTIVATIONS))] for _ in widths[1:]]
    loss = LOSSES[rng.integers(len(LOSSES))]
    optimizer = OPTIMIZERS[rng.integers(len(OPTIMIZERS))]
    batches = []
    for n in BATCHES:
        x = rng.standard_normal((n, widths[0]))
        y = rng.integers(0, classes, n) if loss == "cross_entropy" else \
            rng.standard_normal((n, classes))
        batches.append((x, y))
    return widths, classes, acts, loss, optimizer, batches


def _static_training(seed):
    """The PaddlePaddle-style script: (losses, gradients per step, initial and final weights
    as [(w, b)] per layer)."""
    widths, classes, acts, loss_name, (opt_name, options, _), batches = _setup(seed)
    main, startup = static.Program(), static.Program()
    paddle.enable_static()
    try:
        with static.program_guard(main, startup):
            x = static.data("x", [None, widths[0]], "float64")
            if loss_name == "cross_entropy":
                label = static.data("label", [None], "int64")
            else:
                label = static.data("label", [None, classes], "float64")
            h = x
            for k, (width, act) in enumerate(zip(widths[1:], acts)):
                h = static.nn.fc(h, width, activation=act, name=f"fc{k}")
            logits = static.nn.fc(h, classes, name="head")
            if loss_name == "cross_entropy":
                loss = F.cross_entropy(logits, label)
            elif loss_name == "mse":
                loss = F.mse_loss(logits, label)
            else:
                loss = F.l1_loss(logits, label)
            grads = static.append_backward(loss)
            getattr(paddle.optimizer, opt_name)(**options).minimize(loss)
    finally:
        paddle.disable_static()
    names = [f"fc{k}" for k in range(len(widths) - 1)] + ["head"]
    with static.scope_guard(static.Scope()):
        scope = static.global_scope()
        exe = static.Executor(static.cpu_places()[0])
        exe.run(startup)

        def weights():
            return [tuple(scope.find_var(f"{n}.{kind}_0").get_tensor().copy()
                          for kind in "wb") for n in names]
        initial = weights()
        losses, step_grads = [], []
        for a, y in batches:
            got = exe.run(main, feed={"x": a, "label": y},
                          fetch_list=[loss] + [g for _, g in grads])
            losses.append(float(got[0]))
            step_grads.append({p.name: g for (p, _), g in zip(grads, got[1:])})
        return losses, step_grads, initial, weights()


def _torch_training(seed, initial):
    widths, classes, acts, loss_name, (_, _, make_opt), batches = _setup(seed)
    layers = []
    for (w, b) in initial:
        layer = torch.nn.Linear(*w.shape).double()
        with torch.no_grad():
            layer.weight.copy_(torch.tensor(w.T))
            layer.bias.copy_(torch.tensor(b))
        layers.append(layer)
    params = [p for layer in layers for p in (layer.weight, layer.bias)]
    opt = make_opt(params)
    losses, step_grads = [], []
    for a, y in batches:
        h = torch.tensor(a)
        for layer, act in zip(layers[:-1], acts):
            h = layer(h)
            h = h if act is None else getattr(torch, act)(h)
        logits = layers[-1](h)
        if loss_name == "cross_entropy":
            loss = torch.nn.functional.cross_entropy(logits, torch.tensor(y))
        elif loss_name == "mse":
            loss = torch.nn.functional.mse_loss(logits, torch.tensor(y))
        else:
            loss = torch.nn.functional.l1_loss(logits, torch.tensor(y))
        opt.zero_grad()
        loss.backward()
        losses.append(loss.item())
        step_grads.append([(l.weight.grad.numpy().T.copy(), l.bias.grad.numpy().copy())
                           for l in layers])
        opt.step()
    final = [(l.weight.detach().numpy().T, l.bias.detach().numpy()) for l in layers]
    return losses, step_grads, final


@pytest.mark.parametrize("seed", range(40))
def test_a_random_static_program_trains_as_pytorch_does(seed):
    losses, step_grads, initial, final = _static_training(seed)
    want_losses, want_grads, want_final = _torch_training(seed, initial)
    np.testing.assert_allclose(losses, want_losses, rtol=1e-9, atol=1e-12)
    widths = _setup(seed)[0]
    names = [f"fc{k}" for k in range(len(widths) - 1)] + ["head"]
    for got, want in zip(step_grads, want_grads):
        for name, (w, b) in zip(names, want):
            np.testing.assert_allclose(got[f"{name}.w_0"], w, rtol=1e-8, atol=1e-12)
            np.testing.assert_allclose(got[f"{name}.b_0"], b, rtol=1e-8, atol=1e-12)
    for (w, b), (want_w, want_b) in zip(final, want_final):
        np.testing.assert_allclose(w, want_w, rtol=1e-8, atol=1e-12)
        np.testing.assert_allclose(b, want_b, rtol=1e-8, atol=1e-12)
