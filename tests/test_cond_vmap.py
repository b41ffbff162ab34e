"""vmap over `static.nn.cond`: a predicate that differs between the examples runs both
branches on the batch and takes each example's values from its own branch; one that doesn't
keeps a single cond. Eager, static and compiled, values and derivatives (per-example
gradients, jacrev, hessian, gradients of the batched function), branches returning tuples,
a cond inside a while_loop body, float32 and float64, against each example run alone in torch
and torch.func.vmap with torch.where."""
import numpy as np
import pytest

import fluxgrad as fg
from fluxgrad import static
from fluxgrad.static import nn

torch = pytest.importorskip("torch")

RNG = np.random.default_rng(11)
# rows whose sums have both signs: the examples take different branches
XS = np.array([[0.4, -0.3, 0.5], [-1.2, 0.7, -0.6], [0.9, 0.8, -0.1], [-0.2, -0.5, 0.3]])
WV = RNG.uniform(-1, 1, 3)
DTYPES = {"float64": (fg.float64, torch.float64, 1e-10), "float32": (fg.float32, torch.float32,
                                                                     1e-5)}


def _pair(x, w):
    """(sin(x w), sum(exp x)) if sum(x) > 0 else (x x w, cos(x . w)): a cond returning a tuple."""
    return nn.cond(x.sum() > 0, lambda: ((x * w).sin(), x.exp().sum()),
                   lambda: (x * x * w, (x * w).sum().cos()))


def _pair_torch(x, w):
    if float(x.sum()) > 0:
        return (x * w).sin(), x.exp().sum()
    return x * x * w, (x * w).sum().cos()


def _scalar(x, w):
    a, b = _pair(x, w)
    return (a * a).sum() + b * w.sum()


def _scalar_torch(x, w):
    a, b = _pair_torch(x, w)
    return (a * a).sum() + b * w.sum()


def _scalar_torch_where(x, w):
    """The same function for torch.func.vmap: both branches, torch.where choosing."""
    p = x.sum() > 0
    a = torch.where(p, (x * w).sin(), x * x * w)
    b = torch.where(p, x.exp().sum(), (x * w).sum().cos())
    return (a * a).sum() + b * w.sum()


def _per_example(dtype=torch.float64):
    """Each example's (a, b), scalar, gradients in (x, w) and Hessian in x, one at a time."""
    rows = []
    for row in XS:
        x, w = (torch.tensor(v, dtype=dtype, requires_grad=True) for v in (row, WV))
        a, b = _pair_torch(x, w)
        y = _scalar_torch(x, w)
        gx, gw = torch.autograd.grad(y, (x, w))
        h = torch.autograd.functional.hessian(
            lambda t: _scalar_torch(t, torch.tensor(WV, dtype=dtype)), x.detach())
        rows.append([t.detach().numpy() for t in (a, b, y, gx, gw, h)])
    return [np.stack(col) for col in zip(*rows)]


def _close(got, want, rtol):
    for g, w in zip(got, want):
        np.testing.assert_allclose(np.asarray(g.detach().numpy() if isinstance(g, fg.Tensor)
                                              else g), w, rtol=rtol, atol=rtol)


def _maybe_compile(f, mode):
    return fg.compile(f, fullgraph=True) if mode == "compiled" else f


def test_the_examples_take_both_branches():
    assert len({bool(r.sum() > 0) for r in XS}) == 2


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("mode", ["eager", "compiled"])
def test_batched_predicate_takes_each_examples_own_branch(mode, dtype):
    fg_dtype, torch_dtype, rtol = DTYPES[dtype]
    batched = _maybe_compile(fg.func.vmap(_pair, in_dims=(0, None)), mode)
    a, b = batched(fg.tensor(XS, dtype=fg_dtype), fg.tensor(WV, dtype=fg_dtype))
    assert a.dtype == b.dtype == fg_dtype
    want_a, want_b = _per_example(torch_dtype)[:2]
    _close([a, b], [want_a, want_b], rtol)
    y = torch.func.vmap(_scalar_torch_where, in_dims=(0, None))(
        torch.tensor(XS, dtype=torch_dtype), torch.tensor(WV, dtype=torch_dtype))
    scalar = _maybe_compile(fg.func.vmap(_scalar, in_dims=(0, None)), mode)
    _close([scalar(fg.tensor(XS, dtype=fg_dtype), fg.tensor(WV, dtype=fg_dtype))],
           [y.numpy()], rtol)


@pytest.mark.parametrize("mode", ["eager", "compiled"])
def test_per_example_gradients_through_a_batched_predicate(mode):
    grads = _maybe_compile(fg.func.vmap(fg.func.grad(_scalar, argnums=(0, 1)),
                                        in_dims=(0, None)), mode)
    _, _, _, gx, gw, _ = _per_example()
    for _ in range(2):
        _close(grads(fg.tensor(XS), fg.tensor(WV)), [gx, gw], 1e-10)
    tx, tw = torch.func.vmap(torch.func.grad(_scalar_torch_where, argnums=(0, 1)),
                             in_dims=(0, None))(torch.tensor(XS), torch.tensor(WV))
    _close([gx, gw], [tx.numpy(), tw.numpy()], 1e-10)


@pytest.mark.parametrize("mode", ["eager", "compiled"])
def test_gradient_of_the_batched_function_sums_each_examples_own_branch(mode):
    def total(x, w):
        return fg.func.vmap(_scalar, in_dims=(0, None))(x, w).sum()
    gx, gw = _maybe_compile(fg.func.grad(total, argnums=(0, 1)), mode)(fg.tensor(XS),
                                                                         fg.tensor(WV))
    _, _, _, want_gx, want_gw, _ = _per_example()
    _close([gx, gw], [want_gx, want_gw.sum(0)], 1e-10)


@pytest.mark.parametrize("transform", ["jacrev_of_jacrev", "hessian"])
@pytest.mark.parametrize("mode", ["eager", "compiled"])
def test_hessian_of_each_example_through_a_batched_predicate(mode, transform):
    second = fg.func.jacrev(fg.func.jacrev(_scalar)) if transform == "jacrev_of_jacrev" else \
        fg.func.hessian(_scalar)
    hessians = _maybe_compile(fg.func.vmap(second, in_dims=(0, None)), mode)
    _close([hessians(fg.tensor(XS), fg.tensor(WV))], [_per_example()[5]], 1e-10)


@pytest.mark.parametrize("mode", ["eager", "compiled"])
def test_jacrev_through_a_cond_with_one_predicate(mode):
    # jacrev runs the cond's derivative on a batch of cotangents: the predicate is the same
    # for every row, and a single cond stays
    jac = _maybe_compile(fg.func.jacrev(lambda x, w: _pair(x, w)[0]), mode)
    for row in XS:
        want = torch.autograd.functional.jacobian(
            lambda t: _pair_torch(t, torch.tensor(WV))[0], torch.tensor(row))
        _close([jac(fg.tensor(row), fg.tensor(WV))], [want.numpy()], 1e-10)
    if mode == "compiled":
        names = [eq.prim.name for eq in jac.program(fg.tensor(XS[0]), fg.tensor(WV)).equations]
        assert "cond" in names


@pytest.mark.parametrize("mode", ["eager", "compiled"])
def test_unbatched_predicate_keeps_a_single_cond(mode):
    def f(x, w):  # the predicate reads only w, the same for every example
        return nn.cond(w.sum() > 0, lambda: (x * w).sin(), lambda: x * x + w)
    batched = _maybe_compile(fg.func.vmap(f, in_dims=(0, None)), mode)
    for w in (WV, -WV):
        want = np.stack([np.sin(r * w) if w.sum() > 0 else r * r + w for r in XS])
        _close([batched(fg.tensor(XS), fg.tensor(w))], [want], 1e-12)
    if mode == "compiled":
        names = [eq.prim.name for eq in batched.program(fg.tensor(XS), fg.tensor(WV)).equations]
        assert names.count("cond") == 1 and "where" not in names


def test_batched_predicate_in_a_static_program(program):
    x = static.data('x', shape=[4, 3], dtype='float64')
    w = static.data('w', shape=[3], dtype='float64')
    y = fg.func.vmap(_scalar, in_dims=(0, None))(x, w)
    gx, gw = static.gradients([y.sum()], [x, w])
    got = static.Executor().run(feed={'x': XS, 'w': WV}, fetch_list=[y, gx, gw])
    _, _, want_y, want_gx, want_gw, _ = _per_example()
    _close(got, [want_y, want_gx, want_gw.sum(0)], 1e-10)


def test_unbatched_predicate_in_a_static_program_runs_one_cond(program):
    x = static.data('x', shape=[4, 3], dtype='float64')
    w = static.data('w', shape=[3], dtype='float64')
    y = fg.func.vmap(lambda x, w: nn.cond(w.sum() > 0, lambda: (x * w).sin().sum(),
                                          lambda: (x * x).sum() * w.sum()),
                     in_dims=(0, None))(x, w)
    gx, = static.gradients([y.sum()], [x])
    assert [eq.prim.name for eq in program.equations].count("cond") == 2  # value, gradient
    exe = static.Executor()
    for wv in (WV, -WV):
        got = exe.run(feed={'x': XS, 'w': wv}, fetch_list=[y, gx])
        if wv.sum() > 0:
            want = [np.sin(XS * wv).sum(1), np.cos(XS * wv) * wv]
        else:
            want = [(XS * XS).sum(1) * wv.sum(), 2 * XS * wv.sum()]
        _close(got, want, 1e-12)


def _halve(x, w):
    """while |a|^2 > 0.05: a <- a / 2 + 0.1 w sin(a) if sum(a) > 0 else a / 3 - 0.05 w: a cond
    inside the loop body whose predicate differs between the examples (and iterations)."""
    i = fg.zeros((), dtype=fg.int64)
    _, a = nn.while_loop(
        lambda i, a: (a * a).sum() > 0.05,
        lambda i, a: [i + 1, nn.cond(a.sum() > 0, lambda: a * 0.5 + a.sin() * w * 0.1,
                                     lambda: a / 3 - w * 0.05)],
        [i, x])
    return (a * w).sum() + (a * a).sum()


def _halve_torch(x, w):
    a = x
    while float((a * a).sum()) > 0.05:
        a = a * 0.5 + a.sin() * w * 0.1 if float(a.sum()) > 0 else a / 3 - w * 0.05
    return (a * w).sum() + (a * a).sum()


@pytest.mark.parametrize("mode", ["eager", "compiled"])
def test_cond_inside_a_while_loop_body_under_vmap(mode):
    values = _maybe_compile(fg.func.vmap(_halve, in_dims=(0, None)), mode)
    grads = _maybe_compile(fg.func.vmap(fg.func.grad(_halve), in_dims=(0, None)), mode)
    want_y, want_g = [], []
    for row in XS:
        x = torch.tensor(row, requires_grad=True)
        y = _halve_torch(x, torch.tensor(WV))
        want_y.append(y.item())
        want_g.append(torch.autograd.grad(y, x)[0].numpy())
    _close([values(fg.tensor(XS), fg.tensor(WV)), grads(fg.tensor(XS), fg.tensor(WV))],
           [np.array(want_y), np.stack(want_g)], 1e-10)


@pytest.mark.parametrize("mode", ["eager", "compiled"])
def test_the_other_branchs_nan_and_inf_reach_neither_values_nor_gradients(mode):
    def f(x):  # log of a negative number is NaN, 1 / 0 is inf: in the branch not taken
        return nn.cond(x > 0, lambda: x.log() + 1 / x, lambda: x * x)
    values = _maybe_compile(fg.func.vmap(f), mode)
    grads = _maybe_compile(fg.func.vmap(fg.func.grad(f)), mode)
    xs = np.array([2.0, -3.0, 0.0, 0.5])
    taken = np.where(xs > 0, xs, 1.0)
    _close([values(fg.tensor(xs))], [np.where(xs > 0, np.log(taken) + 1 / taken, xs * xs)],
           1e-12)
    # (where the branch not taken has an infinite derivative, at 0 here, its zero cotangent
    # times that derivative is NaN, as with JAX's rule and torch.where: see _select)
    xs = np.array([2.0, -3.0, -0.5, 0.5])
    taken = np.where(xs > 0, xs, 1.0)
    _close([grads(fg.tensor(xs))], [np.where(xs > 0, 1 / taken - 1 / taken ** 2, 2 * xs)],
           1e-12)


def test_a_predicate_of_several_values_per_example_is_refused():
    with pytest.raises(ValueError, match="one value per example"):
        fg.func.vmap(lambda x: nn.cond(x > 0, lambda: x, lambda: -x))(fg.tensor(XS))


@pytest.mark.parametrize("transform", ["jacrev_of_jacrev", "hessian"])
def test_compiled_hessian_through_a_cond_in_a_loop_body(transform):
    # the loop is staged without vmap; its derivatives replay the body, cond equation
    # included, on batches of tangents and cotangents (the cond's batching rule)
    second = fg.func.jacrev(fg.func.jacrev(_halve)) if transform == "jacrev_of_jacrev" else \
        fg.func.hessian(_halve)
    compiled = fg.compile(second, fullgraph=True)
    for row in XS:
        want = torch.autograd.functional.hessian(
            lambda t: _halve_torch(t, torch.tensor(WV)), torch.tensor(row))
        _close([compiled(fg.tensor(row), fg.tensor(WV))], [want.numpy()], 1e-9)


def test_batched_predicate_matches_torch_cond_under_torch_vmap():
    def first_torch_cond(x, w):
        return torch.cond(x.sum() > 0, lambda x, w: (x * w).sin(), lambda x, w: x * x * w,
                          (x, w))
    want = torch.func.vmap(first_torch_cond, in_dims=(0, None))(torch.tensor(XS),
                                                                torch.tensor(WV))
    for mode in ("eager", "compiled"):
        got = _maybe_compile(fg.func.vmap(_pair, in_dims=(0, None)), mode)(fg.tensor(XS),
                                                                            fg.tensor(WV))
        _close([got[0]], [want.numpy()], 1e-12)
