"""Static programs with sizes that depend on the data (`x[x > 0]`, masked_select, nonzero,
argwhere, where(condition), unique, unique_consecutive): each such size is an unknown size of
its own (U0, U1, ...), bound when the Executor runs the op; the values, shapes and gradients of
the op and of the ops after it match PyTorch at fed values that select different numbers of
entries (none among them). The ops that read values a program can't stage (bincount, whose
size is the largest value, and histc) refuse while it is built."""
import numpy as np
import pytest
import torch

import fluxgrad as fg
from fluxgrad import static

W = np.arange(6.0).reshape(3, 2) / 7.0
FEEDS = (np.random.default_rng(0).standard_normal((4, 3)),
         np.random.default_rng(1).standard_normal((4, 3)),
         -np.abs(np.random.default_rng(2).standard_normal((4, 3))) - 0.1,  # selects nothing
         np.abs(np.random.default_rng(3).standard_normal((4, 3))) + 0.1)  # selects everything


def _build(build, shape=(4, 3)):
    """`build(fg, x)` staged over x (float64 of `shape`, None for unknown) with the gradient of
    the sum of its output: (program, x, output, gradient)."""
    main = static.Program()
    fg.enable_static()
    try:
        with static.program_guard(main, static.Program()):
            x = static.data("x", list(shape), "float64")
            x.stop_gradient = False
            out = build(fg, x)
            g, = static.gradients([out.sum()], [x])
    finally:
        fg.disable_static()
    return main, x, out, g


def _torch(build, a):
    t = torch.tensor(a, requires_grad=True)
    out = build(torch, t)
    out.sum().backward()
    return out.detach().numpy(), t.grad.numpy()


CASES = {
    "sum": lambda m, x: (x[x > 0] ** 2).sum(),
    "mean": lambda m, x: x[x > 0].mean() * 3,
    "masked_select": lambda m, x: m.masked_select(x, x > 0.5) * 2,
    "rows_matmul": lambda m, x: x[x[:, 0] > 0] @ m.tensor(W),
    "broadcast_with_itself": lambda m, x: x[x > 0][:, None] * x[x > 0][None, :],
    "cat_with_fixed": lambda m, x: m.cat([x[x > 0], m.ones(2, dtype=m.float64)]),
    "rows_reshape_bound": lambda m, x: x[x[:, 1] > 0].reshape(-1, 3).reshape(-1),
    "sum_over_dim": lambda m, x: x[x[:, 0] > 0].sum(0) + x[x[:, 2] > 0].sum(1).sum(),
    "second_mask_of_the_selection": lambda m, x: (x[x > 0][x[x > 0] > 0.5] * 3).exp(),
    "scatter_back": lambda m, x: m.where(x > 0, x, 0.0).index_put((x > 0,), x[x > 0] ** 2),
    "index_by_nonzero": lambda m, x: x[m.nonzero(x > 0)[:, 0], m.nonzero(x > 0)[:, 1]] * 2,
    "index_by_where": lambda m, x: x[m.where(x > 0.3)].exp(),
    "rows_by_argwhere": lambda m, x: x[m.argwhere(x[:, 0] > 0)[:, 0]] @ m.tensor(W),
}


@pytest.mark.parametrize("name", sorted(CASES))
def test_data_dependent_size_matches_torch_at_every_count(name):
    build = CASES[name]
    main, x, out, g = _build(build)
    exe = static.Executor()
    for a in FEEDS:
        got, got_g = exe.run(main, feed={"x": a}, fetch_list=[out, g])
        want, want_g = _torch(build, a)
        assert got.shape == want.shape
        np.testing.assert_allclose(got, want, rtol=1e-12, atol=1e-12)
        np.testing.assert_allclose(got_g, want_g, rtol=1e-12, atol=1e-12)


def test_selection_gets_a_size_of_its_own_and_the_same_mask_the_same_size():
    main, x, out, g = _build(lambda m, x: x[x > 0])
    assert str(out.shape) == "(U0,)"
    fg.enable_static()
    try:
        with static.program_guard(main, static.Program()):
            again, other = x[x > 0], x[x < 0]
    finally:
        fg.disable_static()
    assert out.dims == again.dims != other.dims


def test_op_staged_for_a_larger_selection_refuses_a_smaller_one_at_run_time():
    build = lambda m, x: x[x > 0][:2] * 5  # staged as 2 entries (as for `static.data` sizes)
    main, x, out, g = _build(build)
    exe = static.Executor()
    got, = exe.run(main, feed={"x": FEEDS[0]}, fetch_list=[out])
    np.testing.assert_allclose(got, _torch(build, FEEDS[0])[0])
    with pytest.raises(ValueError, match=r"slice .* gives shape \[0\] for the sizes fed \(U0=0\)"):
        exe.run(main, feed={"x": FEEDS[2]}, fetch_list=[out])


def test_unknown_batch_and_selection_combine():
    build = lambda m, x: (x[x > 0] * 2).sum() + x.sum()
    main, x, out, g = _build(build, shape=(None, 3))
    exe = static.Executor()
    for n in (0, 1, 2, 5):
        a = np.random.default_rng(n).standard_normal((n, 3))
        got, got_g = exe.run(main, feed={"x": a}, fetch_list=[out, g])
        want, want_g = _torch(build, a)
        np.testing.assert_allclose(got, want, rtol=1e-12, atol=1e-12)
        np.testing.assert_allclose(got_g, want_g, rtol=1e-12)


def test_size_of_a_selection_feeds_a_later_op():
    build = lambda m, x: m.zeros(x[x > 0].shape[0], 2, dtype=m.float64) + x.sum()
    main, x, out, g = _build(build)
    exe = static.Executor()
    for a in FEEDS:
        got, = exe.run(main, feed={"x": a}, fetch_list=[out])
        want, _ = _torch(build, a)
        assert got.shape == want.shape == (int((a > 0).sum()), 2)
        np.testing.assert_allclose(got, want)


def test_reshape_of_a_selection_into_rows_of_a_known_size_is_refused_at_build():
    with pytest.raises(ValueError, match="reshape"):
        _build(lambda m, x: x[x > 0].reshape(-1, 3))


def test_append_backward_through_a_selection():
    main, startup = static.Program(), static.Program()
    fg.enable_static()
    try:
        with static.program_guard(main, startup):
            x = static.data("x", [4, 3], "float64")
            w = static.create_parameter([1, 3], "float64", name="w_dd")
            loss = ((x * w)[x > 0] ** 2).sum()
            (p, w_bar), = static.append_backward(loss)
    finally:
        fg.disable_static()
    exe = static.Executor()
    exe.run(startup)
    w_value = static.global_scope().values["w_dd"]
    for a in FEEDS:
        got, = exe.run(main, feed={"x": a}, fetch_list=[w_bar])
        t = torch.tensor(w_value, requires_grad=True)
        ta = torch.tensor(a)
        ((ta * t)[ta > 0] ** 2).sum().backward()
        np.testing.assert_allclose(got, t.grad.numpy(), rtol=1e-12)


@pytest.mark.parametrize("name", ["nonzero", "argwhere", "where"])
def test_positions_of_nonzero_entries_match_torch_at_every_count(name):
    build = {"nonzero": lambda m, x: m.nonzero(x > 0),
             "argwhere": lambda m, x: m.argwhere(x > 0.5),
             "where": lambda m, x: m.stack(m.where(x < 0))}[name]
    main = static.Program()
    fg.enable_static()
    try:
        with static.program_guard(main, static.Program()):
            out = build(fg, static.data("x", [4, 3], "float64"))
    finally:
        fg.disable_static()
    assert str(out.dims) in ("(U0, 2)", "(2, U0)")
    exe = static.Executor()
    for a in FEEDS:
        got, = exe.run(main, feed={"x": a}, fetch_list=[out])
        want = build(torch, torch.tensor(a)).numpy()
        assert got.dtype == want.dtype and got.shape == want.shape
        np.testing.assert_array_equal(got, want)


@pytest.mark.parametrize("op", ["unique", "unique_consecutive"])
@pytest.mark.parametrize("dim", [None, 0])
def test_unique_values_inverse_and_counts_match_torch_at_every_count(op, dim):
    def build(m, x):
        values, inverse, counts = getattr(m, op)((x * 2).round(), return_inverse=True,
                                                 return_counts=True, dim=dim)
        weighted = values * (counts if dim is None else counts[:, None])
        return values, inverse, counts, weighted.sum(0) + values.shape[0]
    main = static.Program()
    fg.enable_static()
    try:
        with static.program_guard(main, static.Program()):
            outs = build(fg, static.data("x", [4, 3], "float64"))
    finally:
        fg.disable_static()
    assert outs[0].dims[0] is outs[2].dims[0]  # values and counts: one size
    exe = static.Executor()
    for a in FEEDS + (np.zeros((4, 3)), np.repeat(FEEDS[0][:1], 4, 0)):
        got = exe.run(main, feed={"x": a}, fetch_list=list(outs))
        for g, w in zip(got, build(torch, torch.tensor(a))):
            w = np.asarray(w)
            assert g.dtype == w.dtype and g.shape == w.shape
            np.testing.assert_allclose(g, w)


@pytest.mark.parametrize("name, build", [
    ("bincount", lambda x: fg.bincount((x[:, 0] > 0).long())),
    ("histc", lambda x: fg.histc(x, 4)),
])
def test_op_whose_size_the_program_cannot_stage_is_refused_at_build(name, build):
    fg.enable_static()
    try:
        with static.program_guard(static.Program(), static.Program()):
            x = static.data("x", [4, 3], "float64")
            with pytest.raises(NotImplementedError, match=f"{name}.* reads the values"):
                build(x)
    finally:
        fg.disable_static()


@pytest.mark.parametrize("build", [
    lambda m, x: m.nonzero(x > 0),
    lambda m, x: m.stack(m.where(x > 0)) * 2,
    lambda m, x: m.unique((x * 2).round(), return_counts=True)[1],
    lambda m, x: (x[x > 0].reshape(-1, 1) * m.ones(1, 2, dtype=m.float64)).sum(0),
])
def test_compile_runs_a_data_dependent_size_eagerly_and_fullgraph_refuses_it(build):
    compiled = fg.compile(lambda x: build(fg, x))
    with pytest.warns(RuntimeWarning, match="depends on the values"):
        compiled(fg.tensor(FEEDS[0]))
    for a in FEEDS:
        got = compiled(fg.tensor(a))  # (eagerly, from the first call on)
        want = build(torch, torch.tensor(a)).numpy()
        assert got.shape == want.shape
        np.testing.assert_allclose(got.numpy(), want)
    with pytest.raises(Exception, match="depends on the values"):
        fg.compile(lambda x: build(fg, x), fullgraph=True)(fg.tensor(FEEDS[0]))


def test_branches_selecting_alike_give_one_size():
    main = static.Program()
    fg.enable_static()
    try:
        with static.program_guard(main, static.Program()):
            x = static.data("x", [4, 3], "float64")
            out = static.nn.cond(x.sum() > 0, lambda: x[x > 0], lambda: x[x > 0] * 2)
            total = out.sum() + out.shape[0]
    finally:
        fg.disable_static()
    exe = static.Executor()
    for a in FEEDS + (FEEDS[0] - 1,):
        got, got_total = exe.run(main, feed={"x": a}, fetch_list=[out, total])
        want = a[a > 0] * (1 if a.sum() > 0 else 2)
        np.testing.assert_allclose(got, want)
        np.testing.assert_allclose(got_total, want.sum() + want.size)


def test_repeat_interleave_by_repeats_of_the_program_is_refused_at_build():
    fg.enable_static()
    try:
        with static.program_guard(static.Program(), static.Program()):
            x = static.data("x", [4, 3], "float64")
            with pytest.raises(RuntimeError, match="no value until an Executor runs"):
                fg.repeat_interleave(x, (x[:, 0] > 0).long(), dim=0)
    finally:
        fg.disable_static()
