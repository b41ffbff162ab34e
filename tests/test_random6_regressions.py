"""Disagreements the random-program soak of the day's merges found between eager mode,
fluxgrad.compile and static programs (and PyTorch), each with the program that showed it."""
import numpy as np
import pytest

import fluxgrad as fg
from fluxgrad import static
from fluxgrad.static import nn

X0 = np.array([0.3, -1.2, 0.7])
W0 = np.array([0.5, 1.5, -0.25])


def _loop_under_no_grad(trips):
    """(a * x).sum() with a = x after `trips` steps a <- a * w, run under no_grad: a is a
    constant, so the gradient is a (x itself for 0 trips)."""
    def f(x, w):
        with fg.no_grad():
            i = fg.zeros((), dtype=fg.int64)
            _, a = nn.while_loop(lambda i, a: i < trips, lambda i, a: [i + 1, a * w], [i, x])
        return (a * x).sum()
    return f


def _cond_under_no_grad(x, w):
    """A branch returning what it captured (x), under no_grad: a constant again."""
    with fg.no_grad():
        a = nn.cond(x.sum() < 0, lambda: x, lambda: x * w)
    return (a * x).sum()


@pytest.mark.parametrize("trips", [0, 2])
@pytest.mark.parametrize("compiled", [False, True], ids=["eager", "compiled"])
def test_a_while_loop_under_no_grad_gives_a_constant_also_for_0_trips(trips, compiled):
    f = _loop_under_no_grad(trips)
    want = X0 * W0 ** trips
    g = fg.compile(fg.func.grad(f)) if compiled else fg.func.grad(f)
    for _ in range(2):  # (the trace, then the generated code)
        np.testing.assert_allclose(g(fg.tensor(X0), fg.tensor(W0)).numpy(), want, rtol=1e-12)
    x = fg.tensor(X0, requires_grad=True)
    y = (fg.compile(f) if compiled else f)(x, fg.tensor(W0))
    np.testing.assert_allclose(fg.grad(y, x)[0].numpy(), want, rtol=1e-12)


@pytest.mark.parametrize("compiled", [False, True], ids=["eager", "compiled"])
def test_a_branch_returning_its_capture_under_no_grad_gives_a_constant(compiled):
    g = fg.func.grad(_cond_under_no_grad)
    g = fg.compile(g) if compiled else g
    for x0 in (X0, -np.abs(X0)):  # x * w (not the capture), then x itself
        want = x0 if x0.sum() < 0 else x0 * W0
        for _ in range(2):
            np.testing.assert_allclose(g(fg.tensor(x0), fg.tensor(W0)).numpy(), want,
                                       rtol=1e-12)


def test_a_loop_under_no_grad_in_eager_mode_hands_back_no_graph():
    x = fg.tensor(X0, requires_grad=True)
    with fg.no_grad():
        out = nn.while_loop(lambda a: a.sum() > 1e9, lambda a: [a * 2], [x])[0]
        branch = nn.cond(fg.tensor(True), lambda: (x, x * 2), lambda: (x * 3, x))
    assert not out.requires_grad and isinstance(branch, tuple)
    assert not any(b.requires_grad for b in branch)
    np.testing.assert_array_equal(out.numpy(), X0)


def test_a_mask_from_the_second_output_of_a_split_stages_in_a_static_program():
    """x[x > 0] on a later output of a multi-output op (chunk, split): staging it looked up
    the output's position with ==, which staged an elementwise `equal` of two outputs and
    called bool() on it (mixed program seeds 492, 509)."""
    data = np.array([[True, False, True], [False, True, True], [True, True, False]])
    main = static.Program()
    fg.enable_static()
    try:
        with static.program_guard(main, static.Program()):
            x = static.data("x", shape=(3, 3), dtype="bool")
            first, second, third = x.chunk(3, dim=0)
            picked = third[third]
            before = len(main.equations)
            again = third[third]  # (the same mask again: the same unknown size)
    finally:
        fg.disable_static()
    assert "equal" not in [eq.prim.name for eq in main.equations]
    assert again.shape == picked.shape and len(main.equations) > before
    got, = static.Executor().run(main, feed={"x": data}, fetch_list=[picked])
    np.testing.assert_array_equal(got, data[2][data[2]])


@pytest.mark.parametrize("dim", [1, (0, 1), None])
def test_the_inf_norm_over_an_empty_dimension_is_refused_as_torch_does(dim):
    """torch: 'cannot compute the inf norm ... the operation does not have an identity'
    (fluxgrad gave 0; reduction seed 3390); over a dim that is not empty it is computed."""
    x = fg.tensor(np.zeros((1, 0), np.float32))
    with pytest.raises(RuntimeError, match="empty"):
        fg.linalg.vector_norm(x, float("inf"), dim=dim)
    with pytest.raises(RuntimeError, match="empty"):
        fg.norm(x, float("inf"), dim=dim)
    assert fg.linalg.vector_norm(x, float("inf"), dim=0).shape == (0,)
