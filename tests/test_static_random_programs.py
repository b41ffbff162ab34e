"""Random programs (the chains of tests/test_random_programs.py) staged into static programs:
values and gradients, with prim on and off, agree with eager mode."""
import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

import fluxgrad as fg
from fluxgrad import static
from test_random_programs import chain, shapes


def _chain(steps, x, y):
    return chain(fg, steps, x, y)


@settings(max_examples=40, deadline=None, derandomize=True)
@given(shape_x=shapes, shape_y=shapes,
       steps=st.lists(st.tuples(st.sampled_from(["u", "b", "r"]), st.integers(0, 99)),
                      min_size=1, max_size=8),
       seed=st.integers(0, 2 ** 16))
def test_static_random_program_matches_eager(shape_x, shape_y, steps, seed):
    rng = np.random.default_rng(seed)
    x0, y0 = rng.uniform(-1.5, 1.5, shape_x), rng.uniform(-1.5, 1.5, shape_y)
    ex, ey = fg.tensor(x0, requires_grad=True), fg.tensor(y0, requires_grad=True)
    try:
        eager = _chain(steps, ex, ey)
    except (ValueError, RuntimeError):
        eager = None
    main = static.Program()
    fg.enable_static()
    try:
        with static.program_guard(main, static.Program()):
            x = static.data('x', shape=shape_x, dtype='float64')
            y = static.data('y', shape=shape_y, dtype='float64')
            if eager is None:
                with pytest.raises((ValueError, RuntimeError)):
                    _chain(steps, x, y)
                return
            out = _chain(steps, x, y)
            off = static.grad(out, [x, y], prim=False)
            on = static.grad(out, [x, y], prim=True)
    finally:
        fg.disable_static()
    values = static.Executor().run(main, feed={'x': x0, 'y': y0}, fetch_list=[out] + off + on)
    np.testing.assert_allclose(values[0], eager.item(), rtol=1e-12, atol=1e-12)
    grads = fg.grad(eager, [ex, ey], allow_unused=True)
    expected = [np.zeros(np.shape(a)) if g is None else g.detach().numpy() for g, a in zip(grads,
                                                                                 (x0, y0))]
    for got, want in zip(values[1:3] + values[3:5], expected + expected):
        np.testing.assert_allclose(got, want, rtol=1e-9, atol=1e-11)
