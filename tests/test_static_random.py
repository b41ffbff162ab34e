"""Random ops that stage: draws in static programs and in functions compiled by fluxgrad.compile
are equations whose numbers are drawn at every Executor run / compiled call, from fluxgrad's
generators, so `manual_seed` repeats them and a seed gives eager mode's numbers.

Expected values come from eager mode under the same seed (its draws are NumPy's own calls,
unchanged by staging), from closed forms (dropout's gradient is its mask over 1 - p), or
from the draws' definitions (a permutation, a one-hot row)."""
import numpy as np
import pytest

import fluxgrad
from fluxgrad import Tensor, static
from fluxgrad.static import passes
from fluxgrad.static.transforms import grad as static_grad

F = fluxgrad.nn.functional


@pytest.fixture
def static_mode():
    main, startup = static.Program(), static.Program()
    fluxgrad.enable_static()
    try:
        with static.program_guard(main, startup):
            yield main
    finally:
        fluxgrad.disable_static()


def _run(program, feed, fetch):
    return static.Executor().run(program, feed=feed, fetch_list=fetch)


# --- static programs ----------------------------------------------------------------------
def test_a_static_dropout_draws_a_new_mask_at_every_run_and_manual_seed_repeats_them(
        static_mode):
    x = static.data("x", shape=(8, 16), dtype="float32")
    y = F.dropout(x, 0.5)
    feed = {"x": np.ones((8, 16), np.float32)}
    fluxgrad.manual_seed(3)
    first, = _run(static_mode, feed, [y])
    second, = _run(static_mode, feed, [y])
    fluxgrad.manual_seed(3)
    again, = _run(static_mode, feed, [y])
    assert set(np.unique(first)) == {0.0, 2.0}
    assert not np.array_equal(first, second)
    np.testing.assert_array_equal(first, again)


def test_a_static_program_draws_the_numbers_eager_mode_draws_with_the_same_seed(static_mode):
    x = static.data("x", shape=(3, 4), dtype="float64")
    def draws(x):
        return [F.dropout(x, 0.3), fluxgrad.rand(2), fluxgrad.randn(2, 2),
                fluxgrad.randint(0, 7, (5,)), fluxgrad.randperm(6),
                fluxgrad.bernoulli(x * 0.0 + 0.5), fluxgrad.multinomial(x * 0.0 + 1.0, 2),
                fluxgrad.normal(x, 2.0), fluxgrad.poisson(x), (x * 1.0).exponential_()]
    feed = {"x": np.arange(12.0).reshape(3, 4)}
    fetch = draws(x)
    fluxgrad.manual_seed(11)
    staged = _run(static_mode, feed, fetch)
    fluxgrad.disable_static()
    fluxgrad.manual_seed(11)
    eager = draws(Tensor(feed["x"]))
    fluxgrad.enable_static()
    for s, e in zip(staged, eager):
        assert s.dtype == e.numpy().dtype
        np.testing.assert_array_equal(s, e.numpy())


def test_an_unknown_batch_size_is_drawn_at_its_run_time_size(static_mode):
    x = static.data("x", shape=(None, 4), dtype="float32")
    y = F.dropout(x, 0.5)
    perm = fluxgrad.randperm(x.shape[0])
    for n in (2, 7):
        out, p = _run(static_mode, {"x": np.ones((n, 4), np.float32)}, [y, perm])
        assert out.shape == (n, 4) and set(np.unique(out)) <= {0.0, 2.0}
        assert sorted(p.tolist()) == list(range(n))


@pytest.mark.parametrize("prim", [False, True], ids=["prim_off", "prim_on"])
def test_the_static_gradient_through_dropout_is_its_mask_over_keep(static_mode, prim):
    x = static.data("x", shape=(6, 5), dtype="float64")
    w = static.data("w", shape=(6, 5), dtype="float64")
    y = F.dropout(x, 0.25)
    loss = (y * w).sum()
    g = static_grad(loss, x, prim=prim)
    rng = np.random.default_rng(0)
    feed = {"x": rng.uniform(1.0, 2.0, (6, 5)), "w": rng.standard_normal((6, 5))}
    for _ in range(2):  # a new mask each run, and the gradient follows it
        out, grad = _run(static_mode, feed, [y, g])
        mask = out != 0
        assert 0 < mask.sum() < mask.size
        np.testing.assert_allclose(grad, mask * feed["w"] / 0.75, rtol=1e-12)


def test_a_draw_in_a_while_loop_body_is_new_at_every_iteration(static_mode):
    x = static.data("x", shape=(3,), dtype="float64")
    _, total = static.nn.while_loop(
        lambda i, s: i < 4, lambda i, s: [i + 1, s + fluxgrad.rand(3, dtype="float64")],
        [fluxgrad.zeros([1], dtype="int64"), x])
    fluxgrad.manual_seed(6)
    staged, = _run(static_mode, {"x": np.zeros(3)}, [total])
    fluxgrad.disable_static()
    fluxgrad.manual_seed(6)
    expected = sum(fluxgrad.rand(3, dtype="float64").numpy() for _ in range(4))
    fluxgrad.enable_static()
    np.testing.assert_allclose(staged, expected, rtol=1e-15)


def test_draws_are_never_folded_merged_or_dropped_by_the_passes(static_mode):
    a, b = fluxgrad.rand(3), fluxgrad.rand(3)
    fluxgrad.randn(4)  # unused, but it moves the generator, as in eager mode
    after = passes.optimize(static_mode, [a, b])
    names = [eq.prim.name for eq in after.equations]
    assert names.count("random_uniform") == 2 and names.count("random_normal") == 1
    fluxgrad.manual_seed(0)
    first, second = _run(after, {}, [a, b])
    assert not np.array_equal(first, second)


def test_an_in_place_sampler_on_a_variable_stages_its_draw(static_mode):
    x = static.data("x", shape=(3, 4), dtype="float32")
    y = x * 1.0
    y.uniform_(-1.0, 1.0)
    z = y + x
    feed = {"x": np.zeros((3, 4), np.float32)}
    first, = _run(static_mode, feed, [z])
    second, = _run(static_mode, feed, [z])
    assert np.all(first >= -1) and np.all(first < 1) and not np.array_equal(first, second)


def test_an_in_place_sampler_on_a_concrete_tensor_while_building_is_a_clear_error(static_mode):
    t = fluxgrad.zeros(3)
    with pytest.raises(NotImplementedError, match="normal_.*drawn once"):
        t.normal_()
    np.testing.assert_array_equal(t.numpy(), np.zeros(3))


def test_bad_probabilities_fed_at_run_time_raise_naming_the_op(static_mode):
    p = static.data("p", shape=(3,), dtype="float64")
    y = fluxgrad.bernoulli(p)
    assert set(_run(static_mode, {"p": np.array([0.0, 1.0, 1.0])}, [y])[0]) <= {0.0, 1.0}
    with pytest.raises(RuntimeError, match=r"random_bernoulli.*\[0, 1\]"):
        _run(static_mode, {"p": np.array([0.5, 1.5, 0.0])}, [y])


def test_paddle_uniform_with_a_seed_repeats_at_every_run(static_mode):
    u = fluxgrad.uniform([4], min=-3.0, max=3.0, seed=9)
    first, = _run(static_mode, {}, [u])
    second, = _run(static_mode, {}, [u])
    np.testing.assert_array_equal(first, second)
    np.testing.assert_array_equal(first, np.random.default_rng(9).uniform(-3, 3, 4)
                                  .astype(np.float32))


def test_a_generator_argument_is_read_at_every_run(static_mode):
    g = fluxgrad.Generator().manual_seed(4)
    r = fluxgrad.randn(5, generator=g)
    first, = _run(static_mode, {}, [r])
    g.manual_seed(4)
    again, = _run(static_mode, {}, [r])
    np.testing.assert_array_equal(first, again)


# --- fluxgrad.compile -----------------------------------------------------------------------
def test_compiled_dropout_in_train_mode_draws_new_numbers_at_every_call():
    f = fluxgrad.compile(lambda x: F.dropout(x, 0.5))
    x = Tensor(np.ones((8, 8)))
    first, second = f(x).numpy(), f(x).numpy()
    assert f.trace_count == 1
    assert set(np.unique(first)) == {0.0, 2.0} and not np.array_equal(first, second)


def test_compiled_dropout_module_in_eval_mode_is_the_identity():
    layer = fluxgrad.nn.Dropout(0.5)
    layer.eval()
    f = fluxgrad.compile(lambda x: layer(x) * 1.0)
    x = Tensor(np.random.default_rng(0).standard_normal((4, 3)))
    np.testing.assert_array_equal(f(x).numpy(), x.numpy())
    assert "random" not in f.code


@pytest.mark.parametrize("requires_grad", [False, True], ids=["no_grad", "grad"])
def test_compiled_calls_draw_eager_modes_numbers_with_the_same_seed(requires_grad):
    def step(x):
        noise = fluxgrad.randn(3)  # unused: it still moves the generator
        return F.dropout(x, 0.4) * fluxgrad.rand(4) + noise.sum() * 0.0 + fluxgrad.randn(4)
    f = fluxgrad.compile(step)
    x = Tensor(np.arange(1.0, 13.0).reshape(3, 4), requires_grad=requires_grad)
    fluxgrad.manual_seed(21)
    eager = [step(x).detach().numpy() for _ in range(3)]
    fluxgrad.manual_seed(21)
    compiled = [f(x).detach().numpy() for _ in range(3)]  # the first call traces
    for e, c in zip(eager, compiled):
        np.testing.assert_array_equal(c, e)


def test_the_gradient_through_compiled_dropout_is_its_mask_over_keep():
    f = fluxgrad.compile(lambda x, w: (F.dropout(x, 0.25) * w).sum())
    rng = np.random.default_rng(2)
    x = Tensor(rng.uniform(1, 2, (5, 6)), requires_grad=True)
    w = Tensor(rng.standard_normal((5, 6)))
    for _ in range(3):
        fluxgrad.manual_seed(_)
        mask = F.dropout(Tensor(np.ones((5, 6))), 0.25).numpy() != 0  # eager's mask for the seed
        fluxgrad.manual_seed(_)
        g, = fluxgrad.grad(f(x, w), [x])
        np.testing.assert_allclose(g.numpy(), mask * w.numpy() / 0.75, rtol=1e-12)


def test_compiled_func_grad_of_a_dropout_loss_matches_eager_under_the_same_seed():
    grad_f = fluxgrad.func.grad(lambda x: (F.dropout(x, 0.5) ** 2).sum())
    compiled = fluxgrad.compile(grad_f)
    x = Tensor(np.arange(1.0, 9.0))
    for seed in range(3):
        fluxgrad.manual_seed(seed)
        expected = grad_f(x).numpy()
        fluxgrad.manual_seed(seed)
        np.testing.assert_array_equal(compiled(x).numpy(), expected)
    assert compiled.trace_count == 1


def test_double_backward_through_compiled_dropout_uses_the_forwards_mask():
    def f(x):
        return (F.dropout(x, 0.5) ** 3).sum()
    x0 = np.random.default_rng(5).uniform(0.5, 1.5, (4, 4))
    results = []
    for fn in (f, fluxgrad.compile(f)):
        fluxgrad.manual_seed(8)
        x = Tensor(x0, requires_grad=True)
        g, = fluxgrad.grad(fn(x), [x], create_graph=True)
        fluxgrad.randn(10)  # the generator moves on between forward and second backward
        h, = fluxgrad.grad(g.sum(), [x])
        results.append((g.detach().numpy(), h.numpy()))
    (g_eager, h_eager), (g_comp, h_comp) = results
    np.testing.assert_allclose(g_comp, g_eager, rtol=1e-12)
    np.testing.assert_allclose(h_comp, h_eager, rtol=1e-12)
    assert np.any(h_eager == 0) and np.any(h_eager != 0)


def test_numbers_drawn_by_numpy_directly_while_tracing_are_refused_not_frozen():
    fluxgrad.manual_seed(5)
    state = fluxgrad.get_rng_state()
    # nn.init draws with NumPy
    f = fluxgrad.compile(lambda x: fluxgrad.nn.Linear(3, 2)(x), fullgraph=True)
    with pytest.raises(NotImplementedError, match="outside fluxgrad's random ops"):
        f(Tensor(np.ones((1, 3), np.float32)))
    assert fluxgrad.equal(fluxgrad.get_rng_state(), state)


def test_check_true_compares_a_random_function_under_the_same_draws():
    f = fluxgrad.compile(lambda x: x + fluxgrad.rand(3), check=True)
    fluxgrad.manual_seed(1)
    got = f(Tensor(np.zeros(3))).numpy()
    fluxgrad.manual_seed(1)
    np.testing.assert_array_equal(got, fluxgrad.rand(3).numpy().astype(np.float64))


def test_a_training_step_with_dropout_compiled_matches_eager_step_by_step():
    def make():
        fluxgrad.manual_seed(0)
        return fluxgrad.nn.Sequential(fluxgrad.nn.Linear(6, 16), fluxgrad.nn.ReLU(),
                                      fluxgrad.nn.Dropout(0.3), fluxgrad.nn.Linear(16, 1))
    rng = np.random.default_rng(7)
    x = Tensor(rng.standard_normal((12, 6)).astype(np.float32))
    y = Tensor(rng.standard_normal((12, 1)).astype(np.float32))
    losses = []
    for compiled in (False, True):
        model = make()
        params = dict(model.named_parameters())
        opt = fluxgrad.optim.SGD(params.values(), lr=0.05)

        def loss_fn(params, x, y):
            return ((fluxgrad.func.functional_call(model, params, (x,)) - y) ** 2).mean()
        run = fluxgrad.compile(loss_fn) if compiled else loss_fn
        fluxgrad.manual_seed(99)
        trace = []
        for _ in range(5):
            opt.zero_grad()
            loss = run(params, x, y)
            loss.backward()
            opt.step()
            trace.append(loss.item())
        losses.append(trace)
    np.testing.assert_allclose(losses[1], losses[0], rtol=1e-5)
    assert len(set(losses[0])) == 5
