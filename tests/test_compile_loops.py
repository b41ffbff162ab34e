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
