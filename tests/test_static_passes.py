"""Passes on programs: each shrinks the program visibly and leaves every fetched value as
it was."""
import numpy as np
import pytest

import fluxgrad
from fluxgrad import static
from fluxgrad.static import passes




def _same_results(p, q, feed, fetch):
    exe = static.Executor()
    for a, b in zip(exe.run(p, feed=feed, fetch_list=fetch), exe.run(q, feed=feed,
                                                                      fetch_list=fetch)):
        np.testing.assert_array_equal(a, b)


def test_dce_drops_what_no_output_needs(program):
    x = static.data('x', shape=[3], dtype='float32')
    y = fluxgrad.exp(x)
    fluxgrad.log(x) * 2  # dead
    q = passes.dce(program, [y])
    assert [eq.prim.name for eq in q.equations] == ["exp"]
    assert "log" in str(program) and "log" not in str(q)
    _same_results(program, q, {'x': np.ones(3, np.float32)}, [y])


def test_cse_computes_a_repeated_equation_once(program):
    x = static.data('x', shape=[None, 3], dtype='float32')
    a, b = fluxgrad.tanh(x), fluxgrad.tanh(x)
    z = a * b
    q = passes.cse(program, [z])
    assert [eq.prim.name for eq in q.equations] == ["tanh", "mul"]
    feed = {'x': np.random.rand(4, 3).astype(np.float32)}
    _same_results(program, q, feed, [z, a, b])  # b, removed, is still fetchable


def test_fold_computes_shape_only_and_constant_equations(program):
    x = static.data('x', shape=[2], dtype='float64')
    y = fluxgrad.sin(x)
    g, = static.gradients([y], [x])  # seeds a full_like of a known shape
    q = passes.fold(program, [g])
    assert "full_like" in str(program) and "full_like" not in str(q)
    _same_results(program, q, {'x': np.array([0.5, 2.0])}, [g])


def test_simplify_removes_the_zeros_and_ones_of_derivatives(program):
    fluxgrad.incubate.autograd.enable_prim()
    x = static.data('x', shape=[2], dtype='float64')
    y = fluxgrad.sin(x) * x
    g = fluxgrad.incubate.autograd.grad(y, x)
    folded = passes.fold(program, [g])
    q = passes.dce(passes.simplify(folded, [g]), [g])
    assert len(q.equations) < len(folded.equations)
    assert not any(eq.prim.name == "mul" and any(
        isinstance(i, fluxgrad.Tensor) and not isinstance(i, static.Variable) and
        np.all(i.detach().numpy() == 1) for i in eq.inputs) for eq in q.equations)
    _same_results(program, q, {'x': np.array([0.5, 2.0])}, [g])


def test_optimize_shrinks_the_third_derivative_of_tanh(program):
    fluxgrad.incubate.autograd.enable_prim()
    x = static.data('x', shape=[1], dtype='float32')
    y = fluxgrad.tanh(x)
    g1 = fluxgrad.incubate.autograd.grad(y, x)
    g2 = fluxgrad.incubate.autograd.grad(g1, x)
    g3 = fluxgrad.incubate.autograd.grad(g2, x)
    q = passes.optimize(program, [g1, g2, g3])
    assert len(q.equations) < len(program.equations)
    assert "full_like" not in str(q)
    out = static.Executor().run(q, feed={'x': np.ones(1, np.float32)}, fetch_list=[g1, g2, g3])
    np.testing.assert_allclose(np.concatenate(out), [0.41997433, -0.6397, 0.6216267], rtol=1e-5)


def test_passes_keep_the_program_well_formed_and_the_original_unchanged(program):
    x = static.data('x', shape=[3], dtype='float32')
    y = fluxgrad.exp(x) + fluxgrad.exp(x)
    before = str(program)
    q = passes.optimize(program, [y])
    assert str(program) == before
    q.check()
