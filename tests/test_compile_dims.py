"""fluxgrad.compile's call path: symbolic sizes, guards, and the eager fallback of fullgraph=False.

Expected values come from eager mode (itself checked against PyTorch by the registry tests)
or closed forms."""
import warnings

import numpy as np
import pytest

import fluxgrad
from fluxgrad import Tensor

rng = np.random.default_rng(0)


def _mlp_loss(x, y, w1, w2):
    h = (x @ w1).relu()
    return fluxgrad.nn.functional.cross_entropy(h @ w2, y)


def test_a_hundred_batch_sizes_take_at_most_two_traces_and_match_eager():
    compiled = fluxgrad.compile(_mlp_loss)
    w1, w2 = Tensor(rng.standard_normal((4, 8))), Tensor(rng.standard_normal((8, 3)))
    for n in range(2, 102):
        x, y = Tensor(rng.standard_normal((n, 4))), Tensor(rng.integers(0, 3, n))
        np.testing.assert_allclose(compiled(x, y, w1, w2).item(), _mlp_loss(x, y, w1, w2).item(),
                                   rtol=1e-12)
    assert compiled.trace_count <= 2
    assert compiled.traces[-1].symbolic_dims == ("x.shape[0]", "y.shape[0]")


def test_reshape_and_shape_arithmetic_stay_right_under_symbolic_sizes():
    def f(x, w):
        n = x.shape[0]
        h = x.reshape(-1, 6) @ w
        return h.tanh().sum(0) / n, h.reshape(n, 3).mean(), x.reshape(n, -1).sum(1) * (2 * n)
    compiled = fluxgrad.compile(f)
    w = Tensor(rng.standard_normal((6, 3)))
    for n in (2, 3, 7, 40):
        x = Tensor(rng.standard_normal((n, 2, 3)))
        for got, want in zip(compiled(x, w), f(x, w)):
            np.testing.assert_allclose(got.numpy(), want.numpy(), rtol=1e-12)
    assert compiled.trace_count == 2


@pytest.mark.parametrize("fn", [
    lambda x: x * 2 if x.shape[0] > 4 else x,  # Python control flow on a size
    lambda x: x.sum(0) / (x.shape[0] - 1),  # a size combined other than by multiplication
    lambda x: x.sum(0) / (x.shape[0] - 1) ** 0.5,  # a float computed from a size
    lambda x: x.reshape(-1, 2).sum(1),  # an output size 2N, which can't be staged
], ids=["if_on_size", "size_minus_one", "sqrt_of_size", "reshape_2n"])
def test_a_size_used_in_a_way_the_program_cant_rebind_stays_concrete(fn):
    compiled = fluxgrad.compile(fn)
    for n in (2, 3, 4, 5, 6, 8):
        x = Tensor(rng.standard_normal((n, 4)))
        np.testing.assert_allclose(compiled(x).numpy(), fn(x).numpy(), rtol=1e-12)
    assert compiled.trace_count == 6
    assert "sizes kept concrete" in compiled.traces[1].reason
    assert all(t.symbolic_dims == () for t in compiled.traces)


@pytest.mark.parametrize("fn", [lambda x: x.var(0), lambda x: x.std() * 1.0,
                                lambda x: x.std(0, correction=2)], ids=["var", "std", "std_c2"])
def test_variance_divides_by_a_staged_count_so_the_size_stays_symbolic(fn):
    compiled = fluxgrad.compile(fn)
    for n in (2, 3, 4, 5, 6, 8):
        x = Tensor(rng.standard_normal((n, 4)))
        np.testing.assert_allclose(compiled(x).numpy(), fn(x).numpy(), rtol=1e-12)
    assert compiled.trace_count == 2 and compiled.traces[1].symbolic_dims == ("x.shape[0]",)


def test_a_size_one_broadcasting_flag_change_traces_again():
    compiled = fluxgrad.compile(lambda x, b: x + b)
    x = Tensor(rng.standard_normal((3, 4)))
    for rows in (2, 3, 5):
        b = Tensor(rng.standard_normal((rows, 4)))
        compiled(Tensor(rng.standard_normal((rows, 4))), b)
    assert compiled.trace_count == 2  # rows became symbolic
    b1 = Tensor(rng.standard_normal((1, 4)))  # now b broadcasts against x
    np.testing.assert_allclose(compiled(x, b1).numpy(), (x + b1).numpy(), rtol=1e-12)
    assert compiled.trace_count == 3


def test_sizes_equal_at_trace_time_must_stay_equal_or_it_traces_again():
    compiled = fluxgrad.compile(lambda x, y: x.sum() + y.sum())
    for n in (2, 3, 4):
        compiled(Tensor(np.ones(n)), Tensor(np.ones(n)))
    assert compiled.trace_count == 2
    np.testing.assert_allclose(compiled(Tensor(np.ones(5)), Tensor(np.ones(7))).item(), 12.0)
    assert compiled.trace_count == 3


def test_a_dtype_change_traces_again():
    compiled = fluxgrad.compile(lambda x: x * 2)
    for n in (2, 3, 4):
        compiled(Tensor(np.ones(n)))
    out = compiled(Tensor(np.ones(4, np.float32)))
    assert out.dtype == fluxgrad.float32 and compiled.trace_count == 3
    assert "float64[N0] -> float32[4]" in compiled.traces[-1].reason


def test_dynamic_false_traces_per_shape_and_dynamic_true_from_the_first_call():
    never = fluxgrad.compile(lambda x: x * 2, dynamic=False)
    always = fluxgrad.compile(lambda x: x * 2, dynamic=True)
    for n in (2, 3, 4, 5):
        x = Tensor(np.arange(float(n)))
        np.testing.assert_allclose(never(x).numpy(), np.arange(float(n)) * 2)
        np.testing.assert_allclose(always(x).numpy(), np.arange(float(n)) * 2)
    assert never.trace_count == 4
    assert always.trace_count == 1 and always.traces[0].symbolic_dims == ("x.shape[0]",)


def test_gradients_through_a_compiled_call_are_right_under_symbolic_sizes():
    compiled = fluxgrad.compile(_mlp_loss)
    w1_0, w2_0 = rng.standard_normal((4, 8)), rng.standard_normal((8, 3))
    for n in (3, 5, 9, 17):
        x, y = Tensor(rng.standard_normal((n, 4))), Tensor(rng.integers(0, 3, n))
        got = [Tensor(w1_0, requires_grad=True), Tensor(w2_0, requires_grad=True)]
        want = [Tensor(w1_0, requires_grad=True), Tensor(w2_0, requires_grad=True)]
        compiled(x, y, *got).backward()
        _mlp_loss(x, y, *want).backward()
        for g, w in zip(got, want):
            np.testing.assert_allclose(g.grad.numpy(), w.grad.numpy(), rtol=1e-10)
    assert compiled.trace_count == 2


def test_the_input_gradient_has_the_size_of_each_call():
    compiled = fluxgrad.compile(lambda x: (x * x).sum(0))
    for n in (2, 3, 6):
        x = Tensor(rng.standard_normal((n, 2)), requires_grad=True)
        compiled(x).sum().backward()
        np.testing.assert_allclose(x.grad.numpy(), 2 * x.detach().numpy(), rtol=1e-12)


def test_an_if_on_a_tensor_runs_eagerly_with_one_warning_and_is_not_traced_again():
    calls = []

    def f(x):
        calls.append(1)
        if x.sum() > 0:
            return x * 2
        return -x
    compiled = fluxgrad.compile(f)
    with pytest.warns(RuntimeWarning, match="static.nn.cond") as record:
        out = compiled(Tensor(np.ones(3)))
    np.testing.assert_allclose(out.numpy(), [2.0, 2.0, 2.0])
    assert "test_compile_dims.py" in str(record[0].message) and "x.sum() > 0" in \
        str(record[0].message)
    assert record[0].filename == __file__  # the warning points at the call
    calls.clear()
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        np.testing.assert_allclose(compiled(Tensor(-np.ones(3))).numpy(), [1.0, 1.0, 1.0])
        assert len(calls) == 1  # eager only: no second attempt at tracing
        np.testing.assert_allclose(compiled(Tensor(np.ones(5))).numpy(), np.full(5, 2.0))
    assert len(calls) == 2  # another size: eager straight away too
    assert compiled.trace_count == 0


def test_fullgraph_true_raises_the_clear_error():
    def f(x):
        return x * 2 if x.sum() > 0 else -x
    with pytest.raises(TypeError, match="static.nn.cond"):
        fluxgrad.compile(f, fullgraph=True)(Tensor(np.ones(3)))


def test_item_of_a_traced_value_falls_back_to_eager():
    compiled = fluxgrad.compile(lambda x: x * x.max().item())
    with pytest.warns(RuntimeWarning, match="eagerly"):
        np.testing.assert_allclose(compiled(Tensor(np.array([1.0, 3.0]))).numpy(), [3.0, 9.0])


def test_an_error_of_the_function_itself_is_raised_not_hidden_by_the_fallback():
    compiled = fluxgrad.compile(lambda x, w: x @ w)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        with pytest.raises(Exception, match="matmul"):
            compiled(Tensor(np.ones((2, 3))), Tensor(np.ones((4, 2))))


def test_a_captured_tensor_requiring_grad_falls_back_and_keeps_its_gradient():
    w = Tensor(np.array([1.0, 2.0, 3.0]), requires_grad=True)
    compiled = fluxgrad.compile(lambda x: (x * w).sum())
    with pytest.warns(RuntimeWarning, match="not an argument"):
        compiled(Tensor(np.ones(3))).backward()
    np.testing.assert_allclose(w.grad.numpy(), [1.0, 1.0, 1.0])


def test_dynamic_must_be_none_true_or_false():
    with pytest.raises(TypeError, match="dynamic"):
        fluxgrad.compile(lambda x: x, dynamic="auto")


def test_the_guards_of_the_latest_trace_refuse_other_arguments():
    compiled = fluxgrad.compile(lambda *xs: sum(x.sum() for x in xs) if xs else Tensor(1.0))
    assert compiled().item() == 1.0
    assert compiled(Tensor(np.ones(2))).item() == 2.0  # another number of arguments
    assert compiled(Tensor(np.ones(2)), Tensor(np.ones(3))).item() == 5.0
    assert compiled(Tensor(np.ones(2)), Tensor(np.ones(3), requires_grad=True)).item() == 5.0
    assert compiled(Tensor(np.ones(2)), Tensor(np.ones(3, np.float32))).item() == 5.0
    assert compiled(Tensor(np.ones(2)), Tensor(np.ones((3, 1)))).item() == 5.0  # another rank
    with fluxgrad.no_grad():
        assert compiled(Tensor(np.ones(2)), Tensor(np.ones(3))).item() == 5.0
    assert compiled.trace_count == 7


def test_the_guards_check_python_scalars_by_type_and_value():
    compiled = fluxgrad.compile(lambda x, k, mode: x * k if mode == "mul" else x + k)
    x = Tensor(np.array([1.0, 2.0]))
    for k, mode, want in ((2, "mul", [2.0, 4.0]), (3, "mul", [3.0, 6.0]), (3, "add", [4.0, 5.0]),
                          (1, "add", [2.0, 3.0]), (True, "add", [2.0, 3.0]),
                          (2, "mul", [2.0, 4.0])):
        np.testing.assert_allclose(compiled(x, k, mode).numpy(), want)
    assert compiled.trace_count == 5  # True is not 1: a bool traces apart from an int


def test_the_guards_of_many_arguments_check_each_one():
    def f(x, k, *ws):
        return sum((x.sum(0) * w).sum() for w in ws) * k
    compiled = fluxgrad.compile(f)
    ws = [Tensor(rng.standard_normal(3)) for _ in range(20)]
    x = Tensor(rng.standard_normal((4, 3)))
    base = (x, 3, *ws)
    others = [(x, 2, *ws), (x, 3.0, *ws), (x, 3, *ws[:-1], ws[-1].float()),
              (x, 3, *ws[:-1], Tensor(rng.standard_normal(1))),
              (x, 3, *ws[:-1], Tensor(ws[-1].numpy(), requires_grad=True))]
    for n, args in enumerate(others, 2):  # each one right after base, whose guards run first
        compiled(*base)
        np.testing.assert_allclose(compiled(*args).item(), f(*args).item(), rtol=1e-6)
        assert compiled.trace_count == n
    for m in (5, 6, 7):  # the batch size becomes unknown: one more trace serves every size
        args = (Tensor(rng.standard_normal((m, 3))), 2, *ws)
        np.testing.assert_allclose(compiled(*args).item(), f(*args).item(), rtol=1e-12)
    assert compiled.trace_count == len(others) + 2


def test_a_compiled_call_under_forward_mode_or_vmap_sees_the_tangents_and_the_batch():
    compiled = fluxgrad.compile(lambda x: x.sin())
    x0 = np.array([0.3, -0.7])
    compiled(Tensor(x0))  # the generated code and its guards are ready for float64[2]
    _, tangent = fluxgrad.func.jvp(compiled, (Tensor(x0),), (Tensor(np.ones(2)),))
    np.testing.assert_allclose(tangent.numpy(), np.cos(x0), rtol=1e-12)
    batch = fluxgrad.func.vmap(compiled)(Tensor(np.stack([x0, 2 * x0])))
    np.testing.assert_allclose(batch.numpy(), np.sin(np.stack([x0, 2 * x0])), rtol=1e-12)


def test_a_size_compared_for_equality_is_served_apart_and_the_rest_stay_symbolic():
    def f(x):
        return x * 2 if x.shape[0] == 3 else x.sum(0)
    compiled = fluxgrad.compile(f)
    for n in (2, 4, 3, 5, 6, 3, 7):
        x = Tensor(rng.standard_normal((n, 2)))
        np.testing.assert_allclose(compiled(x).numpy(), f(x).numpy(), rtol=1e-12)
    assert compiled.trace_count == 3  # [2, 2], then [N0, 2] for every N0 but 3, then [3, 2]
    assert compiled.traces[1].symbolic_dims == ("x.shape[0]",)


def test_a_compiled_training_step_takes_symbolic_batch_sizes_and_matches_eager():
    def make():
        fluxgrad.manual_seed(0)
        model = fluxgrad.nn.Sequential(fluxgrad.nn.Linear(4, 8), fluxgrad.nn.ReLU(),
                                       fluxgrad.nn.Linear(8, 3))
        return model, fluxgrad.optim.Adam(model.parameters(), lr=0.01)

    def step(model, opt):
        def run(x, y):
            opt.zero_grad()
            loss = fluxgrad.nn.functional.cross_entropy(model(x), y)
            loss.backward()
            opt.step()
            return loss
        return run
    (m1, o1), (m2, o2) = make(), make()
    compiled, eager = fluxgrad.compile(step(m1, o1)), step(m2, o2)
    sizes = (5, 6, 7, 9, 10, 11, 12, 13, 14, 15, 16, 17)
    for n in sizes:
        x = Tensor(rng.standard_normal((n, 4)).astype(np.float32))
        y = Tensor(rng.integers(0, 3, n))
        np.testing.assert_allclose(compiled(x, y).item(), eager(x, y).item(), rtol=1e-5)
    for p, q in zip(m1.parameters(), m2.parameters()):
        np.testing.assert_allclose(p.detach().numpy(), q.detach().numpy(), rtol=1e-5,
                                   atol=1e-6)
    assert compiled.trace_count == 2


def test_saved_code_with_symbolic_sizes_reads_them_from_its_arguments(tmp_path,
                                                                      run_without_fluxgrad):
    def f(x):
        return x.sum(0) / x.shape[0] + fluxgrad.zeros(x.shape[1]) + x.mean()
    compiled = fluxgrad.compile(f)
    for n in (2, 3):
        compiled(Tensor(np.ones((n, 4))))
    assert compiled.traces[-1].symbolic_dims == ("x.shape[0]",)
    compiled.save(tmp_path / "step.py")
    xs = [np.random.default_rng(n).standard_normal((n, 4)) for n in (1, 5, 8)]
    np.savez(tmp_path / "io.npz", *xs, *[f(Tensor(x)).numpy() for x in xs])
    run_without_fluxgrad(
        "from step import f\n"
        "io = np.load('io.npz')\n"
        "for k in range(3):\n"
        "    got, = f(io[f'arr_{k}'])\n"
        "    np.testing.assert_allclose(got, io[f'arr_{k + 3}'], rtol=1e-12)\n"
        "print('ok')\n")
    fixed = fluxgrad.compile(f, dynamic=False)
    fixed(Tensor(np.ones((2, 4))))
    fixed.save(tmp_path / "fixed.py")  # concrete sizes export as before
    assert (tmp_path / "fixed.py").exists()
