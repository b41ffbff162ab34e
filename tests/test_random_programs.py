"""Random programs built from many ops, run in fluxgrad and PyTorch: values and gradients agree.

Each program draws a chain of unary, binary (with broadcasting), reduction and shape steps
on float64 inputs, so the engine's gradient summation, unbroadcasting and rule composition
are exercised together, not only op by op. The draws are fixed (`derandomize`, here and in the
compiled and static random-program tests): a program can amplify a last-place rounding
difference between NumPy and PyTorch past any fixed tolerance (a product of three numbers
rounded apart by 1 ulp, then sin of 4.6e5: 3.6e-9 relative), which a fresh draw in CI would
report as a failure without a bug.
"""
import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

import fluxgrad as fg

torch = pytest.importorskip("torch")

UNARY = [
    lambda m, x: m.tanh(x),
    lambda m, x: m.sin(x) * x,
    lambda m, x: m.exp(-x * x),
    lambda m, x: m.sigmoid(x),
    lambda m, x: m.log(1 + x * x),
    lambda m, x: m.sqrt(x * x + 1),
    lambda m, x: m.abs(x) + 0.5 * x,
    lambda m, x: x.relu() * 2 - x,
    lambda m, x: (x ** 3) / 3,
    lambda m, x: m.softmax(x, -1) if x.ndim else x,
    lambda m, x: m.maximum(x, x * 0.3),
    lambda m, x: m.where(x > 0, x, m.exp(x) - 1),
]
BINARY = [
    lambda m, x, y: x + y,
    lambda m, x, y: x * y,
    lambda m, x, y: x - 2 * y,
    lambda m, x, y: x / (1 + y * y),
    lambda m, x, y: m.atan2(x, y * y + 1),
]
REDUCE = [
    lambda m, x: x.sum(-1, keepdim=True) if x.ndim else x,
    lambda m, x: x.mean() + x,
    lambda m, x: m.logsumexp(x, -1) if x.ndim else x,
    lambda m, x: x.amax(-1) if x.ndim else x,
    lambda m, x: x.prod(-1) if x.ndim else x,
    lambda m, x: x.flip(-1) if x.ndim else x,
    lambda m, x: (x.T @ x) if x.ndim == 2 else x,
]

shapes = st.sampled_from([(), (3,), (2, 3), (1, 3), (4, 1)])


def chain(m, steps, x, y):
    """The program of `steps` on x (and y) with the ops of `m` (fluxgrad or torch)."""
    h = x
    for kind, k in steps:
        if kind == "u":
            h = UNARY[k % len(UNARY)](m, h)
        elif kind == "b":
            h = BINARY[k % len(BINARY)](m, h, y)
        else:
            h = REDUCE[k % len(REDUCE)](m, h)
    return (h * h).sum() + h.sum()


@settings(max_examples=60, deadline=None, derandomize=True)
@given(shape_x=shapes, shape_y=shapes,
       steps=st.lists(st.tuples(st.sampled_from(["u", "b", "r"]), st.integers(0, 99)),
                      min_size=1, max_size=8),
       seed=st.integers(0, 2 ** 16))
def test_random_program_matches_torch(shape_x, shape_y, steps, seed):
    rng = np.random.default_rng(seed)
    x0, y0 = rng.uniform(-1.5, 1.5, shape_x), rng.uniform(-1.5, 1.5, shape_y)

    def program(m, x, y):
        return chain(m, steps, x, y)

    fx = fg.tensor(x0, requires_grad=True)
    fy = fg.tensor(y0, requires_grad=True)
    tx = torch.tensor(x0, requires_grad=True)
    ty = torch.tensor(y0, requires_grad=True)
    try:
        ours = program(fg, fx, fy)
    except (ValueError, RuntimeError):
        with pytest.raises((ValueError, RuntimeError)):
            program(torch, tx, ty)
        return
    theirs = program(torch, tx, ty)
    np.testing.assert_allclose(ours.item(), theirs.item(), rtol=1e-10, atol=1e-12)
    g_ours = fg.grad(ours, [fx, fy], allow_unused=True)
    g_theirs = torch.autograd.grad(theirs, [tx, ty], allow_unused=True)
    for a, b in zip(g_ours, g_theirs):
        if b is None:
            assert a is None or np.all(a.numpy() == 0)
        else:
            np.testing.assert_allclose(a.numpy(), b.numpy(), rtol=1e-8, atol=1e-10)
