"""Derivatives of every order through `static.nn.while_loop` and `scan`: reverse over reverse
(static `gradients` twice, compiled `func.grad(func.grad(f))`, `autograd.grad` with
`create_graph=True` twice), forward over reverse (`hvp`, `jvp(grad(f))`) and forward mode,
and vmap (`jacrev(jacrev(f))`, per-example loops that stop at different iterations), for
loops of 0, 1 and many iterations carrying tuples, in float64 and float32, against the same
loop unrolled in torch and central differences."""
import numpy as np
import pytest

import fluxgrad as fg
from fluxgrad import static
from fluxgrad.static import nn

torch = pytest.importorskip("torch")

TRIPS = (0, 1, 5)
RNG = np.random.default_rng(7)
XV, WV = RNG.uniform(-1, 1, 3), RNG.uniform(-1, 1, 3)
VV, UV = RNG.uniform(-1, 1, 3), RNG.uniform(-1, 1, 3)


def _loop(x, w, n):
    """n times (a, b) <- (sin(a w) + b, b tanh(a)) from (x, cos x), a counter carried along."""
    i = fg.zeros((), dtype=fg.int64)
    _, a, b = nn.while_loop(lambda i, a, b: i < n,
                            lambda i, a, b: [i + 1, (a * w).sin() + b, b * a.tanh()],
                            [i, x, x.cos()])
    return (a * a).sum() + (b * w).sum()


def _loop_torch(x, w, n):
    a, b = x, x.cos()
    for _ in range(n):
        a, b = (a * w).sin() + b, b * a.tanh()
    return (a * a).sum() + (b * w).sum()


def _torch_derivatives(trips, dtype=torch.float64):
    """y, its gradient (x, w) and its Hessian times (v, u), by torch's double backward."""
    x, w = (torch.tensor(v, dtype=dtype, requires_grad=True) for v in (XV, WV))
    v, u = torch.tensor(VV, dtype=dtype), torch.tensor(UV, dtype=dtype)
    y = _loop_torch(x, w, trips)
    gx, gw = torch.autograd.grad(y, (x, w), create_graph=True)
    hx, hw = torch.autograd.grad((gx * v).sum() + (gw * u).sum(), (x, w))
    return [t.detach().numpy() for t in (y, gx, gw, hx, hw)]


def _assert_close(got, want, rtol=1e-10, atol=1e-12):
    for g, w in zip(got, want):
        np.testing.assert_allclose(np.asarray(g), w, rtol=rtol, atol=atol)


def _numpy(*ts):
    return [t.detach().numpy() for t in ts]


# --- reverse over reverse --------------------------------------------------------------------
def test_static_gradients_twice_through_a_while_loop_match_torch(program):
    x, w, v, u = (static.data(k, shape=[3], dtype='float64') for k in "xwvu")
    n = static.data('n', shape=[], dtype='int64')
    y = _loop(x, w, n)
    gx, gw = static.gradients([y], [x, w])
    hx, hw = static.gradients([(gx * v).sum() + (gw * u).sum()], [x, w])
    exe = static.Executor()
    for trips in TRIPS:
        got = exe.run(feed={'x': XV, 'w': WV, 'v': VV, 'u': UV, 'n': np.array(trips)},
                      fetch_list=[y, gx, gw, hx, hw])
        _assert_close(got, _torch_derivatives(trips))


def test_third_order_through_a_while_loop_matches_torch(program):
    x = static.data('x', shape=[3], dtype='float64')
    w = static.data('w', shape=[3], dtype='float64')
    n = static.data('n', shape=[], dtype='int64')
    g, = static.gradients([_loop(x, w, n)], [x])
    gg, = static.gradients([g.sum()], [x])
    ggg, = static.gradients([gg.sum()], [x])
    exe = static.Executor()
    for trips in TRIPS:
        got, = exe.run(feed={'x': XV, 'w': WV, 'n': np.array(trips)}, fetch_list=[ggg])
        xt = torch.tensor(XV, requires_grad=True)
        gt, = torch.autograd.grad(_loop_torch(xt, torch.tensor(WV), trips), xt, create_graph=True)
        ggt, = torch.autograd.grad(gt.sum(), xt, create_graph=True)
        gggt, = torch.autograd.grad(ggt.sum(), xt)
        np.testing.assert_allclose(got, gggt.numpy(), rtol=1e-9, atol=1e-11)


def _grad_of_grad(x, w, n, v, u):
    def along(x, w):
        gx, gw = fg.func.grad(lambda x, w: _loop(x, w, n), argnums=(0, 1))(x, w)
        return (gx * v).sum() + (gw * u).sum()
    return fg.func.grad(along, argnums=(0, 1))(x, w)


@pytest.mark.parametrize("compiled", [False, True])
def test_autograd_grad_with_create_graph_twice_through_a_while_loop_matches_torch(compiled):
    f = fg.compile(_loop, fullgraph=True) if compiled else _loop
    for trips in TRIPS:
        x, w = (fg.tensor(a, requires_grad=True) for a in (XV, WV))
        y = f(x, w, fg.tensor(trips))
        gx, gw = fg.autograd.grad(y, [x, w], create_graph=True)
        hx, hw = fg.autograd.grad((gx * fg.tensor(VV)).sum() + (gw * fg.tensor(UV)).sum(),
                                  [x, w])
        _assert_close(_numpy(y, gx, gw, hx, hw), _torch_derivatives(trips))


def test_grad_of_grad_through_a_while_loop_is_the_central_difference_of_its_gradient():
    gradient = fg.compile(lambda x, w, n: fg.func.grad(_loop, argnums=(0, 1))(x, w, n),
                          fullgraph=True)
    second = fg.compile(_grad_of_grad, fullgraph=True)
    n, h = fg.tensor(5), 1e-6
    x, w, v, u = (fg.tensor(a) for a in (XV, WV, VV, UV))
    plus = gradient(x + v * h, w + u * h, n)
    minus = gradient(x - v * h, w - u * h, n)
    want = [(p.numpy() - m.numpy()) / (2 * h) for p, m in zip(plus, minus)]
    _assert_close(_numpy(*second(x, w, n, v, u)), want, rtol=1e-6, atol=1e-8)


def test_static_gradients_twice_through_a_scan_match_torch(program):
    xs = static.data('xs', shape=[4, 2], dtype='float64')
    h0 = static.data('h0', shape=[2], dtype='float64')

    def step(h, x):
        h = (h * x).tanh() + x
        return h, (h * h).sum()
    h, ys = nn.scan(step, h0, xs)
    g_xs, g_h0 = static.gradients([(h * h).sum() + ys.sum()], [xs, h0])
    gg_xs, gg_h0 = static.gradients([g_xs.sum() + (g_h0 * g_h0).sum()], [xs, h0])
    xsv, h0v = RNG.uniform(-1, 1, (4, 2)), RNG.uniform(-1, 1, 2)
    got = static.Executor().run(feed={'xs': xsv, 'h0': h0v}, fetch_list=[gg_xs, gg_h0])
    xt, ht = torch.tensor(xsv, requires_grad=True), torch.tensor(h0v, requires_grad=True)
    hh, total = ht, 0
    for k in range(4):
        hh = (hh * xt[k]).tanh() + xt[k]
        total = total + (hh * hh).sum()
    a, b = torch.autograd.grad((hh * hh).sum() + total, (xt, ht), create_graph=True)
    want = torch.autograd.grad(a.sum() + (b * b).sum(), (xt, ht))
    _assert_close(got, [t.numpy() for t in want])


# --- forward over reverse, forward mode ------------------------------------------------------
def test_static_forward_grad_through_a_while_loop_and_its_gradient_match_torch(program):
    x, w, v, u = (static.data(k, shape=[3], dtype='float64') for k in "xwvu")
    n = static.data('n', shape=[], dtype='int64')
    y = _loop(x, w, n)
    y_dot = static.forward_grad(y, [x, w], [v, u])
    gx, gw = static.gradients([y], [x, w])
    hx, hw = static.forward_grad([gx, gw], [x, w], [v, u])
    exe = static.Executor()
    for trips in TRIPS:
        got = exe.run(feed={'x': XV, 'w': WV, 'v': VV, 'u': UV, 'n': np.array(trips)},
                      fetch_list=[y_dot, hx, hw])
        _, tx, tw, thx, thw = _torch_derivatives(trips)
        _assert_close(got, [tx @ VV + tw @ UV, thx, thw])


def _hvp(x, w, n, v, u):
    return fg.func.hvp(lambda x, w: _loop(x, w, n), (x, w), (v, u))[1]


def _jvp_of_grad(x, w, n, v, u):
    gradient = fg.func.grad(lambda x, w: _loop(x, w, n), argnums=(0, 1))
    return fg.func.jvp(gradient, (x, w), (v, u))[1]


def test_compiled_jvp_through_a_while_loop_matches_torch():
    compiled = fg.compile(lambda x, w, n, v, u: fg.func.jvp(lambda x, w: _loop(x, w, n),
                                                            (x, w), (v, u)), fullgraph=True)
    x, w, v, u = (fg.tensor(a) for a in (XV, WV, VV, UV))
    for trips in TRIPS:
        y, y_dot = compiled(x, w, fg.tensor(trips), v, u)
        ty, tx, tw, _, _ = _torch_derivatives(trips)
        _assert_close(_numpy(y, y_dot), [ty, tx @ VV + tw @ UV])


@pytest.mark.parametrize("dtype", ["float64", "float32"])
@pytest.mark.parametrize("fn", [_grad_of_grad, _hvp, _jvp_of_grad])
def test_compiled_second_order_through_a_while_loop_matches_torch(fn, dtype):
    """Reverse over reverse (`_grad_of_grad`) and forward over reverse (`_hvp`,
    `_jvp_of_grad`)."""
    compiled = fg.compile(fn, fullgraph=True)
    args = [fg.tensor(a, dtype=dtype) for a in (XV, WV)]
    directions = [fg.tensor(a, dtype=dtype) for a in (VV, UV)]
    rtol, atol = (1e-10, 1e-12) if dtype == "float64" else (2e-4, 1e-5)
    for trips in TRIPS:
        for _ in range(2):  # the trace's run, then the generated code
            hx, hw = compiled(*args, fg.tensor(trips), *directions)
            assert hx.dtype == hw.dtype == getattr(fg, dtype)
            _assert_close(_numpy(hx, hw), _torch_derivatives(trips)[3:], rtol, atol)
    assert compiled.trace_count == 1
    names = [eq.prim.name for eq in compiled.program(*args, fg.tensor(5), *directions).equations]
    assert "while_loop_grad" in names and len(names) < 60  # loops, not unrolled iterations


@pytest.mark.parametrize("compiled", [False, True])
def test_hvp_of_a_function_with_a_while_loop_matches_torch(compiled):
    f = fg.compile(_loop, fullgraph=True) if compiled else _loop
    x, w, v, u = (fg.tensor(a) for a in (XV, WV, VV, UV))
    for trips in TRIPS:
        value, (hx, hw) = fg.func.hvp(lambda x, w: f(x, w, fg.tensor(trips)), (x, w), (v, u))
        ty, _, _, thx, thw = _torch_derivatives(trips)
        _assert_close(_numpy(value, hx, hw), [ty, thx, thw])


# --- vmap: a predicate of each example's own ------------------------------------------------
XS = np.array([[0.2, -0.3, 0.1], [2.0, 1.5, -3.0], [0.9, -0.8, 0.7], [6.0, 5.0, 4.0]])


def _shrink(x, w):
    """(a, s) <- (a / 2 + sin(a w) / 10, s + sum(a)) from (x, 0) while |a|^2 > 0.1: each
    example of a batch stops after its own number of iterations."""
    i = fg.zeros((), dtype=fg.int64)
    _, a, s = nn.while_loop(lambda i, a, s: (a * a).sum() > 0.1,
                            lambda i, a, s: [i + 1, a * 0.5 + (a * w).sin() * 0.1, s + a.sum()],
                            [i, x, (x * 0).sum()])
    return s + (a * w).sum()


def _shrink_torch(x, w):
    a, s, trips = x, (x * 0).sum(), 0
    while float((a * a).sum().detach()) > 0.1:
        a, s, trips = a * 0.5 + (a * w).sin() * 0.1, s + a.sum(), trips + 1
    return s + (a * w).sum(), trips


def _per_example_torch():
    """Each example's value, gradient in (x, w) and Hessian in x, one at a time in torch."""
    values, gxs, gws, hessians, trips = [], [], [], [], []
    for row in XS:
        x, w = torch.tensor(row, requires_grad=True), torch.tensor(WV, requires_grad=True)
        y, k = _shrink_torch(x, w)
        gx, gw = torch.autograd.grad(y, (x, w))
        h = torch.autograd.functional.hessian(lambda t: _shrink_torch(t, torch.tensor(WV))[0],
                                              torch.tensor(row))
        for out, v in zip((values, gxs, gws, hessians, trips), (y, gx, gw, h, k)):
            out.append(v.detach().numpy() if isinstance(v, torch.Tensor) else v)
    assert len(set(trips)) == len(XS)  # the examples stop at different iterations
    return [np.array(v) for v in (values, gxs, gws, hessians)]


@pytest.mark.parametrize("mode", ["eager", "compiled"])
def test_vmap_of_a_while_loop_runs_each_example_until_its_own_predicate_fails(mode):
    batched = fg.func.vmap(_shrink, in_dims=(0, None))
    gradients = fg.func.vmap(fg.func.grad(_shrink, argnums=(0, 1)), in_dims=(0, None))
    if mode == "compiled":
        batched, gradients = (fg.compile(f, fullgraph=True) for f in (batched, gradients))
    x, w = fg.tensor(XS), fg.tensor(WV)
    values, gxs, gws, _ = _per_example_torch()
    for _ in range(2):
        _assert_close(_numpy(batched(x, w), *gradients(x, w)), [values, gxs, gws])


def test_vmap_of_a_while_loop_in_a_static_program(program):
    x = static.data('x', shape=[4, 3], dtype='float64')
    w = static.data('w', shape=[3], dtype='float64')
    y = fg.func.vmap(_shrink, in_dims=(0, None))(x, w)
    g, = static.gradients([(y * y).sum()], [x])
    names = [eq.prim.name for eq in program.equations]
    assert names.count("while_loop") == names.count("while_loop_grad") == 1
    got = static.Executor().run(feed={'x': XS, 'w': WV}, fetch_list=[y, g])
    values, gxs, _, _ = _per_example_torch()
    _assert_close(got, [values, 2 * values[:, None] * gxs])


def test_compiled_jacrev_of_jacrev_through_a_while_loop_matches_torch():
    compiled = fg.compile(fg.func.jacrev(fg.func.jacrev(_loop), argnums=0), fullgraph=True)
    x, w = fg.tensor(XV), fg.tensor(WV)
    for trips in TRIPS:
        want = torch.autograd.functional.hessian(
            lambda t: _loop_torch(t, torch.tensor(WV), trips), torch.tensor(XV))
        _assert_close(_numpy(compiled(x, w, fg.tensor(trips))), [want.numpy()])
    names = [eq.prim.name for eq in compiled.program(x, w, fg.tensor(5)).equations]
    assert "while_loop_grad" in names and len(names) < 80  # loops, not unrolled iterations


@pytest.mark.parametrize("transform", ["jacrev_of_jacrev", "hessian"])
def test_compiled_hessian_of_each_example_of_a_data_dependent_loop_matches_torch(transform):
    second = fg.func.jacrev(fg.func.jacrev(_shrink)) if transform == "jacrev_of_jacrev" else \
        fg.func.hessian(_shrink)
    compiled = fg.compile(fg.func.vmap(second, in_dims=(0, None)), fullgraph=True)
    _assert_close(_numpy(compiled(fg.tensor(XS), fg.tensor(WV))), [_per_example_torch()[3]])


def test_compiled_vmap_of_a_scan_matches_each_example():
    def f(init, xs):
        return nn.scan(lambda c, x: (c * 0.9 + x, c.sin()), init, xs)
    inits, xs = RNG.uniform(-1, 1, (4, 3)), RNG.uniform(-1, 1, (4, 6, 3))
    carry, ys = fg.compile(fg.func.vmap(f), fullgraph=True)(fg.tensor(inits), fg.tensor(xs))
    for k in range(4):
        c, want = inits[k], []
        for x in xs[k]:
            want.append(np.sin(c))
            c = c * 0.9 + x
        _assert_close([carry.numpy()[k], ys.numpy()[k]], [c, np.stack(want)])
