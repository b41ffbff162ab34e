"""Control flow in static programs (cond, while_loop, scan) and its derivatives, against
eager Python code and closed forms."""
import numpy as np
import pytest

import fluxgrad
from fluxgrad import static

XV = np.array([0.3, -1.2, 2.0])




def _eager(fn, xv=XV):
    fluxgrad.disable_static()
    try:
        x = fluxgrad.tensor(xv, requires_grad=True)
        y = fn(x)
        g, = fluxgrad.autograd.grad(y.sum(), x, create_graph=True)
        gg = fluxgrad.autograd.grad(g.sum(), x)[0] if g.requires_grad else x * 0
        return y.detach().numpy(), g.detach().numpy(), gg.detach().numpy()
    finally:
        fluxgrad.enable_static()


@pytest.mark.parametrize("take_true", [True, False])
def test_cond_value_and_derivatives_match_the_branch_taken(program, take_true):
    x = static.data('x', shape=[3], dtype='float64')
    p = static.data('p', shape=[], dtype='bool')
    y = static.nn.cond(p, lambda: fluxgrad.sin(x) * x, lambda: x * x * x)
    g, = static.gradients([y.sum()], [x])
    gg, = static.gradients([g.sum()], [x])
    fluxgrad.incubate.autograd.enable_prim()
    g_prim = fluxgrad.incubate.autograd.grad(y.sum(), x)
    t = static.forward_grad(y, x)
    fwd_over_rev = static.forward_grad(g, x)  # elementwise: the diagonal of the Hessian
    out = static.Executor().run(feed={'x': XV, 'p': np.array(take_true)},
                                fetch_list=[y, g, gg, g_prim, t, fwd_over_rev])
    branch = (lambda v: fluxgrad.sin(v) * v) if take_true else (lambda v: v * v * v)
    y_e, g_e, gg_e = _eager(branch)
    for got, want in zip(out, [y_e, g_e, gg_e, g_e, g_e, gg_e]):
        np.testing.assert_allclose(got, want, rtol=1e-12)


def test_cond_branches_of_different_types_are_refused(program):
    x = static.data('x', shape=[3], dtype='float64')
    with pytest.raises(TypeError, match="different types"):
        static.nn.cond(x.sum() > 0, lambda: x, lambda: x.sum())


def test_while_loop_with_a_run_time_trip_count_and_its_gradient(program):
    x = static.data('x', shape=[3], dtype='float64')
    n = static.data('n', shape=[], dtype='int64')
    i0 = fluxgrad.zeros([], dtype='int64')
    _, z = static.nn.while_loop(lambda i, z: i < n, lambda i, z: [i + 1, fluxgrad.sin(z) * x],
                                [i0, x])
    g, = static.gradients([z.sum()], [x])
    exe = static.Executor()
    for trips in (0, 1, 4):
        z_v, g_v = exe.run(feed={'x': XV, 'n': np.array(trips)}, fetch_list=[z, g])

        def loop(v, trips=trips):
            out = v
            for _ in range(trips):
                out = fluxgrad.sin(out) * v
            return out
        y_e, g_e, _ = _eager(loop)
        np.testing.assert_allclose(z_v, y_e, rtol=1e-12)
        np.testing.assert_allclose(g_v, g_e, rtol=1e-12)


@pytest.mark.parametrize("prim", [False, True])
def test_while_loop_gradient_of_the_initial_value_and_a_captured_variable(program, prim):
    (fluxgrad.incubate.autograd.enable_prim if prim else fluxgrad.incubate.autograd.disable_prim)()
    x = static.data('x', shape=[3], dtype='float64')
    w = static.data('w', shape=[3], dtype='float64')
    i0 = fluxgrad.zeros([], dtype='int64')
    _, z = static.nn.while_loop(lambda i, z: i < 3, lambda i, z: [i + 1, fluxgrad.tanh(z * w)],
                                [i0, x])
    gx, gw = fluxgrad.incubate.autograd.grad(z.sum(), [x, w])
    wv = np.array([0.5, 1.5, -0.7])
    out = static.Executor().run(feed={'x': XV, 'w': wv}, fetch_list=[gx, gw])
    fluxgrad.disable_static()
    xt, wt = fluxgrad.tensor(XV, requires_grad=True), fluxgrad.tensor(wv, requires_grad=True)
    zt = xt
    for _ in range(3):
        zt = fluxgrad.tanh(zt * wt)
    ex, ew = fluxgrad.autograd.grad(zt.sum(), [xt, wt])
    fluxgrad.enable_static()
    np.testing.assert_allclose(out[0], ex.detach().numpy(), rtol=1e-12)
    np.testing.assert_allclose(out[1], ew.detach().numpy(), rtol=1e-12)


def test_scan_and_its_gradient(program):
    xs = static.data('xs', shape=[4, 2], dtype='float64')
    h0 = static.data('h0', shape=[2], dtype='float64')

    def step(h, x):
        h = fluxgrad.tanh(h * 0.5 + x)
        return h, h.sum()
    h, ys = static.nn.scan(step, h0, xs)
    g_xs, g_h0 = static.gradients([h.sum() + ys.sum()], [xs, h0])
    xsv, h0v = np.random.default_rng(0).standard_normal((4, 2)), np.array([0.1, -0.2])
    out = static.Executor().run(feed={'xs': xsv, 'h0': h0v}, fetch_list=[h, ys, g_xs, g_h0])
    fluxgrad.disable_static()
    xt, ht = fluxgrad.tensor(xsv, requires_grad=True), fluxgrad.tensor(h0v, requires_grad=True)
    hh, ys_e = ht, []
    for k in range(4):
        hh = fluxgrad.tanh(hh * 0.5 + xt[k])
        ys_e.append(hh.sum())
    total = hh.sum() + sum(ys_e)
    e_xs, e_h0 = fluxgrad.autograd.grad(total, [xt, ht])
    fluxgrad.enable_static()
    np.testing.assert_allclose(out[0], hh.detach().numpy(), rtol=1e-12)
    np.testing.assert_allclose(out[1], [v.item() for v in ys_e], rtol=1e-12)
    np.testing.assert_allclose(out[2], e_xs.detach().numpy(), rtol=1e-12)
    np.testing.assert_allclose(out[3], e_h0.detach().numpy(), rtol=1e-12)


def test_forward_mode_through_while_loop(program):
    x = static.data('x', shape=[3], dtype='float64')
    w = static.data('w', shape=[3], dtype='float64')
    n = static.data('n', shape=[], dtype='int64')
    _, z = static.nn.while_loop(lambda i, z: i < n, lambda i, z: [i + 1, fluxgrad.sin(z) * w],
                                [fluxgrad.zeros([], dtype='int64'), x])
    vx, vw = np.array([1.0, -2.0, 0.5]), np.array([0.3, 0.1, -1.0])
    tx, tw = static.data('tx', shape=[3], dtype='float64'), static.data('tw', shape=[3],
                                                                          dtype='float64')
    dz = static.forward_grad(z, [x, w], [tx, tw])
    wv = np.array([0.5, 1.5, -0.7])
    out, = static.Executor().run(feed={'x': XV, 'w': wv, 'n': np.array(3), 'tx': vx,
                                       'tw': vw}, fetch_list=[dz])
    fluxgrad.disable_static()
    xt, wt = fluxgrad.tensor(XV, requires_grad=True), fluxgrad.tensor(wv, requires_grad=True)
    zt = xt
    for _ in range(3):
        zt = fluxgrad.sin(zt) * wt
    expected = fluxgrad.autograd.forward_grad(zt, [xt, wt], [fluxgrad.tensor(vx),
                                                             fluxgrad.tensor(vw)])
    fluxgrad.enable_static()
    np.testing.assert_allclose(out, expected.detach().numpy(), rtol=1e-12)


def test_control_flow_in_eager_mode_is_python_control_flow():
    fluxgrad.disable_static()
    i, z = static.nn.while_loop(lambda i, z: i < 3, lambda i, z: [i + 1, z * 2],
                                [fluxgrad.tensor(0), fluxgrad.tensor(1.0)])
    assert (i.item(), z.item()) == (3, 8.0)
    c, ys = static.nn.scan(lambda c, x: (c + x, c * x), fluxgrad.tensor(0.0),
                           fluxgrad.tensor([1.0, 2.0, 3.0]))
    assert c.item() == 6.0 and ys.tolist() == [0.0, 2.0, 9.0]
    assert static.nn.cond(fluxgrad.tensor(False), lambda: 1, lambda: 2) == 2
