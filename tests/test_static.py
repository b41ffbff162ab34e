"""Static mode: programs, the Executor, seed 002's examples as written, and training."""
import numpy as np
import pytest

import fluxgrad
import fluxgrad as paddle
from fluxgrad import static

IA = fluxgrad.incubate.autograd


@pytest.fixture
def fresh():
    """Static mode on, with fresh default programs and scope; everything restored after."""
    main, startup = static.Program(), static.Program()
    scope = static.Scope()
    fluxgrad.enable_static()
    try:
        with static.program_guard(main, startup), static.scope_guard(scope):
            yield main, startup
    finally:
        fluxgrad.disable_static()
        IA.disable_prim()


# --- seed 002, verbatim (paddle = fluxgrad) -------------------------------------------------
@pytest.mark.parametrize("prim", [True, False])
def test_seed_tanh_third_order(fresh, prim):
    paddle.enable_static()
    (IA.enable_prim if prim else IA.disable_prim)()
    x = paddle.static.data('x', shape=((1, )), dtype=paddle.float32)
    y = paddle.tanh(x)
    grad1 = paddle.incubate.autograd.grad(y, x)
    grad2 = paddle.incubate.autograd.grad(grad1, x)
    grad3 = paddle.incubate.autograd.grad(grad2, x)
    feed = {'x': np.ones((1,)).astype(np.float32)}
    exe = paddle.static.Executor()
    grad1, grad2, grad3 = exe.run(feed=feed, fetch_list=[grad1, grad2, grad3])
    t = np.tanh(1.0)  # closed forms: 1 - t², -2t(1 - t²), (1 - t²)(6t² - 2)
    np.testing.assert_allclose(grad1, [1 - t * t], rtol=1e-6)
    np.testing.assert_allclose(grad2, [-2 * t * (1 - t * t)], rtol=1e-6)
    np.testing.assert_allclose(grad3, [(1 - t * t) * (6 * t * t - 2)], rtol=1e-6)
    np.testing.assert_allclose([grad1[0], grad2[0], grad3[0]], [0.41997433, -0.6397, 0.6216267],
                               rtol=1e-5)


def test_seed_forward_grad(fresh):
    IA.enable_prim()

    def func(x):
        return x + x, x * x, paddle.tanh(x)
    x = paddle.static.data('x', shape=((1, )), dtype=paddle.float32)
    y = func(x)
    out = paddle.incubate.autograd.forward_grad(y, x)
    exe = paddle.static.Executor()
    xv = np.random.rand(1).astype(np.float32)
    out = exe.run(feed={'x': xv}, fetch_list=[out])
    np.testing.assert_allclose(out[0], [2.0])
    np.testing.assert_allclose(out[1], 2 * xv, rtol=1e-6)
    np.testing.assert_allclose(out[2], 1 - np.tanh(xv) ** 2, rtol=1e-6)


def test_seed_batched_lazy_jacobian(fresh):
    IA.enable_prim()
    x = paddle.static.data('x', shape=((2, 8)), dtype=paddle.float32)
    y = paddle.static.data('y', shape=((2, 8)), dtype=paddle.float32)
    J = paddle.incubate.autograd.Jacobian(paddle.multiply, (x, y), is_batched=True)
    row = J[:, 0, :]
    n_after_row = len(fresh[0].equations)
    col = J[:, 0:3, :]
    n_after_col = len(fresh[0].equations)
    all = J[:]
    feed = {'x': np.random.randn(2, 8).astype(np.float32),
            'y': np.random.randn(2, 8).astype(np.float32)}
    exe = paddle.static.Executor()
    row, col, all = exe.run(feed=feed, fetch_list=[row, col, all])
    expected = np.concatenate([np.stack([np.diag(feed['y'][b]) for b in range(2)]),
                               np.stack([np.diag(feed['x'][b]) for b in range(2)])], -1)
    np.testing.assert_array_equal(all, expected)
    np.testing.assert_array_equal(col, expected[:, :3])
    np.testing.assert_array_equal(row, expected[:, 0])
    # row 0 was cached: the second request staged two rows' passes, not three
    assert 0 < n_after_col - n_after_row < 3 * n_after_row


# --- programs -------------------------------------------------------------------------------
def test_unknown_batch_dim_serves_three_batch_sizes(fresh):
    x = static.data('x', shape=[None, 3], dtype='float32')
    w = np.arange(6, dtype=np.float32).reshape(3, 2) / 6
    h = fluxgrad.tanh(x @ fluxgrad.tensor(w))
    loss = h.mean() + (h * h).sum(axis=0).mean()
    g, = static.gradients([loss], [x])
    exe = static.Executor()
    for n in (1, 4, 7):
        xv = np.random.randn(n, 3).astype(np.float32)
        loss_v, g_v = exe.run(feed={'x': xv}, fetch_list=[loss, g])
        xt = fluxgrad.tensor(xv.astype(np.float64), requires_grad=True)
        ht = fluxgrad.tanh(xt @ fluxgrad.tensor(w.astype(np.float64)))
        lt = ht.mean() + (ht * ht).sum(axis=0).mean()
        lt.backward()
        np.testing.assert_allclose(loss_v, lt.item(), rtol=1e-5)
        np.testing.assert_allclose(g_v, xt.grad.detach().numpy(), rtol=1e-4, atol=1e-6)


def test_user_programs_with_program_guard(fresh):
    exe = static.Executor()
    progs = []
    for scale in (2.0, 3.0):
        main, startup = static.Program(), static.Program()
        with static.program_guard(main, startup):
            x = static.data('x', shape=[2], dtype='float32')
            y = x * scale
        progs.append((main, y))
    assert len(fresh[0].equations) == 0
    for (main, y), scale in zip(progs, (2.0, 3.0)):
        out, = exe.run(main, feed={'x': np.ones(2, np.float32)}, fetch_list=[y])
        np.testing.assert_array_equal(out, [scale, scale])


def test_print_shows_typed_equations(fresh):
    x = static.data('x', shape=[None, 2], dtype='float32')
    y = fluxgrad.tanh(x).sum(axis=1)
    text = str(fresh[0])
    assert "x:f32[N0,2]" in text
    assert f"{y.name}:f32[N0] = sum[axis=(1,), keepdims=False]" in text
    assert "= tanh x" in text


def test_executor_runs_only_what_the_fetches_need(fresh):
    x = static.data('x', shape=[2], dtype='float32')
    a = fluxgrad.exp(x)
    b = fluxgrad.log(x)  # noqa: F841  (not fetched: must not run)
    calls = []
    from fluxgrad._core.primitive import REGISTRY
    log_impl = REGISTRY["log"].impl
    REGISTRY["log"].impl = lambda *args, **kw: calls.append(1) or log_impl(*args, **kw)
    try:
        out, = static.Executor().run(feed={'x': np.ones(2, np.float32)}, fetch_list=[a])
    finally:
        REGISTRY["log"].impl = log_impl
    np.testing.assert_allclose(out, np.e)
    assert calls == []


# --- errors ---------------------------------------------------------------------------------
def test_missing_feed_names_the_variable(fresh):
    x = static.data('x', shape=[2], dtype='float32')
    with pytest.raises(KeyError, match="'x'"):
        static.Executor().run(fetch_list=[x * 2])


def test_feed_of_wrong_shape_or_dtype_is_refused(fresh):
    x = static.data('x', shape=[None, 2], dtype='float32')
    y = x * 2
    exe = static.Executor()
    with pytest.raises(ValueError, match=r"'x' has shape \[3, 3\]"):
        exe.run(feed={'x': np.ones((3, 3), np.float32)}, fetch_list=[y])
    with pytest.raises(TypeError, match="dtype float64"):
        exe.run(feed={'x': np.ones((3, 2))}, fetch_list=[y])


def test_fetch_of_another_programs_variable_is_refused(fresh):
    other = static.Program()
    with static.program_guard(other):
        z = static.data('z', shape=[2], dtype='float32') + 1
    x = static.data('x', shape=[2], dtype='float32')
    with pytest.raises(ValueError, match="another program"):
        static.Executor().run(feed={'x': np.ones(2, np.float32)}, fetch_list=[x + 1, z])


def test_shape_error_at_build_time_names_op_shapes_and_line(fresh):
    x = static.data('x', shape=[None, 3], dtype='float32')
    w = static.data('w', shape=[4, 2], dtype='float32')
    with pytest.raises(ValueError, match=r"add.*x:f32\[N0,3\].*w:f32\[4,2\].*test_static.py"):
        fluxgrad.add(x, w)


def test_python_if_on_a_variable_points_to_cond(fresh):
    x = static.data('x', shape=[1], dtype='float32')
    with pytest.raises(TypeError, match="static.nn.cond"):
        if x > 0:
            pass


def test_failed_run_changes_nothing_in_the_scope(fresh):
    x = static.data('x', shape=[2], dtype='float32')
    lin = fluxgrad.nn.Linear(2, 1)
    loss = lin(x).sum()
    fluxgrad.optim.SGD(0.1).minimize(loss)
    exe = static.Executor()
    exe.run(static.default_startup_program())
    before = {k: v.copy() for k, v in static.global_scope().values.items()}
    with pytest.raises(TypeError):
        exe.run(feed={'x': np.ones(2)}, fetch_list=[loss])  # float64 feed
    after = static.global_scope().values
    assert before.keys() == after.keys()
    for k in before:
        np.testing.assert_array_equal(before[k], after[k])
    exe.run(feed={'x': np.ones(2, np.float32)}, fetch_list=[loss])
    assert not np.array_equal(before[lin.weight.name], after[lin.weight.name])


# --- layers and optimizers ------------------------------------------------------------------
class MyNet(paddle.nn.Layer):
    def __init__(self, bias_shape=(2, 2)):
        super().__init__()
        self.weight = self.create_parameter(shape=(2, 2), dtype='float32', is_bias=False)
        self.bias = self.create_parameter(shape=bias_shape, dtype='float32', is_bias=True)
        self.add_parameter("weight", self.weight)
        self.add_parameter("bias", self.bias)

    def forward(self, x):
        y = paddle.matmul(x, self.weight) + self.bias
        return paddle.tanh(y)


def _eager_loss(w, b, x):
    xt = fluxgrad.tensor(x, requires_grad=True)
    y = fluxgrad.tanh(fluxgrad.matmul(xt, w) + b)
    g1, = fluxgrad.autograd.grad(y.sum(), xt, create_graph=True)
    g2, = fluxgrad.autograd.grad(g1.sum(), xt, create_graph=True)
    return fluxgrad.norm(g2, p=2)


@pytest.mark.parametrize("prim", [True, False])
def test_seed_mynet_adam_matches_eager_step_by_step(fresh, prim):
    (IA.enable_prim if prim else IA.disable_prim)()
    x = paddle.static.data('x', shape=(2, 2), dtype='float32')
    fluxgrad.manual_seed(0)  # MyNet's initial weights: the same draw in every run of the suite
    net = MyNet()
    y = net(x)
    grad1 = paddle.incubate.autograd.grad(y, x)
    grad2 = paddle.incubate.autograd.grad(grad1, x)
    loss = paddle.norm(grad2, p=2)
    opt = paddle.optimizer.Adam(0.01)
    opt.minimize(loss)
    exe = paddle.static.Executor()
    exe.run(paddle.static.default_startup_program())
    scope = static.global_scope()
    w = fluxgrad.nn.Parameter(scope.find_var(net.weight.name).get_tensor().copy())
    b = fluxgrad.nn.Parameter(scope.find_var(net.bias.name).get_tensor().copy())
    eager_opt = fluxgrad.optim.Adam([w, b], lr=0.01)
    fluxgrad.disable_static()
    data = [np.random.default_rng(i).random((2, 2)).astype(np.float32) for i in range(10)]
    for x_val in data:
        fluxgrad.enable_static()
        loss_val, = exe.run(feed={'x': x_val}, fetch_list=[loss])
        fluxgrad.disable_static()
        eager_opt.zero_grad()
        eager_loss = _eager_loss(w, b, x_val)
        eager_loss.backward()
        eager_opt.step()
        # float32 both ways; the order of some roundings differs
        np.testing.assert_allclose(loss_val, eager_loss.item(), rtol=1e-4)
        np.testing.assert_allclose(scope.find_var(net.weight.name).get_tensor(), w.detach().numpy(),
                                   rtol=1e-4, atol=1e-5)
        np.testing.assert_allclose(scope.find_var(net.bias.name).get_tensor(), b.detach().numpy(),
                                   rtol=1e-4, atol=1e-5)


def test_seed_appendix_three_input_shapes(fresh):
    IA.enable_prim()
    data = [np.random.rand(n, 2).astype(np.float32) for n in (3, 4, 5)]
    nets = []
    for i, input in enumerate(data):
        x = paddle.static.data(f'x{i}', shape=input.shape, dtype='float32')
        net = MyNet(bias_shape=(2,))
        y = net(x)
        grad1 = paddle.incubate.autograd.grad(y, x)
        grad2 = paddle.incubate.autograd.grad(grad1, x)
        loss = paddle.norm(grad2, p=2)
        paddle.optimizer.Adam(0.01).minimize(loss)
        nets.append((net, loss))
    exe = paddle.static.Executor()
    exe.run(paddle.static.default_startup_program())
    scope = static.global_scope()
    initial = {n.weight.name: scope.find_var(n.weight.name).get_tensor().copy() for n, _ in nets}
    losses = []
    for epoch in range(3):
        loss_val, = exe.run(feed={f'x{i}': x for i, x in enumerate(data)}, fetch_list=[loss])
        losses.append(float(loss_val))
    # every net trained (the last loss only depends on the last net); first loss matches eager
    for n, _ in nets:
        assert not np.allclose(scope.find_var(n.weight.name).get_tensor(), initial[n.weight.name])
    fluxgrad.disable_static()
    last = nets[-1][0]
    w0 = fluxgrad.tensor(initial[last.weight.name])
    b0 = fluxgrad.zeros(2)
    np.testing.assert_allclose(losses[0], _eager_loss(w0, b0, data[-1]).item(), rtol=1e-5)


OPTIMIZERS = [
    (lambda: fluxgrad.optim.SGD(0.1), lambda ps: fluxgrad.optim.SGD(ps, lr=0.1)),
    (lambda: fluxgrad.optim.Momentum(0.1, momentum=0.9),
     lambda ps: fluxgrad.optim.SGD(ps, lr=0.1, momentum=0.9)),
    (lambda: fluxgrad.optim.SGD(0.1, momentum=0.5, dampening=0.3, weight_decay=0.01),
     lambda ps: fluxgrad.optim.SGD(ps, lr=0.1, momentum=0.5, dampening=0.3, weight_decay=0.01)),
    (lambda: fluxgrad.optim.Adam(0.05), lambda ps: fluxgrad.optim.Adam(ps, lr=0.05)),
    (lambda: fluxgrad.optim.AdamW(0.05, weight_decay=0.1),
     lambda ps: fluxgrad.optim.AdamW(ps, lr=0.05, weight_decay=0.1)),
    (lambda: fluxgrad.optim.RMSprop(0.01, momentum=0.5, centered=True),
     lambda ps: fluxgrad.optim.RMSprop(ps, lr=0.01, momentum=0.5, centered=True)),
    (lambda: fluxgrad.optim.Adagrad(0.1, lr_decay=0.01),
     lambda ps: fluxgrad.optim.Adagrad(ps, lr=0.1, lr_decay=0.01)),
]


@pytest.mark.parametrize("make", OPTIMIZERS, ids=["SGD", "Momentum", "SGD-damp", "Adam", "AdamW",
                                                  "RMSprop", "Adagrad"])
def test_static_minimize_matches_eager_steps(fresh, make):
    static_opt, eager_opt = make
    x = static.data('x', shape=[None, 3], dtype='float32')
    t = static.data('t', shape=[None, 1], dtype='float32')
    lin = fluxgrad.nn.Linear(3, 1)
    loss = ((fluxgrad.tanh(lin(x)) - t) ** 2).mean()
    static_opt().minimize(loss)
    exe = static.Executor()
    exe.run(static.default_startup_program())
    scope = static.global_scope()
    fluxgrad.disable_static()
    eager = fluxgrad.nn.Linear(3, 1)
    eager.weight.data = scope.find_var(lin.weight.name).get_tensor().copy()
    eager.bias.data = scope.find_var(lin.bias.name).get_tensor().copy()
    opt = eager_opt(eager.parameters())
    rng = np.random.default_rng(0)
    for step in range(5):
        xv = rng.standard_normal((4 + step, 3)).astype(np.float32)
        tv = rng.standard_normal((4 + step, 1)).astype(np.float32)
        fluxgrad.enable_static()
        lv, = exe.run(feed={'x': xv, 't': tv}, fetch_list=[loss])
        fluxgrad.disable_static()
        opt.zero_grad()
        le = ((fluxgrad.tanh(eager(fluxgrad.tensor(xv))) - fluxgrad.tensor(tv)) ** 2).mean()
        le.backward()
        opt.step()
        np.testing.assert_allclose(lv, le.item(), rtol=1e-5)
        np.testing.assert_allclose(scope.find_var(lin.weight.name).get_tensor(),
                                   eager.weight.detach().numpy(), rtol=1e-4, atol=1e-5)


# --- the same autograd functions serve both modes -------------------------------------------
def test_autograd_functions_accept_variables(fresh):
    x = static.data('x', shape=[3], dtype='float64')
    y = fluxgrad.sin(x) * x
    g, = fluxgrad.autograd.grad(y.sum(), x)
    gg, = fluxgrad.grad(g.sum(), x)
    t = fluxgrad.autograd.forward_grad(y, x)
    J = fluxgrad.autograd.Jacobian(lambda v: fluxgrad.sin(v) * v, x)
    H = fluxgrad.autograd.Hessian(lambda v: (fluxgrad.sin(v) * v).sum(), x)
    jac, hess = J[:], H[:]
    xv = np.array([0.3, -1.2, 2.0])
    out = static.Executor().run(feed={'x': xv}, fetch_list=[g, gg, t, jac, hess])
    d1 = np.sin(xv) + xv * np.cos(xv)
    d2 = 2 * np.cos(xv) - xv * np.sin(xv)
    np.testing.assert_allclose(out[0], d1)
    np.testing.assert_allclose(out[1], d2)
    np.testing.assert_allclose(out[2], d1)
    np.testing.assert_allclose(out[3], np.diag(d1))
    np.testing.assert_allclose(out[4], np.diag(d2))
    with pytest.raises(RuntimeError, match="allow_unused"):
        fluxgrad.autograd.grad(y.sum(), [x, static.data('z', shape=[1], dtype='float64')])


def test_detach_stops_the_derivative(fresh):
    x = static.data('x', shape=[2], dtype='float64')
    y = x * x.detach()
    g, = static.gradients([y.sum()], [x])
    out, = static.Executor().run(feed={'x': np.array([1.5, -2.0])}, fetch_list=[g])
    np.testing.assert_allclose(out, [1.5, -2.0])


def test_feeds_sharing_an_unknown_axis_must_agree(fresh):
    x = static.data('x', shape=[None, 2], dtype='float32')
    t = static.data('t', shape=[None, 1], dtype='float32')
    loss = (x.sum(axis=1, keepdim=True) - t).mean()
    exe = static.Executor()
    with pytest.raises(ValueError, match="N0"):
        exe.run(feed={'x': np.ones((3, 2), np.float32), 't': np.ones((4, 1), np.float32)},
                fetch_list=[loss])
    out, = exe.run(feed={'x': np.ones((3, 2), np.float32), 't': np.ones((3, 1), np.float32)},
                   fetch_list=[loss])
    assert out == 1.0


def test_a_size_derived_from_two_unknown_ones_other_than_a_product_is_refused_when_staged(fresh):
    x = static.data('x', shape=[None, None], dtype='float32')
    assert str(fluxgrad.concat([x, x], axis=0).type_str) == "f32[2*N0,N1]"
    assert str(x[1:].type_str) == "f32[N0-1,N1]"
    with pytest.raises(ValueError, match="unknown dimension"):
        fluxgrad.zeros(x.shape[0] + x.shape[1])


def test_staging_a_variable_of_another_program_is_refused(fresh):
    other = static.Program()
    with static.program_guard(other):
        z = static.data('z', shape=[2], dtype='float32')
    with pytest.raises(ValueError, match="another program"):
        z * 2


def test_lazy_jacobian_with_an_unknown_batch_size(fresh):
    x = static.data('x', shape=[None, 3], dtype='float64')
    J = fluxgrad.incubate.autograd.Jacobian(lambda v: fluxgrad.sin(v) * 2, x, is_batched=True)
    exe = static.Executor()
    for n in (1, 5):
        xv = np.random.default_rng(n).standard_normal((n, 3))
        jac, = exe.run(feed={'x': xv}, fetch_list=[J[:]])
        np.testing.assert_allclose(jac, np.stack([np.diag(2 * np.cos(r)) for r in xv]))


def test_conv_layer_in_static_mode_matches_eager_for_two_batch_sizes(fresh):
    x = static.data('x', shape=[None, 1, 6, 6], dtype='float32')
    conv = fluxgrad.nn.Conv2d(1, 2, 3, padding=1)
    y = fluxgrad.nn.functional.relu(conv(x)).mean(axis=(1, 2, 3))
    g, = static.gradients([y.sum()], [conv.weight])
    exe = static.Executor()
    exe.run(static.default_startup_program())
    scope = static.global_scope()
    weight = scope.find_var(conv.weight.name).get_tensor()
    bias = scope.find_var(conv.bias.name).get_tensor()
    for n in (2, 5):
        xv = np.random.default_rng(n).standard_normal((n, 1, 6, 6)).astype(np.float32)
        y_v, g_v = exe.run(feed={'x': xv}, fetch_list=[y, g])
        fluxgrad.disable_static()
        w = fluxgrad.tensor(weight, requires_grad=True)
        y_e = fluxgrad.nn.functional.relu(fluxgrad.nn.functional.conv2d(
            fluxgrad.tensor(xv), w, fluxgrad.tensor(bias), padding=1)).mean(axis=(1, 2, 3))
        g_e, = fluxgrad.autograd.grad(y_e.sum(), w)
        fluxgrad.enable_static()
        np.testing.assert_allclose(y_v, y_e.detach().numpy(), rtol=1e-5, atol=1e-6)
        np.testing.assert_allclose(g_v, g_e.detach().numpy(), rtol=1e-5, atol=1e-6)


def test_input_spec_keeps_shape_dtype_and_name():
    spec = static.InputSpec([None, 3], 'float32', name='x')
    assert spec.shape == (None, 3) and spec.dtype == fluxgrad.float32 and spec.name == 'x'
    assert "shape=[None, 3]" in repr(spec)


def test_unknown_sizes_print_by_name_and_work_in_shape_arithmetic(fresh):
    x = static.data('x', shape=[None, 3], dtype='float32')
    assert repr(x.shape) == "(N0, 3)"
    y = x.reshape(x.shape[0], 3, 1).reshape([x.shape[0], -1])
    w = static.data('w', shape=[4, 2], dtype='float32')
    with pytest.raises(ValueError, match=r"\[N0, 3\] by \[4, 2\]"):
        fluxgrad.matmul(x, w)
    out, = static.Executor().run(feed={'x': np.ones((2, 3), np.float32)}, fetch_list=[y])
    assert out.shape == (2, 3)


@pytest.mark.parametrize("stat", [lambda x: x.var(0), lambda x: x.std(0, keepdim=True),
                                  lambda x: x.var(), lambda x: x.std(correction=2),
                                  lambda x: x.var(0, unbiased=False)],
                         ids=["var0", "std0_keepdim", "var_all", "std_correction2", "var_biased"])
def test_variance_over_an_unknown_batch_size_divides_by_the_fed_size(program, stat):
    torch = pytest.importorskip("torch")
    x = static.data("x", shape=[None, 3], dtype="float64")
    out = stat(x)
    grad = static.grad(out.sum(), [x])[0]
    for n in (4, 7):
        x0 = np.random.default_rng(n).standard_normal((n, 3))
        got, got_grad = static.Executor().run(program, feed={"x": x0}, fetch_list=[out, grad])
        tx = torch.tensor(x0, requires_grad=True)
        want = stat(tx)
        want.sum().backward()
        np.testing.assert_allclose(got, want.detach().numpy(), rtol=1e-12)
        np.testing.assert_allclose(got_grad, tx.grad.numpy(), rtol=1e-10, atol=1e-12)


def test_like_constructors_of_a_variable_take_the_fed_batch_size(program):
    x = static.data("x", shape=[None, 2], dtype="float32")
    outs = [fluxgrad.ones_like(x).sum(), fluxgrad.zeros_like(x).shape[1] + x.sum() * 0,
            fluxgrad.full_like(x, 3.0).sum(), (fluxgrad.empty_like(x) * 0).sum()]
    for n in (3, 5):
        got = static.Executor().run(program, feed={"x": np.ones((n, 2), np.float32)},
                                    fetch_list=outs)
        assert [float(v) for v in got] == [2.0 * n, 2.0, 6.0 * n, 0.0]


def test_python_arithmetic_with_an_unknown_size_is_rebound_when_the_program_runs(program):
    torch = pytest.importorskip("torch")
    x = static.data("x", shape=[None, 3], dtype="float64")
    outs = [x / x.shape[0], fluxgrad.cumsum(x, 0) * x.shape[0], fluxgrad.cov(x.T)]
    for n in (4, 9):
        x0 = np.random.default_rng(n).standard_normal((n, 3))
        got = static.Executor().run(program, feed={"x": x0}, fetch_list=outs)
        np.testing.assert_allclose(got[0], x0 / n, rtol=1e-12)
        np.testing.assert_allclose(got[1], np.cumsum(x0, 0) * n, rtol=1e-12)
        np.testing.assert_allclose(got[2], torch.cov(torch.tensor(x0).T).numpy(), rtol=1e-10)


def test_gradients_over_an_unknown_size_have_the_size_fed(program):
    # rules that made arrays of the stand-in size: max(dim)'s positions, a piecewise constant
    # op's zero gradient; std's sqrt(N) was computed from the stand-in size
    x = static.data("x", shape=[None, 2], dtype="float64")
    losses = [x.max(0).values.sum(), (x.floor() + x * 2).sum(), x.std(0, correction=0).sum()]
    grads = [static.grad(loss, [x])[0] for loss in losses]
    for size in (3, 6):
        x0 = np.random.default_rng(size).standard_normal((size, 2))
        got = static.Executor().run(program, feed={"x": x0}, fetch_list=losses + grads)
        hit = np.zeros((size, 2))
        hit[x0.argmax(0), [0, 1]] = 1
        std = x0.std(0)
        np.testing.assert_allclose(got[0], x0.max(0).sum(), rtol=1e-12)
        np.testing.assert_allclose(got[2], std.sum(), rtol=1e-12)
        np.testing.assert_array_equal(got[3], hit)
        np.testing.assert_array_equal(got[4], np.full((size, 2), 2.0))
        np.testing.assert_allclose(got[5], (x0 - x0.mean(0)) / (size * std), rtol=1e-10)


def test_numbers_computed_from_an_unknown_size_in_python_are_recomputed_at_run_time(program):
    x = static.data("x", shape=[None, 3], dtype="float64")
    n = x.shape[0]
    outs = [x.sum() / (n - 1), x * (1 / n), x.sum() * (n / 2 + 1) ** 2, x[:, :1] * (2 - n)]
    for size in (4, 9):
        x0 = np.random.default_rng(size).standard_normal((size, 3))
        got = static.Executor().run(program, feed={"x": x0}, fetch_list=outs)
        np.testing.assert_allclose(got[0], x0.sum() / (size - 1), rtol=1e-12)
        np.testing.assert_allclose(got[1], x0 / size, rtol=1e-12)
        np.testing.assert_allclose(got[2], x0.sum() * (size / 2 + 1) ** 2, rtol=1e-12)
        np.testing.assert_allclose(got[3], x0[:, :1] * (2 - size), rtol=1e-12)


def test_batch_norm_in_training_mode_updates_its_running_statistics_at_each_run(fresh):
    torch = pytest.importorskip("torch")
    main, startup = fresh
    rng = np.random.default_rng(0)
    batches = [rng.standard_normal((n, 3, 4, 4)).astype(np.float32) for n in (5, 8, 2)]
    eager = torch.nn.BatchNorm2d(3)
    for b in batches:
        eager(torch.tensor(b))
    layer = fluxgrad.nn.BatchNorm2d(3)
    x = static.data("x", [None, 3, 4, 4], "float32")
    y = layer(x)
    loss = (y * y).mean()
    fluxgrad.optimizer.SGD(learning_rate=0.0).minimize(loss)
    exe = static.Executor()
    exe.run(startup)
    for b in batches:
        out, = exe.run(main, feed={"x": b}, fetch_list=[y])
        np.testing.assert_allclose(out, torch.nn.functional.batch_norm(
            torch.tensor(b), None, None, training=True).numpy(), rtol=1e-5, atol=1e-5)
    scope = static.global_scope()
    for name in ("running_mean", "running_var", "num_batches_tracked"):
        got = scope.find_var(getattr(layer, name).name).get_tensor()
        np.testing.assert_allclose(got, getattr(eager, name).numpy(), rtol=1e-5)


def test_a_program_that_squeezes_an_unknown_axis_refuses_a_size_of_1(fresh):
    main, _ = fresh
    x = static.data("x", [None, 2], "float64")
    y = x.squeeze(0) * 2  # the stand-in size isn't 1: nothing is squeezed
    exe = static.Executor()
    np.testing.assert_array_equal(exe.run(main, feed={"x": np.ones((3, 2))}, fetch_list=[y])[0],
                                  np.full((3, 2), 2.0))
    with pytest.raises(ValueError, match="N0 is not 1"):
        exe.run(main, feed={"x": np.ones((1, 2))}, fetch_list=[y])
    other = static.Program()  # a program that doesn't squeeze takes size 1 as usual
    with static.program_guard(other, static.Program()):
        w = static.data("w", [None, 2], "float64")
        total = (w * 3).sum(0)
    np.testing.assert_array_equal(exe.run(other, feed={"w": np.ones((1, 2))},
                                          fetch_list=[total])[0], [3.0, 3.0])
