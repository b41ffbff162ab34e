"""Writes into a compiled function's arguments (`jit.arguments`): staged, and written into the
argument's memory at each call as eager mode writes it, with its version counter bumped, also
through views of the argument; eager mode's refusals (a leaf that requires grad, a broadcast
argument, a dtype that can't be cast) are raised as there. Each function is compiled with
fullgraph=True (a fallback to eager mode fails the test) and called twice on fresh arguments
(the trace's first call, then the generated code); eager mode on other fresh arguments
gives the expected values."""
import numpy as np
import pytest

import fluxgrad as fg

RNG = np.random.default_rng(0)
A = RNG.standard_normal((3, 4)).astype(np.float32)
B = RNG.standard_normal((3, 4)).astype(np.float32)


def _same_as_eager(fn, *make_args):
    """fn compiled writes its arguments and returns results as fn in eager mode does; the
    argument it returns (if any) is the argument itself in both."""
    want_args = [make() for make in make_args]
    want = fn(*want_args)
    compiled = fg.compile(fn, fullgraph=True)
    for _ in range(2):
        args = [make() for make in make_args]
        versions = [a._version for a in args]
        got = compiled(*args)
        for a, w in zip(args, want_args):
            np.testing.assert_array_equal(a.detach().numpy(), w.detach().numpy())
        np.testing.assert_array_equal(got.detach().numpy(), want.detach().numpy())
        assert (got is args[0]) == (want is want_args[0])
        for a, w, v in zip(args, want_args, versions):
            assert (a._version > v) == (w._version > 0)
    assert compiled.trace_count == 1
    return compiled


def _a():
    return fg.tensor(A)


def _b():
    return fg.tensor(B)


def test_an_in_place_op_on_an_argument_writes_the_callers_tensor():
    _same_as_eager(lambda x: x.add_(1), _a)


def test_a_result_computed_after_the_write_reads_the_new_value():
    _same_as_eager(lambda x, y: (x.mul_(y), x.sin() + y)[1], _a, _b)


def test_an_index_write_into_an_argument():
    def fn(x):
        x[0] = 0
        x[:, 1] += 5
        return x.sum(1)
    _same_as_eager(fn, _a)


def test_a_write_through_data_of_an_argument():
    _same_as_eager(lambda x: (x.data.mul_(2), x * 1)[1], _a)


def test_a_write_through_detach_of_an_argument():
    _same_as_eager(lambda x: (x.detach().zero_(), x + 1)[1], _a)


def test_a_write_through_a_transpose_of_an_argument():
    _same_as_eager(lambda x: (x.t()[1].mul_(3), x.exp())[1], _a)


def test_writes_into_two_arguments_each_reading_the_other():
    def fn(x, y):
        x.mul_(2)
        y.sub_(x)
        x.add_(y)
        return x * y
    _same_as_eager(fn, _a, _b)


def test_a_write_into_a_transposed_argument_writes_its_base():
    base = fg.tensor(A)
    want = fg.tensor(A)
    fn = fg.compile(lambda x: x.add_(fg.arange(3.0)), fullgraph=True)
    fn(base.t())
    want.t().add_(fg.arange(3.0))
    np.testing.assert_array_equal(base.numpy(), want.numpy())


def test_a_float64_value_written_into_a_float32_argument_is_cast_as_in_eager_mode():
    _same_as_eager(lambda x, y: x.add_(y), _a, lambda: fg.tensor(B.astype(np.float64)))


def test_a_value_that_cant_be_cast_to_the_arguments_dtype_is_refused_as_in_eager_mode():
    def fn(x):
        return x.add_(0.5)
    with pytest.raises(RuntimeError, match="can't be cast"):
        fn(fg.tensor(A).long())
    with pytest.raises(RuntimeError, match="can't be cast"):
        fg.compile(fn, fullgraph=True)(fg.tensor(A).long())


def test_a_write_into_a_broadcast_argument_is_refused_as_in_eager_mode():
    def fn(x):
        return x.add_(1)
    with pytest.raises(RuntimeError, match="share memory"):
        fn(fg.tensor(A[0]).expand(3, 4))
    with pytest.raises(RuntimeError, match="share memory"):
        fg.compile(fn, fullgraph=True)(fg.tensor(A[0]).expand(3, 4))


@pytest.mark.parametrize("fn, message", [
    (lambda x: x.add_(1), "a leaf tensor"),
    (lambda x: x[0].add_(1), "a view of a leaf tensor"),
])
def test_a_write_into_a_leaf_that_requires_grad_raises_eager_modes_error(fn, message):
    with pytest.raises(RuntimeError, match=message):
        fn(fg.tensor(A, requires_grad=True))
    x = fg.tensor(A, requires_grad=True)
    with pytest.raises(RuntimeError, match=message):
        fg.compile(fn, fullgraph=True)(x)
    np.testing.assert_array_equal(x.detach().numpy(), A)  # nothing written
    with pytest.raises(RuntimeError, match=message):
        fg.compile(fn)(x)  # fullgraph=False: eager mode's own error


def test_under_no_grad_a_leaf_that_requires_grad_is_written():
    def fn(x):
        with fg.no_grad():
            x.mul_(2)
        return x.detach() + 1
    _same_as_eager(fn, lambda: fg.tensor(A, requires_grad=True))


def test_data_of_a_leaf_that_requires_grad_is_written_in_grad_mode():
    _same_as_eager(lambda x: (x.data.mul_(2), x.detach().sum())[1],
                   lambda: fg.tensor(A, requires_grad=True))


def test_a_write_with_results_that_need_gradients_runs_eagerly_with_a_warning():
    def fn(x, w):
        x.mul_(2)
        return (x * w).sum()
    with pytest.raises(NotImplementedError, match="need gradients"):
        fg.compile(fn, fullgraph=True)(fg.tensor(A), fg.tensor(B, requires_grad=True))
    x, w = fg.tensor(A), fg.tensor(B, requires_grad=True)
    with pytest.warns(RuntimeWarning, match="need gradients"):
        loss = fg.compile(fn)(x, w)
    loss.backward()
    np.testing.assert_allclose(w.grad.numpy(), 2 * A)
    np.testing.assert_array_equal(x.numpy(), 2 * A)


def test_arguments_sharing_memory_run_eagerly():
    def fn(x, y):
        x.add_(1)
        return y * 1
    compiled = fg.compile(fn, fullgraph=True)
    compiled(fg.tensor(A), fg.tensor(B))
    x = fg.tensor(A)
    out = compiled(x, x)  # y is x: it reads the write
    np.testing.assert_array_equal(out.numpy(), A + 1)
    np.testing.assert_array_equal(x.numpy(), A + 1)


def test_a_training_step_normalising_its_input_in_place():
    def make():
        fg.manual_seed(0)
        model = fg.nn.Linear(4, 2)
        opt = fg.optim.SGD(model.parameters(), lr=0.1)

        def step(x, y):
            x.div_(2)
            opt.zero_grad()
            loss = ((model(x) - y) ** 2).mean()
            loss.backward()
            opt.step()
            return loss
        return model, step
    eager_model, eager_step = make()
    model, step = make()
    step = fg.compile(step, fullgraph=True)
    y = fg.zeros(3, 2)
    for _ in range(4):
        x, x_eager = fg.tensor(A), fg.tensor(A)
        np.testing.assert_allclose(step(x, y).detach().numpy(),
                                   eager_step(x_eager, y).detach().numpy(), rtol=1e-6)
        np.testing.assert_array_equal(x.numpy(), x_eager.numpy())
        np.testing.assert_allclose(model.weight.detach().numpy(),
                                   eager_model.weight.detach().numpy(), rtol=1e-6)
    assert step.trace_count == 2  # (the first call found no .grad yet)


def test_the_generated_code_writes_into_the_arguments_array():
    compiled = fg.compile(lambda x: x.mul_(2).sin_(), fullgraph=True)
    x = fg.tensor(A)
    compiled(x)
    compiled(x)
    data = x._data
    compiled(x)
    assert x._data is data
    np.testing.assert_allclose(x.numpy(), np.sin(2 * np.sin(2 * np.sin(2 * A))), rtol=1e-6)
    calls = [line.split("#")[0].rstrip() for line in compiled.code.splitlines()]
    assert any(call.endswith("_sin(a, x)") for call in calls)  # the last op writes into x
