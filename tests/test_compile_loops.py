"""fluxgrad.compile of `static.nn.while_loop` and `scan`: the loop is one equation of the
program, whatever its trip count (nothing is unrolled), and gives numpy's and eager mode's
numbers."""
import numpy as np
import pytest

import fluxgrad as fg
from fluxgrad import static
from fluxgrad.static import nn, passes


def halve_and_squash(x, n):
    """n times y <- tanh(0.5 y + 1), counted by a tensor loop variable."""
    i = fg.zeros((), dtype=fg.int64)
    _, y = nn.while_loop(lambda i, y: i < n, lambda i, y: [i + 1, (y * 0.5 + 1.0).tanh()],
                         [i, x])
    return y


def halve_and_squash_numpy(x, n):
    y = x.copy()
    for _ in range(n):
        y = np.tanh(y * 0.5 + 1.0)
    return y


def decay_and_sine(init, xs):
    return nn.scan(lambda c, x: (c * 0.9 + x, c.sin()), init, xs)


def decay_and_sine_numpy(init, xs):
    c, ys = init.copy(), []
    for x in xs:
        ys.append(np.sin(c))
        c = c * 0.9 + x
    return c, np.stack(ys)


def _x():
    return np.random.default_rng(0).standard_normal(5)


def test_a_while_loop_with_a_tensor_trip_count_is_one_trace_for_10_and_10000_iterations():
    compiled = fg.compile(halve_and_squash)
    x = fg.tensor(_x())
    for n in (10, 10000):
        out = compiled(x, fg.tensor(n))
        np.testing.assert_allclose(out.numpy(), halve_and_squash_numpy(_x(), n), rtol=1e-12)
    assert compiled.trace_count == 1
    assert [eq.prim.name for eq in compiled.program(x, fg.tensor(10)).equations] == \
        ["while_loop"]


def test_a_while_loop_with_a_python_trip_count_traces_the_same_program_for_10_and_10000():
    compiled = fg.compile(halve_and_squash)
    x = fg.tensor(_x())
    for n in (10, 10000):
        np.testing.assert_allclose(compiled(x, n).numpy(), halve_and_squash_numpy(_x(), n),
                                   rtol=1e-12)
    traced = [(t.equations_traced, t.equations_after_passes) for t in compiled.traces]
    assert len(traced) == 2 and traced[0] == traced[1]
    assert len(compiled.program(x, 10000).equations) == 1


def test_a_compiled_while_loop_equals_eager_mode():
    x = fg.tensor(_x())
    np.testing.assert_allclose(fg.compile(halve_and_squash)(x, fg.tensor(7)).numpy(),
                               halve_and_squash(x, fg.tensor(7)).numpy(), rtol=1e-12)


@pytest.mark.parametrize("length", [10, 10000])
def test_a_compiled_scan_is_one_loop_equation_and_matches_numpy(length):
    xs = np.random.default_rng(1).standard_normal((length, 3))
    compiled = fg.compile(decay_and_sine)
    carry, ys = compiled(fg.zeros(3, dtype=fg.float64), fg.tensor(xs))
    want_carry, want_ys = decay_and_sine_numpy(np.zeros(3), xs)
    np.testing.assert_allclose(carry.numpy(), want_carry, rtol=1e-12, atol=1e-12)
    np.testing.assert_allclose(ys.numpy(), want_ys, rtol=1e-12, atol=1e-12)
    program = compiled.program(fg.zeros(3, dtype=fg.float64), fg.tensor(xs))
    assert [eq.prim.name for eq in program.equations] == ["while_loop"]


def test_a_compiled_scan_equals_eager_mode():
    init, xs = fg.zeros(3, dtype=fg.float64), fg.tensor(np.random.default_rng(2).random((10, 3)))
    got, want = fg.compile(decay_and_sine)(init, xs), decay_and_sine(init, xs)
    for g, w in zip(got, want):
        np.testing.assert_allclose(g.numpy(), w.numpy(), rtol=1e-12)


def test_the_gradient_through_a_compiled_while_loop_is_the_chain_rule_over_its_iterations():
    n = 12
    x = fg.tensor(_x(), requires_grad=True)
    fg.compile(lambda x, n: halve_and_squash(x, n).sum())(x, fg.tensor(n)).backward()
    y, dy = _x(), np.ones(5)
    for _ in range(n):  # d tanh(0.5 y + 1) / dy = 0.5 (1 - tanh^2)
        y = np.tanh(y * 0.5 + 1.0)
        dy = dy * 0.5 * (1 - y ** 2)
    np.testing.assert_allclose(x.grad.numpy(), dy, rtol=1e-10)


def test_a_loop_keeps_its_iterations_only_where_a_gradient_reads_them():
    x = fg.tensor(_x())
    forward = fg.compile(halve_and_squash).program(x, fg.tensor(3))
    assert forward.equations[0].params["keep"] is False
    gradient = fg.compile(fg.func.grad(lambda x, n: halve_and_squash(x, n).sum()))
    loops = [eq for eq in gradient.program(x, fg.tensor(3)).equations
             if eq.prim.name == "while_loop"]
    assert loops and all(eq.params.get("keep", True) for eq in loops)


def test_differentiating_a_loop_that_dce_left_without_its_iterations_raises(program):
    x = static.data('x', shape=[3], dtype='float64')
    y = halve_and_squash(x, 4)
    optimized = passes.optimize(program, [y])
    assert optimized.equations[-1].params["keep"] is False
    with static.program_guard(optimized, static.Program()):
        with pytest.raises(RuntimeError, match="keeps no values of its iterations"):
            static.gradients([y.sum()], [x])


# --- the generated code runs the loops (from the second call on; the first runs the trace's
# Executor) -----------------------------------------------------------------------------------
def _second_call(compiled, *args):
    compiled(*args)
    return compiled(*args)


def test_the_generated_code_writes_the_loop_body_as_a_function_and_the_loop_as_a_while():
    compiled = fg.compile(halve_and_squash)
    x = fg.tensor(_x())
    for n in (10, 10000):
        out = _second_call(compiled, x, fg.tensor(n))
        np.testing.assert_allclose(out.numpy(), halve_and_squash_numpy(_x(), n), rtol=1e-12)
    source = compiled.source(x, fg.tensor(10))
    assert "def _body(" in source and "def _cond(" in source and "    while _cond(" in source
    assert "_while_loop(" not in source  # not the impl walking the sub-programs


def test_a_generated_scan_writes_its_outputs_into_one_buffer_and_leaves_its_initial_value():
    xs = np.random.default_rng(1).standard_normal((50, 3))
    compiled = fg.compile(decay_and_sine)
    args = (fg.zeros(3, dtype=fg.float64), fg.tensor(xs))
    want_carry, want_ys = decay_and_sine_numpy(np.zeros(3), xs)
    for _ in range(3):  # a write into the constant initial buffer would show in later calls
        carry, ys = compiled(*args)
        np.testing.assert_allclose(carry.numpy(), want_carry, rtol=1e-12, atol=1e-12)
        np.testing.assert_allclose(ys.numpy(), want_ys, rtol=1e-12, atol=1e-12)
    assert "_index_put_into(" in compiled.source(*args)


def test_the_generated_gradient_loop_is_the_chain_rule_over_the_iterations():
    n = 12
    compiled = fg.compile(fg.func.grad(lambda x, n: halve_and_squash(x, n).sum()))
    grad = _second_call(compiled, fg.tensor(_x()), fg.tensor(n))
    y, dy = _x(), np.ones(5)
    for _ in range(n):
        y = np.tanh(y * 0.5 + 1.0)
        dy = dy * 0.5 * (1 - y ** 2)
    np.testing.assert_allclose(grad.numpy(), dy, rtol=1e-10)
    source = compiled.source(fg.tensor(_x()), fg.tensor(n))
    assert "def _body_grad(" in source and "_while_loop_grad(" not in source


def test_the_gradient_of_a_generated_scan_matches_eager_mode():
    def loss(init, xs):
        carry, ys = decay_and_sine(init, xs)
        return (ys * ys).sum() + carry.sum()
    init, xs = fg.zeros(3, dtype=fg.float64), fg.tensor(np.random.default_rng(3).random((8, 3)))
    got = _second_call(fg.compile(fg.func.grad(loss, argnums=(0, 1))), init, xs)
    want = fg.func.grad(loss, argnums=(0, 1))(init, xs)
    for g, w in zip(got, want):
        np.testing.assert_allclose(g.numpy(), w.numpy(), rtol=1e-12, atol=1e-14)


def test_a_generated_cond_takes_each_branch():
    def f(x):
        return nn.cond(x.sum() > 0, lambda: x * 2, lambda: x.exp())
    compiled = fg.compile(f)
    for sign in (1, -1):
        x = fg.tensor(sign * np.abs(_x()))
        want = x.numpy() * 2 if sign > 0 else np.exp(x.numpy())
        np.testing.assert_allclose(_second_call(compiled, x).numpy(), want, rtol=1e-12)
    source = compiled.source(x)
    assert "def _then(" in source and "def _else(" in source and "_cond(" not in source


def test_a_loop_inside_a_loop_body_is_generated_inside_its_function():
    def f(x, n):
        i = fg.zeros((), dtype=fg.int64)

        def body(i, y):
            return [i + 1, halve_and_squash(y, i) + 1.0]  # i inner iterations
        return nn.while_loop(lambda i, y: i < n, body, [i, x])[1]

    def numpy_f(x, n):
        y = x.copy()
        for i in range(n):
            y = halve_and_squash_numpy(y, i) + 1.0
        return y
    compiled = fg.compile(f)
    np.testing.assert_allclose(_second_call(compiled, fg.tensor(_x()), fg.tensor(5)).numpy(),
                               numpy_f(_x(), 5), rtol=1e-12)
    assert compiled.source(fg.tensor(_x()), fg.tensor(5)).count("    while ") == 2


def test_a_saved_loop_and_its_gradient_run_with_numpy_alone(tmp_path, run_without_fluxgrad):
    def loss(init, xs):
        carry, ys = decay_and_sine(init, xs)
        return (ys * ys).sum() + carry.sum()
    init, xs = np.zeros(3), np.random.default_rng(4).random((6, 3))
    compiled = fg.compile(fg.func.value_and_grad(loss, argnums=1))
    value, grad = compiled(fg.tensor(init), fg.tensor(xs))
    compiled.save(tmp_path / "scan_step.py")
    np.savez(tmp_path / "io.npz", init=init, xs=xs, value=value.numpy(), grad=grad.numpy())
    run_without_fluxgrad(
        "from scan_step import wrapper\n"
        "io = np.load('io.npz')\n"
        "value, grad = wrapper(io['init'], io['xs'])\n"
        "np.testing.assert_allclose(value, io['value'], rtol=1e-12)\n"
        "np.testing.assert_allclose(grad, io['grad'], rtol=1e-12)\n"
        "assert not any(m.partition('.')[0] == 'fluxgrad' for m in sys.modules)\n"
        "print('ok')\n")
    c, ys = decay_and_sine_numpy(init, xs)
    np.testing.assert_allclose(value.numpy(), (ys * ys).sum() + c.sum(), rtol=1e-12)


def test_a_scan_under_grad_keeps_no_copy_of_its_output_buffer_per_iteration():
    def loss(init, xs):
        carry, ys = decay_and_sine(init, xs)
        return (ys * ys).sum() + carry.sum()
    init, xs = fg.zeros(3, dtype=fg.float64), fg.tensor(np.random.default_rng(5).random((50, 3)))
    compiled = fg.compile(fg.func.grad(loss, argnums=1))
    np.testing.assert_allclose(_second_call(compiled, init, xs).numpy(),
                               fg.func.grad(loss, argnums=1)(init, xs).numpy(), rtol=1e-12)
    loop, = [eq for eq in compiled.program(init, xs).equations if eq.prim.name == "while_loop"]
    assert loop.params["kept"] == (0, 1)  # the counter and the carry, not the buffer (2)
    assert "_index_put_into(" in compiled.source(init, xs)


def _loop_of_products(x):
    """Three times y <- sin(y * x) + x: second derivatives in x."""
    i = fg.zeros((), dtype=fg.int64)
    _, y = nn.while_loop(lambda i, y: i < 3, lambda i, y: [i + 1, (y * x).sin() + x], [i, x])
    return (y * y).sum()


def _loop_of_products_torch(torch, x):
    y = x
    for _ in range(3):
        y = (y * x).sin() + x
    return (y * y).sum()


def test_compiled_hessian_through_a_while_loop_matches_torch():
    torch = pytest.importorskip("torch")
    x = _x()[:3]
    want = torch.autograd.functional.hessian(lambda t: _loop_of_products_torch(torch, t),
                                             torch.tensor(x))
    got = fg.compile(fg.func.hessian(_loop_of_products), fullgraph=True)(fg.tensor(x))
    np.testing.assert_allclose(got.numpy(), want.numpy(), rtol=1e-10, atol=1e-12)
