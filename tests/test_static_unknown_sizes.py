"""Static programs over an unknown size (`static.data(name, [None, 3])`): arrays made from
sizes taken from it, and the ops and rules that use it, compute the numbers of the size fed
(checked against PyTorch on two sizes per program), or refuse clearly while the program is
built; never a result of the stand-in size."""
import numpy as np
import pytest
import torch

import fluxgrad as fg
from fluxgrad import static

SIZES = (1, 2, 5)


def _run(build, arrays, grad=True):
    """Build `build(*xs)` over inputs whose first size is unknown, with the gradient of the
    sum of its output; run it on `arrays`: (output, gradients)."""
    main = static.Program()
    fg.enable_static()
    try:
        with static.program_guard(main, static.Program()):
            xs = [static.data(f"x{i}", [None, *a.shape[1:]], "float64")
                  for i, a in enumerate(arrays)]
            for x in xs:
                x.stop_gradient = False
            out = build(*xs)
            gs = static.gradients([out.sum()], xs) if grad else []
    finally:
        fg.disable_static()
    got = static.Executor().run(main, feed={f"x{i}": a for i, a in enumerate(arrays)},
                                fetch_list=[out] + gs)
    return got[0], got[1:]


def _torch(build, arrays):
    ts = [torch.tensor(a, requires_grad=True) for a in arrays]
    out = build(*ts)
    out.sum().backward()
    return out.detach().numpy(), [t.grad.numpy() for t in ts]


def _check(build, torch_build, *row_shapes, grad=True):
    for n in SIZES:
        arrays = [np.random.default_rng(n).standard_normal((n, *s)) for s in row_shapes]
        got, grads = _run(build, arrays, grad)
        want, want_grads = _torch(torch_build, arrays)
        assert got.shape == want.shape
        np.testing.assert_allclose(got, want, rtol=1e-6, atol=1e-9)
        for g, w in zip(grads, want_grads if grad else []):
            np.testing.assert_allclose(g, w, rtol=1e-6, atol=1e-9)


CREATION = {
    "zeros(n, 3)": (lambda m, x: m.zeros(x.shape[0], 3, dtype=m.float64) + x),
    "ones([n, 1])": (lambda m, x: m.ones([x.shape[0], 1], dtype=m.float64) * x),
    "full((n,), 2.0)": (lambda m, x: m.full((x.shape[0],), 2.0, dtype=m.float64)[:, None] * x),
    "full int": (lambda m, x: m.full([x.shape[0], 3], 2) * x),
    "zeros(x.shape)": (lambda m, x: m.zeros(x.shape, dtype=m.float64) + 2 * x),
    "empty(n, 3) * 0": (lambda m, x: (m.empty(x.shape[0], 3, dtype=m.float64) * 0)
                        .nan_to_num() + x),
    "new_zeros": (lambda m, x: x.new_zeros(x.shape[0])[:, None] + x),
    "new_ones": (lambda m, x: x.new_ones((x.shape[0], 3)) * x),
    "arange(n)": (lambda m, x: m.arange(x.shape[0])[:, None] * x),
    "arange(0, 2n, 2)": (lambda m, x: m.arange(0, x.shape[0] * 2, 2)[:, None] * x),
    "arange(n) float": (lambda m, x: m.arange(x.shape[0], dtype=m.float64)[:, None] * x),
    "eye(n) @ x": (lambda m, x: m.eye(x.shape[0], dtype=m.float64) @ x),
    "eye(n, 3)": (lambda m, x: m.eye(x.shape[0], 3, dtype=m.float64) * x),
    "full((), n)": (lambda m, x: x * m.full((), x.shape[0], dtype=m.float64)),
    "x / tensor(n)": (lambda m, x: x / m.tensor(x.shape[0])),
    "x * tensor([n, 3]).sum()": (lambda m, x: x * m.tensor([x.shape[0], 3]).sum()),
    "x * (n * 0.5)": (lambda m, x: x * (x.shape[0] * 0.5)),
    "linspace(0, 1, n)": (lambda m, x: m.linspace(0, 1, x.shape[0], dtype=m.float64)[:, None]
                          * x),
    "logspace(0, 2, n)": (lambda m, x: m.logspace(0, 2, x.shape[0], dtype=m.float64)[:, None]
                          * x),
    "randn(x.shape) * 0": (lambda m, x: m.randn(x.shape, dtype=m.float64) * 0 + x),
}


@pytest.mark.parametrize("name", CREATION)
def test_an_array_made_from_an_unknown_size_has_the_size_fed(name):
    make = CREATION[name]
    _check(lambda x: make(fg, x), lambda x: make(torch, x), (3,))


def test_a_made_array_is_staged_not_a_constant_of_the_stand_in_size():
    main = static.Program()
    fg.enable_static()
    try:
        with static.program_guard(main, static.Program()):
            x = static.data("x", [None, 3], "float32")
            z = fg.zeros(x.shape[0], 3)
    finally:
        fg.disable_static()
    assert isinstance(z, static.Variable)
    assert str(z.shape[0]) == "N0" and z.shape[1] == 3
    got, = static.Executor().run(main, feed={"x": np.ones((4, 3), np.float32)}, fetch_list=[z])
    assert got.shape == (4, 3) and got.dtype == np.float32 and not got.any()


def test_a_made_array_fetched_without_the_feed_that_sets_its_size_is_refused():
    main = static.Program()
    fg.enable_static()
    try:
        with static.program_guard(main, static.Program()):
            static.data("x", [None, 3], "float32")
            z = fg.ones(main.vars["x"].shape[0], 2)
    finally:
        fg.disable_static()
    with pytest.raises(RuntimeError, match=r"unknown size N0.*\['x'\]"):
        static.Executor().run(main, feed={}, fetch_list=[z])


def test_a_size_computed_from_two_unknown_sizes_other_than_by_multiples_is_refused():
    main = static.Program()
    fg.enable_static()
    try:
        with static.program_guard(main, static.Program()):
            x = static.data("x", [None, None], "float32")
            with pytest.raises(ValueError, match="unknown dimension"):
                fg.zeros(x.shape[0] + x.shape[1], 3)
            with pytest.raises(ValueError, match="arange: a float range"):
                fg.arange(0.5, x.shape[0])
    finally:
        fg.disable_static()


def test_eager_creation_is_unchanged_while_static_mode_is_off():
    z = fg.zeros(10007, 2)
    assert isinstance(z, fg.Tensor) and not isinstance(z, static.Variable)
    assert z.shape == (10007, 2)


SIZED_OPS = {
    "cat of two unknown sizes": (lambda m, x: m.cat([x, 2 * x], 0) ** 2, (3,)),
    "reshape(-1)": (lambda m, x: x.reshape(-1) ** 2, (3,)),
    "reshape(-1, 2) of [N, 4]": (lambda m, x: x.reshape(-1, 2).sin(), (4,)),
    "flatten then reshape back": (lambda m, x: m.flatten(x).reshape(x.shape[0], 2, 2).cos(),
                                  (4,)),
    "stack then mean": (lambda m, x: m.stack([x, x * x]).reshape(-1, 3).mean(0), (3,)),
    "take_along_dim on the unknown axis": (
        lambda m, x: m.take_along_dim(x, x.argsort(0), 0) * x, (3,)),
    "cummax on the unknown axis": (lambda m, x: m.cummax(x, 0)[0] * x, (3,)),
    "pad on a known axis": (lambda m, x: m.nn.functional.pad(x, (1, 2)) ** 2, (3,)),
}


@pytest.mark.parametrize("name", SIZED_OPS)
def test_ops_on_an_unknown_size_compute_the_size_fed(name):
    build, row = SIZED_OPS[name]
    _check(lambda x: build(fg, x), lambda x: build(torch, x), row)


def test_a_run_whose_size_takes_another_path_than_the_programs_is_refused():
    """diagonal of [N, 3] has 3 entries for N >= 3 (the sizes the staging probes) but N
    for N < 3: a run at N = 2 is refused, not given results of the wrong shape."""
    main = static.Program()
    fg.enable_static()
    try:
        with static.program_guard(main, static.Program()):
            x = static.data("x", [None, 3], "float64")
            d = x.diagonal() * 2
    finally:
        fg.disable_static()
    exe = static.Executor()
    got, = exe.run(main, feed={"x": np.eye(4, 3)}, fetch_list=[d])
    np.testing.assert_array_equal(got, [2.0, 2.0, 2.0])
    with pytest.raises(ValueError, match=r"diagonal .* gives shape \[2\] .*N0=2.*f64\[3\]"):
        exe.run(main, feed={"x": np.ones((2, 3))}, fetch_list=[d])


def test_an_op_that_fits_an_unknown_size_to_a_known_one_is_refused_with_a_hint():
    main = static.Program()
    fg.enable_static()
    try:
        with static.program_guard(main, static.Program()):
            x = static.data("x", [None, 3], "float64")
            with pytest.raises(ValueError, match="give static.data the size this op needs"):
                x * fg.ones(4, 3, dtype=fg.float64)
    finally:
        fg.disable_static()
