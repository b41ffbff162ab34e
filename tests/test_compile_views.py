"""Writes through views inside a compiled function (`jit.views`): staged as out-of-place ops,
with the values and gradients of eager mode and PyTorch. Every function is compiled with
fullgraph=True, so a fallback to eager mode fails the test; each is called twice (the trace's
first call, then the generated code)."""
import numpy as np
import pytest

import fluxgrad as fg

torch = pytest.importorskip("torch")


def _check(fn, *arrays):
    """fn compiled, on fresh tensors of `arrays` (requiring grad): its result and the gradient
    of the result's sum of squares equal PyTorch's."""
    t_args = [torch.tensor(a, requires_grad=True) for a in arrays]
    want = fn(torch, *t_args)
    want_grads = torch.autograd.grad((want * want).sum(), t_args)
    compiled = fg.compile(lambda *args: fn(fg, *args), fullgraph=True)
    for _ in range(2):
        f_args = [fg.tensor(a, requires_grad=True) for a in arrays]
        got = compiled(*f_args)
        np.testing.assert_allclose(got.detach().numpy(), want.detach().numpy(), rtol=1e-12)
        got_grads = fg.grad((got * got).sum(), f_args)
        for g, w in zip(got_grads, want_grads):
            np.testing.assert_allclose(g.numpy(), w.numpy(), rtol=1e-10, atol=1e-12)
    assert compiled.trace_count == 1


RNG = np.random.default_rng(0)
X = RNG.uniform(-1, 1, (4, 3))
V = RNG.uniform(-1, 1, (3,))


def test_augmented_assignment_into_a_column():
    def fn(m, x):
        y = x * 2
        y[:, 0] += 1
        return y.sin()
    _check(fn, X)


def test_index_write_through_a_flat_view_reaches_the_base():
    def fn(m, x, v):
        y = x * 2 + 1
        y.view(-1)[m.tensor([0, 4, 7])] = v
        return y * x
    _check(fn, X, V)


def test_masked_write_then_a_view_taken_before_it_reads_the_new_values():
    def fn(m, x):
        out = x * 3
        row = out[1]
        out[out > 0.5] = 0
        return row * out.sum()
    _check(fn, X)


def test_in_place_op_on_a_transpose():
    def fn(m, x):
        y = x + 1
        y.t().mul_(2)
        y.t()[0].add_(x[:, 1])
        return y
    _check(fn, X)


def test_write_through_a_view_of_a_view_and_a_sibling_view():
    def fn(m, x):
        y = x * x
        a, b = y[1:], y[:, 1]
        a[0].copy_(x[0] * 5)  # writes y[1], which b reads
        b.clamp_(-0.2, 0.3)
        return a * b.sum()
    _check(fn, X)


def test_a_reshape_that_copies_is_no_view():
    def fn(m, x):
        y = x * 1.0
        flat = y.t().reshape(-1)  # a copy: a write into it stays in it
        flat[0] = 7
        return y + flat.sum()
    _check(fn, X)


def test_is_contiguous_reads_the_layout_of_views():
    seen = []

    def fn(x):
        y = x + 1
        seen.append((y.is_contiguous(), y.t().is_contiguous(), y[:, 1:].is_contiguous(),
                     y[1:].is_contiguous()))
        return y
    fg.compile(fn, fullgraph=True)(fg.tensor(X))
    assert seen == [(True, False, False, True)]


def test_a_write_into_an_expanded_tensor_is_refused_as_in_eager_mode():
    def fn(x):
        y = (x * 2)[:1].expand(4, 3)
        y.add_(1)
        return y
    with pytest.raises(RuntimeError, match="share memory"):
        fn(fg.tensor(X))
    with pytest.raises(RuntimeError, match="share memory"):
        fg.compile(fn, fullgraph=True)(fg.tensor(X))


def test_a_write_through_a_view_of_an_argument_reaches_the_argument():
    def fn(x):
        x[:, 0] = 0  # eager mode changes the caller's tensor
        return x * 2
    compiled = fg.compile(fn, fullgraph=True)
    for _ in range(2):
        x = fg.tensor(X)
        out = compiled(x)
        assert (x.numpy()[:, 0] == 0).all() and np.allclose(x.numpy()[:, 1:], X[:, 1:])
        np.testing.assert_array_equal(out.numpy(), x.numpy() * 2)
    assert compiled.trace_count == 1


def test_a_training_step_writing_a_weight_column_under_no_grad():
    torch.manual_seed(0)
    t_model = torch.nn.Linear(3, 2).double()
    model = fg.nn.Linear(3, 2).double()
    with fg.no_grad():
        model.weight.copy_(fg.tensor(t_model.weight.detach().numpy()))
        model.bias.copy_(fg.tensor(t_model.bias.detach().numpy()))
    t_opt = torch.optim.SGD(t_model.parameters(), lr=0.1)
    opt = fg.optim.SGD(model.parameters(), lr=0.1)

    def step(m, model, opt, x):
        opt.zero_grad()
        loss = (model(x) ** 2).mean()
        loss.backward()
        opt.step()
        with m.no_grad():
            model.weight[:, 0].zero_()  # a pruned input
            model.weight.t()[1].clamp_(-0.1, 0.1)
        return loss

    compiled = fg.compile(lambda x: step(fg, model, opt, x), fullgraph=True)
    for k in range(3):
        x = RNG.uniform(-1, 1, (5, 3))
        want = step(torch, t_model, t_opt, torch.tensor(x))
        got = compiled(fg.tensor(x))
        np.testing.assert_allclose(got.item(), want.item(), rtol=1e-12)
        np.testing.assert_allclose(model.weight.detach().numpy(),
                                   t_model.weight.detach().numpy(), rtol=1e-12)
    assert compiled.trace_count == 2  # the first step's .grad are None, the later ones' not
