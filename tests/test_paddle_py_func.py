"""PaddlePaddle's static.py_func: a Python function on NumPy arrays staged as an op, its
gradient from backward_func (Paddle's argument order: x less the skipped, out, out's
gradients). Expected values are closed forms in NumPy."""
import numpy as np
import pytest

import fluxgrad as fg
from fluxgrad import static
from fluxgrad.nn import initializer as I

from static_programs import build_program

A = (np.arange(6, dtype=np.float32).reshape(2, 3) - 2.5) / 4
W = np.linspace(-1, 1, 9, dtype=np.float32).reshape(3, 3)


def _out_like(v, name=None):
    return static.default_main_program().current_block().create_var(
        name=name, dtype="float32", shape=v.shape)


def _run(build, fetch_count):
    main, startup, fetches = build_program(build)
    exe = static.Executor()
    exe.run(startup)
    return main, exe.run(main, feed={"x": A}, fetch_list=list(fetches[:fetch_count]))


def _tanh_program(skip, calls):
    def tanh(x):
        calls.append(type(x))
        return np.tanh(x)

    def tanh_grad(*args):
        calls.append(len(args))
        y, dy = args[-2:]
        return np.asarray(dy) * (1 - np.square(np.asarray(y)))

    def build():
        x = static.data("x", [None, 3], "float32")
        w = static.create_parameter([3, 3], "float32", name="w",
                                    default_initializer=I.Assign(W))
        h = fg.matmul(x, w)
        y = static.py_func(tanh, h, _out_like(h), backward_func=tanh_grad,
                           skip_vars_in_backward_input=h if skip else None)
        loss = fg.mean(y)
        (_, g), = static.append_backward(loss)
        return y, loss, g
    return build


@pytest.mark.parametrize("skip", [True, False])
def test_py_func_runs_func_and_its_gradient_comes_from_backward_func(skip):
    calls = []
    _, (y, loss, g) = _run(_tanh_program(skip, calls), 3)
    h = A @ W
    np.testing.assert_allclose(y, np.tanh(h), rtol=1e-6)
    np.testing.assert_allclose(loss, np.tanh(h).mean(), rtol=1e-6)
    np.testing.assert_allclose(g, A.T @ ((1 - np.tanh(h) ** 2) / h.size), rtol=1e-5, atol=1e-7)
    # func gets arrays; backward_func gets (x,) out, dout, or out, dout with x skipped
    assert calls[0] is np.ndarray and calls[-1] == (2 if skip else 3)


def test_py_func_without_backward_func_passes_no_gradient():
    def build():
        x = static.data("x", [None, 3], "float32")
        w = static.create_parameter([3, 3], "float32", name="w",
                                    default_initializer=I.Assign(W))
        h = fg.matmul(x, w)
        y = static.py_func(np.square, h, _out_like(h))
        loss = fg.mean(y) + fg.mean(w)
        (_, g), = static.append_backward(loss)
        return y, g
    _, (y, g) = _run(build, 2)
    np.testing.assert_allclose(y, np.square(A @ W), rtol=1e-6)
    np.testing.assert_allclose(g, np.full((3, 3), 1 / 9), rtol=1e-6)  # from mean(w) alone


def test_py_func_with_several_inputs_and_outputs():
    def func(a, b):
        return a + b, a * b

    def backward(a, b, s, p, ds, dp):
        return ds + dp * b, ds + dp * a

    def build():
        x = static.data("x", [None, 3], "float32")
        w = static.create_parameter([2, 3], "float32", name="w",
                                    default_initializer=I.Assign(W[:2]))
        s, p = static.py_func(func, [x, w], [_out_like(x), _out_like(x)], backward_func=backward)
        loss = fg.sum(s) + fg.sum(p * p)
        (_, g), = static.append_backward(loss)
        return s, p, g
    _, (s, p, g) = _run(build, 3)
    w = W[:2]
    np.testing.assert_allclose(s, A + w, rtol=1e-6)
    np.testing.assert_allclose(p, A * w, rtol=1e-6)
    np.testing.assert_allclose(g, 1 + 2 * (A * w) * A, rtol=1e-5)


def test_py_func_returning_the_wrong_shape_raises_when_run():
    def build():
        x = static.data("x", [2, 3], "float32")
        return (static.py_func(lambda a: a[:, :2], x, _out_like(x)),)
    main, startup, fetches = build_program(build)
    with pytest.raises(ValueError, match=r"returned shape \[2, 2\].*declared \[2, 3\]"):
        static.Executor().run(main, feed={"x": A}, fetch_list=list(fetches))


def test_py_func_refuses_a_skip_variable_that_is_not_an_input():
    def build():
        x = static.data("x", [2, 3], "float32")
        other = static.data("o", [2, 3], "float32")
        static.py_func(np.tanh, x, _out_like(x), backward_func=lambda *a: a[0],
                       skip_vars_in_backward_input=other)
    with pytest.raises(ValueError, match="skip_vars_in_backward_input"):
        build_program(build)
