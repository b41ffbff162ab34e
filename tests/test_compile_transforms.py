"""`fluxgrad.compile` of `fluxgrad.func` transforms (vmap and forward mode included), and
`func.vmap` / `jvp` on static Variables: values against eager mode and torch.func; and,
generic over the registry, every op sample's compiled vmap, jvp and forward-over-reverse
(jvp of grad) against eager mode's (a rule that read a Variable's stand-in values would
differ)."""
import numpy as np
import pytest
import torch

import fluxgrad
from fluxgrad import Tensor, func, static
from fluxgrad._core.primitive import REGISTRY
from fluxgrad.func._tree import flatten
from samples import all_samples

rng = np.random.default_rng(0)
W = rng.standard_normal((5, 4)) / 2
X = rng.standard_normal(4)
V = rng.standard_normal(4)
BATCH = rng.standard_normal((6, 4))


def f(x, w):
    return (fluxgrad.tanh(w @ x) ** 2).sum()


def f_torch(x, w):
    return (torch.tanh(w @ x) ** 2).sum()


def g(x, w):
    return (w @ x).sin() * x.sum()


def g_torch(x, w):
    return (w @ x).sin() * x.sum()


def _leaves(result):
    return list(result) if isinstance(result, (tuple, list)) else [result]


def _check(compiled, eager, args, torch_result):
    """compiled(*args) equals eager(*args) and torch's result; a second call with new values
    runs the cached code (no new trace) and still equals eager mode."""
    got = _leaves(compiled(*args))
    want = _leaves(eager(*args))
    expected = _leaves(torch_result)
    assert len(got) == len(want) == len(expected)
    for a, b, t in zip(got, want, expected):
        np.testing.assert_allclose(a.numpy(), b.numpy(), rtol=1e-12, atol=1e-14)
        np.testing.assert_allclose(a.numpy(), t.detach().numpy(), rtol=1e-10, atol=1e-12)
    moved = [Tensor(a.numpy() * 0.7 + 0.1) for a in args]
    for a, b in zip(_leaves(compiled(*moved)), _leaves(eager(*moved))):
        np.testing.assert_allclose(a.numpy(), b.numpy(), rtol=1e-12, atol=1e-14)
    assert compiled.trace_count == 1


def test_compiled_hessian_matches_eager_and_torch():
    eager = func.hessian(f)
    _check(fluxgrad.compile(eager), eager, (Tensor(X), Tensor(W)),
           torch.func.hessian(f_torch)(torch.tensor(X), torch.tensor(W)))


def test_compiled_hessian_of_both_arguments_matches_torch():
    eager = func.hessian(f, argnums=(0, 1))
    want = torch.func.hessian(f_torch, argnums=(0, 1))(torch.tensor(X), torch.tensor(W))
    got = fluxgrad.compile(eager)(Tensor(X), Tensor(W))
    for i in range(2):
        for j in range(2):
            np.testing.assert_allclose(got[i][j].numpy(), want[i][j].numpy(), rtol=1e-10,
                                       atol=1e-12)


@pytest.mark.parametrize("transform", ["jacfwd", "jacrev"])
def test_compiled_jacobians_match_eager_and_torch(transform):
    eager = getattr(func, transform)(g, argnums=(0, 1))
    _check(fluxgrad.compile(eager), eager, (Tensor(X), Tensor(W)),
           getattr(torch.func, transform)(g_torch, argnums=(0, 1))(torch.tensor(X),
                                                                   torch.tensor(W)))


def test_compiled_jvp_matches_eager_and_torch():
    def eager(x, v, w):
        return func.jvp(lambda t: g(t, w), (x,), (v,))
    _check(fluxgrad.compile(eager), eager, (Tensor(X), Tensor(V), Tensor(W)),
           torch.func.jvp(lambda t: g_torch(t, torch.tensor(W)), (torch.tensor(X),),
                          (torch.tensor(V),)))


def test_compiled_hvp_matches_torch_double_backward():
    tx = torch.tensor(X, requires_grad=True)
    gradient, = torch.autograd.grad(f_torch(tx, torch.tensor(W)), tx, create_graph=True)
    hv, = torch.autograd.grad(gradient, tx, torch.tensor(V))
    value = f_torch(torch.tensor(X), torch.tensor(W))

    def eager(x, v, w):
        return func.hvp(lambda t: f(t, w), (x,), (v,))
    _check(fluxgrad.compile(eager), eager, (Tensor(X), Tensor(V), Tensor(W)), (value, hv))


def test_compiled_jvp_of_grad_matches_torch():
    def eager(x, v, w):
        return func.jvp(func.grad(lambda t: f(t, w)), (x,), (v,))
    want = torch.func.jvp(torch.func.grad(lambda t: f_torch(t, torch.tensor(W))),
                          (torch.tensor(X),), (torch.tensor(V),))
    _check(fluxgrad.compile(eager), eager, (Tensor(X), Tensor(V), Tensor(W)), want)


def test_compiled_vmap_with_in_dims_and_out_dims_matches_torch():
    def body(x, w):
        return (w @ x).tanh(), x * 2

    def eager(xs, w):
        return func.vmap(body, in_dims=(1, None), out_dims=(1, 0))(xs, w)
    want = torch.func.vmap(body, in_dims=(1, None), out_dims=(1, 0))(torch.tensor(BATCH.T),
                                                                     torch.tensor(W))
    _check(fluxgrad.compile(eager), eager, (Tensor(BATCH.T), Tensor(W)), want)


def test_compiled_per_sample_gradients_match_torch():
    eager = func.vmap(func.grad(f, argnums=1), in_dims=(0, None))
    want = torch.func.vmap(torch.func.grad(f_torch, argnums=1), in_dims=(0, None))(
        torch.tensor(BATCH), torch.tensor(W))
    _check(fluxgrad.compile(eager), eager, (Tensor(BATCH), Tensor(W)), want)


def test_compiled_nested_vmap_and_forward_over_forward_match_torch():
    def eager(xs, w):
        return func.vmap(func.jacfwd(func.jacfwd(lambda x: g(x, w).sum())))(xs)
    want = torch.func.vmap(torch.func.jacfwd(torch.func.jacfwd(
        lambda x: g_torch(x, torch.tensor(W)).sum())))(torch.tensor(BATCH))
    _check(fluxgrad.compile(eager), eager, (Tensor(BATCH), Tensor(W)), want)


def test_a_cache_hit_runs_the_generated_code_without_tracing():
    compiled = fluxgrad.compile(func.hessian(f))
    compiled(Tensor(X), Tensor(W))
    code = compiled.code
    calls = []
    original = compiled.fn
    compiled.fn = lambda *args: calls.append(args) or original(*args)
    compiled(Tensor(X + 1), Tensor(W))
    assert calls == [] and compiled.trace_count == 1 and compiled.code is code


def test_backward_through_a_compiled_hessian_gives_third_derivatives():
    x = Tensor(X, requires_grad=True)
    fluxgrad.compile(func.hessian(f))(x, Tensor(W)).sum().backward()
    tx = torch.tensor(X, requires_grad=True)
    torch.func.hessian(f_torch)(tx, torch.tensor(W)).sum().backward()
    np.testing.assert_allclose(x.grad.numpy(), tx.grad.numpy(), rtol=1e-10, atol=1e-12)


class _Cube(fluxgrad.autograd.Function):
    @staticmethod
    def forward(ctx, x):
        ctx.save_for_backward(x)
        return x ** 3

    @staticmethod
    def backward(ctx, out_bar):
        x, = ctx.saved_tensors
        return 3 * x ** 2 * out_bar

    @staticmethod
    def jvp(ctx, x_dot):
        x, = ctx.saved_tensors
        return 3 * x ** 2 * x_dot


def test_compiled_hessian_through_a_custom_function_is_its_closed_form():
    got = fluxgrad.compile(func.hessian(lambda x: _Cube.apply(x).sum()))(Tensor(X))
    np.testing.assert_allclose(got.numpy(), np.diag(6 * X), rtol=1e-12, atol=1e-14)


def test_compiled_jvp_through_an_indexed_write_matches_eager():
    def body(x):
        y = x * 1.0
        y[0] = y[1] * 3
        y.mul_(2.0)
        return y.tanh()

    def eager(x, v):
        return func.jvp(body, (x,), (v,))
    want = torch.func.jvp(lambda x: torch.cat([x[1:2] * 6, x[1:] * 2]).tanh(),
                          (torch.tensor(X),), (torch.tensor(V),))
    _check(fluxgrad.compile(eager), eager, (Tensor(X), Tensor(V)), want)


def test_a_compiled_function_under_vmap_and_jvp_runs_its_ops_through_their_rules():
    compiled = fluxgrad.compile(lambda x: x.sin() * 2)
    xs = Tensor(BATCH)
    np.testing.assert_allclose(func.vmap(compiled)(xs).numpy(), np.sin(BATCH) * 2, rtol=1e-14)
    _, dot = func.jvp(compiled, (Tensor(X),), (Tensor(V),))
    np.testing.assert_allclose(dot.numpy(), np.cos(X) * 2 * V, rtol=1e-14)


@pytest.mark.parametrize("use", [lambda kept, xs: kept * 2, lambda kept, xs: xs[0] * kept],
                         ids=["alone", "after-a-variable"])
def test_a_batched_variable_kept_past_its_vmap_is_refused(use):
    kept = []

    def fn(xs):
        func.vmap(lambda x: kept.append(x) or x * 2)(xs)
        return use(kept[0], xs)
    with pytest.raises(RuntimeError, match="after its vmap returned"):
        fluxgrad.compile(fn)(Tensor(BATCH))


@pytest.fixture
def fresh():
    """Static mode on, with fresh default programs and scope; everything restored after."""
    main, startup = static.Program(), static.Program()
    fluxgrad.enable_static()
    try:
        with static.program_guard(main, startup), static.scope_guard(static.Scope()):
            yield main
    finally:
        fluxgrad.disable_static()


def test_static_vmap_and_jvp_of_variables_build_programs_that_match_eager(fresh):
    xs = static.data("xs", shape=(6, 4), dtype="float64")
    x = static.data("x", shape=(4,), dtype="float64")
    v = static.data("v", shape=(4,), dtype="float64")
    w = static.data("w", shape=(5, 4), dtype="float64")
    mapped = func.vmap(g, in_dims=(0, None))(xs, w)
    value, dot = func.jvp(lambda t: g(t, w), (x,), (v,))
    hessian = func.hessian(f)(x, w)
    per_sample = func.vmap(func.grad(f), in_dims=(0, None))(xs, w)
    fetched = static.Executor().run(fresh, feed={"xs": BATCH, "x": X, "v": V, "w": W},
                                    fetch_list=[mapped, value, dot, hessian, per_sample])
    fluxgrad.disable_static()
    tw = Tensor(W)
    want = [func.vmap(g, in_dims=(0, None))(Tensor(BATCH), tw),
            *func.jvp(lambda t: g(t, tw), (Tensor(X),), (Tensor(V),)),
            func.hessian(f)(Tensor(X), tw),
            func.vmap(func.grad(f), in_dims=(0, None))(Tensor(BATCH), tw)]
    for got, expected in zip(fetched, want):
        np.testing.assert_allclose(got, expected.numpy(), rtol=1e-12, atol=1e-14)


def test_static_vmap_over_an_unknown_batch_size_serves_two_sizes(fresh):
    xs = static.data("xs", shape=(None, 4), dtype="float64")
    w = static.data("w", shape=(5, 4), dtype="float64")
    out = func.vmap(func.grad(f), in_dims=(0, None))(xs, w)
    exe = static.Executor()
    for n in (2, 6):
        got, = exe.run(fresh, feed={"xs": BATCH[:n], "w": W}, fetch_list=[out])
        want = torch.func.vmap(torch.func.grad(f_torch), in_dims=(0, None))(
            torch.tensor(BATCH[:n]), torch.tensor(W))
        np.testing.assert_allclose(got, want.numpy(), rtol=1e-10, atol=1e-12)


def test_static_vmap_over_an_unknown_batch_size_repeats_constants_as_often_as_fed(fresh):
    xs = static.data("xs", shape=(None, 4), dtype="float64")
    ones = func.vmap(lambda x: fluxgrad.ones(4, dtype=fluxgrad.float64))(xs)
    jacobians = func.vmap(func.jacrev(lambda x: x.sin() * x.sum()))(xs)
    exe = static.Executor()
    for n in (2, 6):
        got_ones, got_jacobians = exe.run(fresh, feed={"xs": BATCH[:n]},
                                          fetch_list=[ones, jacobians])
        np.testing.assert_array_equal(got_ones, np.ones((n, 4)))
        want = torch.func.vmap(torch.func.jacrev(lambda x: x.sin() * x.sum()))(
            torch.tensor(BATCH[:n]))
        np.testing.assert_allclose(got_jacobians, want.numpy(), rtol=1e-12, atol=1e-14)


def test_static_jacobian_of_an_unknown_size_is_refused_clearly(fresh):
    xs = static.data("xs", shape=(None, 4), dtype="float64")
    with pytest.raises(ValueError, match=r"jacrev: a tensor of shape \[N0, 4\] has an unknown "):
        func.jacrev(lambda t: t.sin())(xs)


def test_static_grad_inside_vmap_wrt_a_shared_variable_is_refused(fresh):
    xs = static.data("xs", shape=(6, 4), dtype="float64")
    w = static.data("w", shape=(5, 4), dtype="float64")
    with pytest.raises(RuntimeError, match="same for every example"):
        func.vmap(lambda x: fluxgrad.autograd.grad((w @ x).sum(), w))(xs)


class _Identity(fluxgrad.autograd.Function):
    @staticmethod
    def forward(ctx, x):
        return x

    @staticmethod
    def backward(ctx, out_bar):
        return out_bar


def test_a_custom_function_returning_its_input_compiles_to_that_input():
    compiled = fluxgrad.compile(lambda x: _Identity.apply(x) * 2)
    np.testing.assert_allclose(compiled(Tensor(X)).numpy(), X * 2, rtol=1e-15)


def test_static_vmap_in_chunks_of_an_unknown_batch_size_is_refused_clearly(fresh):
    xs = static.data("xs", shape=(None, 4), dtype="float64")
    with pytest.raises(ValueError, match="vmap: chunk_size needs a batch of known size"):
        func.vmap(lambda x: x.sin(), chunk_size=2)(xs)


def test_static_vmap_in_chunks_of_a_known_batch_size_matches_eager(fresh):
    xs = static.data("xs", shape=(6, 4), dtype="float64")
    out = func.vmap(lambda x: x.sin() * x.sum(), chunk_size=4)(xs)
    got, = static.Executor().run(fresh, feed={"xs": BATCH}, fetch_list=[out])
    np.testing.assert_allclose(got, np.sin(BATCH) * BATCH.sum(1, keepdims=True), rtol=1e-14)


# samples that write a traced value into a tensor they create are refused by the trace
WRITES_INTO_CONSTANT = ["index_put([2])"]
# and a result whose size depends on the values runs eagerly (tests/test_static_data_dependent.py)
DATA_DEPENDENT_SIZE = {"nonzero", "unique", "unique_consecutive"}
SAMPLES = [s for s in all_samples() if repr(s) not in WRITES_INTO_CONSTANT and
           s.op not in DATA_DEPENDENT_SIZE]


def _assert_same(got, want):
    got, want = flatten(got)[0], flatten(want)[0]
    assert len(got) == len(want)
    for a, b in zip(got, want):
        assert a.dtype == b.dtype and tuple(a.shape) == tuple(b.shape)
        np.testing.assert_allclose(a.numpy(), b.numpy(), rtol=1e-9, atol=1e-11)


@pytest.mark.parametrize("sample", [s for s in SAMPLES if s.vmap], ids=repr)
def test_compiled_vmap_of_every_sample_matches_eager(sample):
    batch = [Tensor(np.stack([np.asarray(a, np.float64) * f for f in (1.0, 0.9, 1.1)]))
             for a in sample.args]
    # (a draw's sample is deterministic; torch.func wants randomness='different' for it)
    mapped = func.vmap(sample.fn, randomness="different" if getattr(
        REGISTRY[sample.op], "draws", False) else "error")
    _assert_same(fluxgrad.compile(mapped, fullgraph=True)(*batch), mapped(*batch))


@pytest.mark.parametrize("sample", [s for s in SAMPLES if REGISTRY[s.op].differentiable and
                                    s.forward], ids=repr)
def test_compiled_jvp_of_every_sample_matches_eager(sample):
    primals = tuple(Tensor(np.asarray(a, np.float64)) for a in sample.args)
    tangents = tuple(Tensor(np.random.default_rng(3).standard_normal(np.shape(a)))
                     for a in sample.args)

    def pushed(*args):
        return func.jvp(sample.fn, args[:len(primals)], args[len(primals):])
    _assert_same(fluxgrad.compile(pushed, fullgraph=True)(*primals, *tangents),
                 pushed(*primals, *tangents))


@pytest.mark.parametrize("sample", [s for s in SAMPLES if REGISTRY[s.op].differentiable and
                                    s.second_order], ids=repr)
def test_compiled_forward_over_reverse_of_every_sample_matches_eager(sample):
    primals = tuple(Tensor(np.asarray(a, np.float64)) for a in sample.args)
    tangents = tuple(Tensor(np.random.default_rng(4).standard_normal(np.shape(a)))
                     for a in sample.args)
    n = len(primals)

    def scalar(*args):
        outs = [o for o in flatten(sample.fn(*args))[0] if o.is_floating_point()]
        return sum((o * o).sum() for o in outs)

    def hvp(*args):
        return func.jvp(func.grad(scalar, argnums=tuple(range(n))), args[:n], args[n:])
    _assert_same(fluxgrad.compile(hvp, fullgraph=True)(*primals, *tangents),
                 hvp(*primals, *tangents))
