"""Disagreements with PyTorch found by the random module, transform and linalg programs
(tests/module_programs.py and its siblings), each reduced to the smallest case. Expected
numbers come from PyTorch."""
import numpy as np
import pytest

import fluxgrad as fg

torch = pytest.importorskip("torch")


def _grads(m, fn, w0):
    w = m.tensor(w0, requires_grad=True)
    return m.autograd.grad(fn(m, w), [w])[0].detach().numpy()


@pytest.mark.parametrize("case", ["no_grad", "detach", "data", "embedding_padding_idx"])
def test_the_gradient_of_a_compiled_call_skips_what_it_computes_without_a_graph(case):
    # (its backward was traced under the engine's no_grad, which then cut nothing: the
    # gradient flowed through detach(), .data and no_grad blocks, silently doubled)
    def fn(m, w):
        if case == "no_grad":
            with m.no_grad():
                y = w * 2
            return (y * w).sum()
        if case == "detach":
            return (w.detach() * w).sum()
        if case == "data":
            return (w.data * w).sum()
        out = m.nn.functional.embedding(m.tensor([[5, 1, 5, 2]]), w, padding_idx=5)
        return (out * out).sum()
    w0 = np.arange(18.0).reshape(6, 3) / 10
    want = _grads(torch, fn, w0)
    np.testing.assert_allclose(_grads(fg, fn, w0), want)
    np.testing.assert_allclose(_compiled_grads(fn, w0), want)


def _compiled_grads(fn, w0):
    w = fg.tensor(w0, requires_grad=True)
    return fg.grad(fg.compile(lambda w: fn(fg, w), fullgraph=True)(w), [w])[0].numpy()


@pytest.mark.parametrize("transform", ["jacfwd", "jacrev"])
def test_jacobian_of_a_jvp_whose_tangent_depends_on_the_primal(transform):
    # (jacfwd's batched tangents reached the inner jvp's tangent unbatched-looking, and its
    # result came back wrapped twice in the batch: a Jacobian with its rows mixed up)
    def fn(m):
        c = m.tensor([2.0, 3.0], dtype=m.float64)
        return getattr(m.func, transform)(
            lambda y: m.func.jvp(lambda a: c * a * a, (y,), (y * 0.5 + 1,))[1])
    y0 = np.array([0.5, 1.1])
    want = fn(torch)(torch.tensor(y0)).numpy()
    np.testing.assert_allclose(fn(fg)(fg.tensor(y0)).numpy(), want)


def test_one_cycle_lr_refuses_to_cycle_the_momentum_of_an_optimizer_without_one():
    # (it was accepted, and cycled nothing)
    for m in (torch, fg):
        w = m.nn.Parameter(m.zeros(2))
        opt = m.optim.Adagrad([w], lr=0.1)
        with pytest.raises(ValueError, match="cycle_momentum"):
            m.optim.lr_scheduler.OneCycleLR(opt, max_lr=0.5, total_steps=4)
        if m is fg:  # (torch has already set initial_lr when it refuses; fluxgrad changes nothing)
            assert "initial_lr" not in opt.param_groups[0]
        m.optim.lr_scheduler.OneCycleLR(opt, max_lr=0.5, total_steps=4, cycle_momentum=False)


INF, NAN = float("inf"), float("nan")


@pytest.mark.parametrize("values", [[1.0, INF, INF], [[1.0, 2.0], [3.0, -INF]], [[2.0, NAN, 0.5]],
                                    [3.0], [-INF, 1.0, 2.0, INF]])
@pytest.mark.parametrize("kwargs", [{}, {"dx": 0.5}, {"dim": 0}])
def test_trapezoid_with_infinities_is_pytorch_s(values, kwargs):
    # (pairwise means gave inf where PyTorch's sum-less-half-the-ends gives inf - inf = NaN)
    want = torch.trapezoid(torch.tensor(values, dtype=torch.float64), **kwargs).numpy()
    got = fg.trapezoid(fg.tensor(values, dtype=fg.float64), **kwargs).numpy()
    np.testing.assert_array_equal(got, want)


@pytest.mark.parametrize("interpolation", ["linear", "lower", "higher", "midpoint", "nearest"])
@pytest.mark.parametrize("q", [0.1, 0.5, 0.9])
def test_quantile_between_infinities_is_pytorch_s(interpolation, q):
    # (below + (above - below) * w: inf - inf gave NaN where PyTorch reads one neighbour, and
    # inf where its lerp from the nearer end gives NaN)
    values = [1.0, INF, INF, 2.0, -INF]
    want = torch.quantile(torch.tensor(values, dtype=torch.float64), q,
                          interpolation=interpolation).item()
    got = fg.quantile(fg.tensor(values, dtype=fg.float64), q, interpolation=interpolation).item()
    np.testing.assert_array_equal(got, want)


def test_kthvalue_over_an_empty_dim_is_an_index_error():
    with pytest.raises(IndexError):
        torch.kthvalue(torch.zeros(0, 3), 1, 0)
    with pytest.raises(IndexError, match="size 0"):
        fg.kthvalue(fg.zeros(0, 3), 1, 0)


@pytest.mark.parametrize("view", ["as_strided", "unfold"])
def test_a_compiled_write_through_an_as_strided_or_unfold_view_reaches_the_base(view):
    # (they checked the traced stand-in's layout, not eager mode's, and viewed a copy: the
    # write was lost, silently)
    def program(m, x):
        h = x * 1.0
        v = h.as_strided((2, 2), (1, 3), 1) if view == "as_strided" else h.unfold(1, 2, 2)
        v.add_(0.5)
        return h
    x0 = np.arange(9.0).reshape(3, 3) / 10
    want = program(torch, torch.tensor(x0)).numpy()
    got = fg.compile(lambda x: program(fg, x), fullgraph=True)(fg.tensor(x0))
    np.testing.assert_allclose(got.numpy(), want)


def test_a_static_program_built_under_no_grad_takes_no_gradient_through_it():
    # (static mode ignored no_grad: the gradient flowed through it, silently doubled here)
    from fluxgrad import static
    main = static.Program()
    fg.enable_static()
    try:
        with static.program_guard(main, static.Program()):
            w = static.data("w", shape=[3], dtype="float64")
            with fg.no_grad():
                y = w * 2
            grads = static.grad((y * w).sum(), [w])
    finally:
        fg.disable_static()
    w0 = np.arange(3.0)
    got, = static.Executor().run(main, feed={"w": w0}, fetch_list=grads)
    tw = torch.tensor(w0, requires_grad=True)
    with torch.no_grad():
        ty = tw * 2
    np.testing.assert_allclose(got, torch.autograd.grad((ty * tw).sum(), tw)[0].numpy())
