"""Random sequences of views and in-place writes on a non-leaf tensor, against PyTorch: the
values of the base and of every view, and the gradient of the leaf, in eager mode and compiled
(`fluxgrad.compile` stages the writes through views as out-of-place ops: `jit.views`).

A write through a view changes the base and every other view of it, and rewrites their
history, so the gradient flows through the written values to the right places; a view taken
before the write reads the written values. Each step takes a view of the base (or of an
earlier view) and writes into it, or writes into the base itself.
"""
import numpy as np
import pytest

import fluxgrad as fg

torch = pytest.importorskip("torch")

VIEWS = [
    lambda t: t[1:],
    lambda t: t[:, 0],
    lambda t: t.t(),
    lambda t: t[::2],
    lambda t: t.narrow(0, 1, 2),
    lambda t: t.select(1, 2),
    lambda t: t.transpose(0, 1)[1],
    lambda t: t.unsqueeze(0),
    lambda t: t.diagonal(),
    lambda t: t[1:3, 1:],
    lambda t: t.view(12)[2:8] if t.is_contiguous() else t[0],
    lambda t: t[..., :2],
]

WRITES = [
    lambda m, v, w: v.add_(w.sum() * 0.1 + 1.0),
    lambda m, v, w: v.mul_(w.mean() + 2.0),
    lambda m, v, w: v.copy_(m.sin(w.sum()) * m.ones_like(v)),
    lambda m, v, w: v.fill_(0.5),
    lambda m, v, w: v.clamp_(-0.3, 0.4),
    lambda m, v, w: v.sigmoid_(),
    lambda m, v, w: v.zero_(),
    lambda m, v, w: v.__setitem__(..., v * 2 - w.sum()),
    lambda m, v, w: v.masked_fill_(v > 0, 1.5),
    lambda m, v, w: v.tanh_(),
    lambda m, v, w: v.sub_(v * v),
    lambda m, v, w: v.div_(v.abs() + 1.0),
]


def _program(seed):
    rng = np.random.default_rng(seed)
    steps = []
    for _ in range(int(rng.integers(1, 5))):
        depth = int(rng.integers(0, 3))  # 0: write into the base, 1 / 2: a view (of a view)
        steps.append(([int(rng.integers(len(VIEWS))) for _ in range(depth)],
                      int(rng.integers(len(WRITES)))))
    data = rng.uniform(-1.5, 1.5, (4, 3))
    weights = rng.uniform(-1, 1, (4, 3))
    return steps, data, weights


def _run(m, steps, a, weights):
    base = a * 1.0
    seen = []
    for chain, write in steps:
        v = base
        for k in chain:
            v = VIEWS[k](v)
        seen.append(v)
        WRITES[write](m, v, a)
    total = (base * m.tensor(weights)).sum()
    for v in seen:  # views taken earlier read the later writes
        total = total + (v * v).sum()
    return total, base


def _finite_differences(steps, data, weights, eps=1e-6):
    """The gradient of the program's value by central differences (PyTorch's forward)."""
    grad = np.zeros_like(data)
    for i in np.ndindex(data.shape):
        bump = np.zeros_like(data)
        bump[i] = eps
        up, down = (_run(torch, steps, torch.tensor(data + d), weights)[0].item()
                    for d in (bump, -bump))
        grad[i] = (up - down) / (2 * eps)
    return grad


@pytest.mark.parametrize("seed", range(300))
def test_views_and_in_place_writes_match_torch(seed):
    steps, data, weights = _program(seed)
    ta = torch.tensor(data, requires_grad=True)
    try:
        want, t_base = _run(torch, steps, ta, weights)
    except (RuntimeError, IndexError) as err:  # a view that doesn't apply
        with pytest.raises(type(err)):
            _run(fg, steps, fg.tensor(data, requires_grad=True), weights)
        return
    try:
        want_grad, = torch.autograd.grad(want, ta)
    except RuntimeError:  # PyTorch's backward needs a value that was overwritten
        want_grad = None
    fa = fg.tensor(data, requires_grad=True)
    got, f_base = _run(fg, steps, fa, weights)
    np.testing.assert_allclose(f_base.detach().numpy(), t_base.detach().numpy(), rtol=1e-12)
    np.testing.assert_allclose(got.item(), want.item(), rtol=1e-12)
    try:
        got_grad, = fg.grad(got, fa)
    except RuntimeError:
        assert want_grad is None  # both refuse
        got_grad = None
    if want_grad is None:  # the true gradient, where a backward pass refused (or to check one)
        want_grad, tol = _finite_differences(steps, data, weights), dict(rtol=1e-6, atol=1e-6)
    else:
        want_grad, tol = want_grad.numpy(), dict(rtol=1e-10, atol=1e-12)
    if got_grad is not None:
        np.testing.assert_allclose(got_grad.numpy(), want_grad, **tol)

    # staged (fullgraph: a fallback to eager mode fails): the base's values, the result and
    # the gradient (a program keeps every value its gradient reads), from the trace's first
    # call and from the generated code's
    compiled = fg.compile(lambda a: _run(fg, steps, a, weights), fullgraph=True)
    for _ in range(2):
        fa = fg.tensor(data, requires_grad=True)
        got, f_base = compiled(fa)
        np.testing.assert_allclose(f_base.detach().numpy(), t_base.detach().numpy(), rtol=1e-12)
        np.testing.assert_allclose(got.item(), want.item(), rtol=1e-12)
        got_grad, = fg.grad(got, fa)
        np.testing.assert_allclose(got_grad.numpy(), want_grad, **tol)
