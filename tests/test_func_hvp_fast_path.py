"""`func.hvp`'s untaped path (nothing outside differentiates its result: the tangents'
computations record no graph) against the general path, jvp(grad(f)), and torch; and the
cases where it must not be taken (primals or tangents requiring grad, an open transform)."""
import gc

import numpy as np
import pytest
import torch

import fluxgrad as fg
from fluxgrad import func
from fluxgrad._core.forward_mode import state as forward_state
from fluxgrad._core.grad_mode import is_grad_enabled

rng = np.random.default_rng(11)
W = rng.standard_normal((6, 6)) / 2


def tanh_sq(lib, x):
    return (lib.tanh(lib.tensor(W) @ x) ** 2).sum()


def two_args(lib, x, y):
    return (x.sin() * y * y).sum() + (x * x).sum() * y.exp().sum()


CASES = {
    "tanh_sq": (tanh_sq, 1),
    "two_args": (two_args, 2),
    "linear": (lambda lib, x: (x * 3.0).sum(), 1),  # H = 0: no tangent reaches the gradient
    "unused_second": (lambda lib, x, y: (x ** 3).sum(), 2),
}


def _arrays(n):
    return ([rng.standard_normal(6) for _ in range(n)], [rng.standard_normal(6) for _ in range(n)])


def _torch_hvp(fn, xs, vs):
    txs = [torch.tensor(x, requires_grad=True) for x in xs]
    gs = torch.autograd.grad(fn(torch, *txs), txs, create_graph=True, allow_unused=True)
    dot = sum((g * torch.tensor(v)).sum() for g, v in zip(gs, vs) if g is not None)
    if not getattr(dot, "requires_grad", False):
        return [np.zeros(6) for _ in xs]
    hv = torch.autograd.grad(dot, txs, allow_unused=True)
    return [np.zeros(6) if h is None else h.numpy() for h in hv]


@pytest.fixture
def untaped_calls(monkeypatch):
    calls = []
    original = func._hvp_untaped

    def spy(*args):
        calls.append(args)
        return original(*args)
    monkeypatch.setattr(func, "_hvp_untaped", spy)
    return calls


@pytest.mark.parametrize("name", CASES)
def test_untaped_hvp_matches_general_path_and_torch(name, untaped_calls):
    fn, n = CASES[name]
    xs, vs = _arrays(n)
    primals, tangents = tuple(map(fg.tensor, xs)), tuple(map(fg.tensor, vs))
    value, hv = func.hvp(lambda *a: fn(fg, *a), primals, tangents)
    assert len(untaped_calls) == 1
    hv = (hv,) if n == 1 else hv
    _, general = func.jvp(func.grad(lambda *a: fn(fg, *a), argnums=tuple(range(n))),
                          primals, tangents)
    for got, want, expected in zip(hv, general, _torch_hvp(fn, xs, vs)):
        assert not got.requires_grad
        np.testing.assert_allclose(got.numpy(), want.numpy(), rtol=1e-13, atol=1e-13)
        np.testing.assert_allclose(got.numpy(), expected, rtol=1e-12, atol=1e-12)
    assert value.item() == pytest.approx(fn(torch, *map(torch.tensor, xs)).item(), rel=1e-13)
    assert not value.requires_grad and fg.autograd.forward_ad.unpack_dual(value).tangent is None


def test_hvp_of_primals_requiring_grad_is_differentiable(untaped_calls):
    x_np, v_np, u_np = (rng.standard_normal(6) for _ in range(3))
    x = fg.tensor(x_np, requires_grad=True)
    _, hv = func.hvp(lambda t: tanh_sq(fg, t), (x,), (fg.tensor(v_np),))
    assert untaped_calls == []
    third, = fg.autograd.grad((hv * fg.tensor(u_np)).sum(), x)
    tx = torch.tensor(x_np, requires_grad=True)
    g, = torch.autograd.grad(tanh_sq(torch, tx), tx, create_graph=True)
    thv, = torch.autograd.grad((g * torch.tensor(v_np)).sum(), tx, create_graph=True)
    want, = torch.autograd.grad((thv * torch.tensor(u_np)).sum(), tx)
    np.testing.assert_allclose(third.numpy(), want.numpy(), rtol=1e-11, atol=1e-12)


def test_hvp_of_tangent_requiring_grad_is_differentiable(untaped_calls):
    x_np, v_np, u_np = (rng.standard_normal(6) for _ in range(3))
    v = fg.tensor(v_np, requires_grad=True)
    _, hv = func.hvp(lambda t: tanh_sq(fg, t), (fg.tensor(x_np),), (v,))
    assert untaped_calls == []
    hu, = fg.autograd.grad((hv * fg.tensor(u_np)).sum(), v)  # d<Hv, u>/dv = H u
    np.testing.assert_allclose(hu.numpy(), _torch_hvp(tanh_sq, [x_np], [u_np])[0],
                               rtol=1e-12, atol=1e-12)


def test_hvp_inside_vmap_takes_the_general_path(untaped_calls):
    x_np, vs = rng.standard_normal(6), rng.standard_normal((3, 6))
    x = fg.tensor(x_np)
    hvs = func.vmap(lambda v: func.hvp(lambda t: tanh_sq(fg, t), (x,), (v,))[1])(fg.tensor(vs))
    assert untaped_calls == []
    for row, v in zip(hvs.numpy(), vs):
        np.testing.assert_allclose(row, _torch_hvp(tanh_sq, [x_np], [v])[0], rtol=1e-12,
                                   atol=1e-12)


def test_untaped_level_is_closed_when_f_raises():
    x = fg.tensor(rng.standard_normal(6))

    def broken(t):
        raise KeyError("inside f")
    with pytest.raises(KeyError):
        func.hvp(broken, (x,), (x,))
    assert forward_state.untaped == 0 and forward_state.level == 0 and is_grad_enabled()
    with pytest.raises(ValueError, match="one element"):
        func.hvp(lambda t: t * 2.0, (x,), (x,))
    assert forward_state.untaped == 0 and forward_state.level == 0 and is_grad_enabled()


def _gradient_norm(lib, x):  # f(x) = |grad g(x)|^2, g = tanh_sq: hvp needs third derivatives
    if lib is torch:
        g, = torch.autograd.grad(tanh_sq(torch, x), x, create_graph=True)
    else:
        g = func.grad(lambda t: tanh_sq(fg, t))(x)
    return (g * g).sum()


def _directional(lib, x):  # f(x) = sum of the derivative of sin(x) * x^2 along u
    u = np.linspace(-1.0, 1.0, 6)
    if lib is torch:
        return torch.func.jvp(lambda t: t.sin() * t * t, (x,), (torch.tensor(u),))[1].sum()
    return func.jvp(lambda t: t.sin() * t * t, (x,), (fg.tensor(u),))[1].sum()


@pytest.mark.parametrize("fn", [_gradient_norm, _directional])
def test_untaped_hvp_of_f_using_transforms_inside(fn, untaped_calls):
    x_np, v_np = rng.standard_normal(6), rng.standard_normal(6)
    _, hv = func.hvp(lambda t: fn(fg, t), (fg.tensor(x_np),), (fg.tensor(v_np),))
    assert len(untaped_calls) == 1
    tx = torch.tensor(x_np, requires_grad=True)
    g, = torch.autograd.grad(fn(torch, tx), tx, create_graph=True)
    want, = torch.autograd.grad((g * torch.tensor(v_np)).sum(), tx)
    np.testing.assert_allclose(hv.numpy(), want.numpy(), rtol=1e-11, atol=1e-12)


def test_hvp_under_no_grad_takes_the_general_path_and_agrees(untaped_calls):
    x_np, v_np = rng.standard_normal(6), rng.standard_normal(6)
    with fg.no_grad():
        _, hv = func.hvp(lambda t: tanh_sq(fg, t), (fg.tensor(x_np),), (fg.tensor(v_np),))
    assert untaped_calls == []
    np.testing.assert_allclose(hv.numpy(), _torch_hvp(tanh_sq, [x_np], [v_np])[0], rtol=1e-12,
                               atol=1e-12)


def test_hvp_in_static_mode_is_not_taken_untaped(untaped_calls):
    fg.static.enable_static()  # programs are built, not run: hvp's equations are staged
    try:
        assert func._untaped_applies((fg.tensor([1.0]),), (fg.tensor([1.0]),)) is False
    finally:
        fg.static.disable_static()
    assert func._untaped_applies((fg.tensor([1.0]),), (fg.tensor([1.0]),)) is True


def test_unpack_dual_inside_untaped_hvp_gives_a_tensor_tangent(untaped_calls):
    x_np, v_np = rng.standard_normal(6), rng.standard_normal(6)
    seen = []

    def f(t):
        y = fg.tanh(fg.tensor(W) @ t)
        seen.append(fg.autograd.forward_ad.unpack_dual(y).tangent)
        return (y ** 2).sum()
    func.hvp(f, (fg.tensor(x_np),), (fg.tensor(v_np),))
    assert len(untaped_calls) == 1
    tangent, = seen
    assert type(tangent) is fg.Tensor
    y = np.tanh(W @ x_np)
    np.testing.assert_allclose(tangent.numpy(), (1 - y * y) * (W @ v_np), rtol=1e-13, atol=1e-14)


class _Cube(fg.autograd.Function):
    @staticmethod
    def forward(ctx, x):
        ctx.save_for_backward(x)
        return x ** 3

    @staticmethod
    def backward(ctx, out_bar):
        x, = ctx.saved_tensors
        return 3 * x * x * out_bar

    @staticmethod
    def jvp(ctx, x_dot):
        assert type(x_dot) is fg.Tensor  # (not the untaped level's array)
        x, = ctx.saved_tensors
        return 3 * x * x * x_dot


def test_custom_function_jvp_inside_untaped_hvp_gets_tensors(untaped_calls):
    x_np, v_np = rng.standard_normal(6), rng.standard_normal(6)
    _, hv = func.hvp(lambda t: _Cube.apply(fg.tensor(W) @ t).sum(), (fg.tensor(x_np),),
                     (fg.tensor(v_np),))
    assert len(untaped_calls) == 1
    want = _torch_hvp(lambda lib, t: ((lib.tensor(W) @ t) ** 3).sum(), [x_np], [v_np])[0]
    np.testing.assert_allclose(hv.numpy(), want, rtol=1e-12, atol=1e-12)


def test_untaped_hvp_leaves_no_reference_cycle():
    # a node that saved its output (tanh) keeps the output's tangent, not the output: the
    # graph is freed when the call returns, not when the garbage collector next runs
    x, v = fg.tensor(rng.standard_normal(6)), fg.tensor(rng.standard_normal(6))
    func.hvp(lambda t: tanh_sq(fg, t), (x,), (v,))
    gc.collect()
    gc.set_debug(gc.DEBUG_SAVEALL)
    try:
        func.hvp(lambda t: tanh_sq(fg, t), (x,), (v,))
        gc.collect()
        assert gc.garbage == []
    finally:
        gc.set_debug(0)
        gc.garbage.clear()
