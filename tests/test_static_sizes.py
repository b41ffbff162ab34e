"""Static programs whose sizes are computed from an unknown size other than by multiplication
(`dims.Size`: x[1:], x[::2], pad, cat with a known size, convolution and pooling outputs,
x[:4]): the value and the gradient of the size fed, against PyTorch, at sizes 1, 2, 5 and 17
(where some slices are empty), or the refusal PyTorch gives too; never a result of another
size."""
import numpy as np
import pytest
import torch

import fluxgrad as fg
import fluxgrad.nn.functional as F
from fluxgrad import static

SIZES = (1, 2, 5, 17)


def _stage(build, row):
    main = static.Program()
    fg.enable_static()
    try:
        with static.program_guard(main, static.Program()):
            x = static.data("x", [None, *row], "float64")
            x.stop_gradient = False
            out = build(fg, F, x)
            g, = static.gradients([(out * out).sum()], [x])
    finally:
        fg.disable_static()
    return main, out, g


def _torch(build, a):
    t = torch.tensor(a, requires_grad=True)
    out = build(torch, torch.nn.functional, t)
    (out * out).sum().backward()
    return out.detach().numpy(), t.grad.numpy()


CASES = {
    "x[1:]": (lambda m, F, x: x[1:], (3,)),
    "x[:-1]": (lambda m, F, x: x[:-1], (3,)),
    "x[::2]": (lambda m, F, x: x[::2], (3,)),
    "x[1::3]": (lambda m, F, x: x[1::3] * 2, (2,)),
    "x[2:n-1]": (lambda m, F, x: x[2:x.shape[0] - 1], (3,)),
    "x[:4]": (lambda m, F, x: x[:4] + 1, (3,)),
    "x[3:4]": (lambda m, F, x: x[3:4], (2,)),
    "x[1:-1:2]": (lambda m, F, x: x[1:-1:2], (3,)),
    "cumsum of x[1:]": (lambda m, F, x: x[1:].cumsum(0), (3,)),
    "sort of x[1:]": (lambda m, F, x: x[1:].sort(0)[0], (3,)),
    "x[1:].T @ x[1:]": (lambda m, F, x: x[1:].T @ x[1:], (3,)),
    "softmax over x[:-2]": (lambda m, F, x: m.softmax(x[:-2], 0), (3,)),
    "x[1:] - x[:-1]": (lambda m, F, x: x[1:] - x[:-1], (3,)),
    "narrow": (lambda m, F, x: x.narrow(0, 1, x.shape[0] - 1), (3,)),
    "diff": (lambda m, F, x: m.diff(x, dim=0), (3,)),
    "pad": (lambda m, F, x: F.pad(x.transpose(0, 1), (1, 2)).transpose(0, 1), (3,)),
    "cat with a known size": (lambda m, F, x: m.cat([x, m.ones(3, 3, dtype=m.float64)]), (3,)),
    "cat of x and x[1:]": (lambda m, F, x: m.cat([x, x[1:]]).tanh(), (3,)),
    "reshape of x[1:]": (lambda m, F, x: x[1:].reshape(-1), (3,)),
    "sum over x[1:]": (lambda m, F, x: x[1:].sum(0) * x[:1], (3,)),
    "mean over x[1:]": (lambda m, F, x: x[1:].mean(0), (3,)),
    "conv1d": (lambda m, F, x: F.conv1d(
        x.transpose(0, 1).unsqueeze(0), m.ones(2, 3, 2, dtype=m.float64) * 0.5, stride=2,
        padding=1), (3,)),
    "conv2d": (lambda m, F, x: F.conv2d(
        x.reshape(1, 1, x.shape[0], 4), m.ones(2, 1, 2, 2, dtype=m.float64), padding=(1, 0)),
        (4,)),
    "conv_transpose1d": (lambda m, F, x: F.conv_transpose1d(
        x.transpose(0, 1).unsqueeze(0), m.ones(3, 2, 3, dtype=m.float64) * 0.5, stride=2,
        padding=1), (3,)),
    "max_pool1d": (lambda m, F, x: F.max_pool1d(x.transpose(0, 1).unsqueeze(0), 2), (3,)),
    "avg_pool1d": (lambda m, F, x: F.avg_pool1d(x.transpose(0, 1).unsqueeze(0), 3, 2, 1),
                   (3,)),
}


@pytest.mark.parametrize("name", CASES)
def test_a_size_computed_from_the_unknown_size_gives_the_fed_sizes_numbers(name):
    build, row = CASES[name]
    main, out, g = _stage(build, row)
    exe = static.Executor()
    for n in SIZES:
        a = np.random.default_rng(n).standard_normal((n, *row))
        try:
            want, want_grad = _torch(build, a)
        except RuntimeError:
            with pytest.raises((ValueError, RuntimeError)):
                exe.run(main, feed={"x": a}, fetch_list=[out, g])
            continue
        got, got_grad = exe.run(main, feed={"x": a}, fetch_list=[out, g])
        assert got.shape == want.shape
        np.testing.assert_allclose(got, want, rtol=1e-10, atol=1e-12)
        np.testing.assert_allclose(got_grad, want_grad, rtol=1e-10, atol=1e-12)


def test_the_fitted_sizes_print_as_expressions_of_the_unknown_size():
    fg.enable_static()
    try:
        with static.program_guard(static.Program(), static.Program()):
            x = static.data("x", [None, 3], "float32")
            assert x[1:].type_str == "f32[N0-1,3]"
            assert x[::2].type_str == "f32[(N0+1)//2,3]"
            assert x[:4].type_str == "f32[min(N0,4),3]"
            assert fg.cat([x, x[1:]]).type_str == "f32[2*N0-1,3]"
            assert str(x[1:].shape[0]) == "N0-1"
    finally:
        fg.disable_static()


def test_a_size_read_from_a_fitted_size_is_recomputed_at_run_time():
    """`y.shape[0]` of y = x[1:] is N - 1 at every run, not the stand-in's number."""
    main = static.Program()
    fg.enable_static()
    try:
        with static.program_guard(main, static.Program()):
            x = static.data("x", [None, 2], "float64")
            y = x[1:]
            z = fg.zeros(y.shape[0], 2, dtype=fg.float64) + y.reshape(y.shape[0], 2)
            count = fg.ones(y.shape[0] + 1, dtype=fg.float64).sum()
    finally:
        fg.disable_static()
    for n in (1, 4, 9):
        a = np.arange(2.0 * n).reshape(n, 2)
        got, c = static.Executor().run(main, feed={"x": a}, fetch_list=[z, count])
        np.testing.assert_array_equal(got, a[1:])
        assert c == n


def test_a_size_that_lost_its_link_to_the_unknown_size_is_refused():
    """`int(x.shape[0]) - 3` is a plain number: staging it would freeze the stand-in's size."""
    fg.enable_static()
    try:
        with static.program_guard(static.Program(), static.Program()):
            x = static.data("x", [None, 3], "float32")
            with pytest.raises(ValueError, match="plain int"):
                x[int(x.shape[0]) - 3:]
    finally:
        fg.disable_static()


def test_squeezing_a_fitted_size_refuses_the_sizes_that_make_it_one():
    main = static.Program()
    fg.enable_static()
    try:
        with static.program_guard(main, static.Program()):
            x = static.data("x", [None, 3], "float64")
            y = x[1:].squeeze(0)
    finally:
        fg.disable_static()
    exe = static.Executor()
    got, = exe.run(main, feed={"x": np.ones((4, 3))}, fetch_list=[y])
    assert got.shape == (3, 3)
    with pytest.raises(ValueError, match="N0 is not 2"):
        exe.run(main, feed={"x": np.ones((2, 3))}, fetch_list=[y])


def test_unfold_over_the_unknown_size_gives_the_windows_and_refuses_sizes_below_one_window():
    main = static.Program()
    fg.enable_static()
    try:
        with static.program_guard(main, static.Program()):
            x = static.data("x", [None, 3], "float64")
            y = x.unfold(0, 2, 1)
    finally:
        fg.disable_static()
    exe = static.Executor()
    for n in (2, 5, 17):
        a = np.random.default_rng(n).standard_normal((n, 3))
        got, = exe.run(main, feed={"x": a}, fetch_list=[y])
        np.testing.assert_array_equal(got, torch.tensor(a).unfold(0, 2, 1).numpy())
    with pytest.raises(ValueError, match="N0 is not 1"):
        exe.run(main, feed={"x": np.ones((1, 3))}, fetch_list=[y])
