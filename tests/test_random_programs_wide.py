"""Random programs over a wide vocabulary (tests/wide_programs.py: elementwise ops, broadcasting,
reductions over a dim with and without keepdim, scans, views, slicing, indexing, gather,
concatenation, padding, matrix products), in fluxgrad's eager mode, compiled by
fluxgrad.compile, and staged into a static program, against PyTorch: the value, the gradient of
every input, and (eager) a Hessian-vector product by double backward."""
import numpy as np
import pytest

import fluxgrad as fg
from fluxgrad import static
from wide_programs import Program

torch = pytest.importorskip("torch")

SEEDS = range(600)


def _torch_reference(program, arrays, hvp_direction=None):
    xs = [torch.tensor(a, requires_grad=True) for a in arrays]
    out = program.run(torch, *xs)
    grads = torch.autograd.grad(out, xs, allow_unused=True, create_graph=True)
    hvp = None
    if hvp_direction is not None and grads[0] is not None and grads[0].requires_grad:
        hvp, = torch.autograd.grad((grads[0] * torch.tensor(hvp_direction)).sum(), xs[0],
                                   allow_unused=True)
    as_array = [np.zeros(a.shape) if g is None else g.detach().numpy() for g, a in
                zip(grads, arrays)]
    hvp = np.zeros(arrays[0].shape) if hvp is None else hvp.detach().numpy()
    return out.item(), as_array, hvp


def _fd_hvp(program, arrays, direction, eps=1e-6):
    """Central finite differences of PyTorch's gradient along `direction`."""
    def gradient(x0):
        xs = [torch.tensor(a, requires_grad=True) for a in [x0] + arrays[1:]]
        g, = torch.autograd.grad(program.run(torch, *xs), xs[0], allow_unused=True)
        return np.zeros(x0.shape) if g is None else g.numpy()
    return (gradient(arrays[0] + eps * direction) - gradient(arrays[0] - eps * direction)) / (
        2 * eps)


def _as_arrays(grads, arrays):
    return [np.zeros(np.shape(a)) if g is None else np.asarray(g.detach().numpy())
            for g, a in zip(grads, arrays)]


def _check(value, grads, want_value, want_grads, program, arrays):
    np.testing.assert_allclose(value, want_value, rtol=1e-9, atol=1e-11)
    for i, (got, want) in enumerate(zip(grads, want_grads)):
        assert got.shape == want.shape
        if not np.allclose(got, want, rtol=1e-8, atol=1e-10):
            # at an exactly degenerate point (the std of equal numbers) PyTorch's gradient is
            # rounding amplified: then finite differences of the value decide
            _check_by_finite_differences(got, program, arrays, i)


def _check_by_finite_differences(grad, program, arrays, i, eps=1e-6):
    direction = np.random.default_rng(i).uniform(-1, 1, arrays[i].shape)

    def value(step):
        moved = list(arrays)
        moved[i] = arrays[i] + step * direction
        return program.run(torch, *[torch.tensor(a) for a in moved]).item()
    slope = (value(eps) - value(-eps)) / (2 * eps)
    np.testing.assert_allclose(np.sum(grad * direction), slope, rtol=1e-5, atol=1e-6)


def _case(seed):
    program = Program(seed)
    arrays = program.arrays()
    direction = np.random.default_rng(seed).uniform(-1, 1, arrays[0].shape)
    return program, arrays, direction, _torch_reference(program, arrays, direction)


@pytest.mark.parametrize("seed", SEEDS)
def test_eager(seed):
    program, arrays, direction, (value, grads, hvp) = _case(seed)
    xs = [fg.tensor(a, requires_grad=True) for a in arrays]
    out = program.run(fg, *xs)
    ours = fg.grad(out, xs, allow_unused=True, create_graph=True)
    _check(out.item(), _as_arrays(ours, arrays), value, grads, program, arrays)
    if ours[0] is not None and ours[0].requires_grad:
        got, = fg.grad((ours[0] * fg.tensor(direction)).sum(), xs[0], allow_unused=True)
        got = np.zeros(arrays[0].shape) if got is None else got.numpy()
    else:
        got = np.zeros(arrays[0].shape)
    if not np.allclose(got, hvp, rtol=1e-7, atol=1e-9, equal_nan=True):
        # PyTorch's second order is wrong in places (logcumsumexp followed by amin or amax
        # gives 0.135 where 6 x v = 0.9): then the finite differences of its gradient decide
        np.testing.assert_allclose(got, _fd_hvp(program, arrays, direction), rtol=1e-5,
                                   atol=1e-6)


@pytest.mark.parametrize("seed", SEEDS)
def test_compiled(seed):
    """The first call runs the trace; the second, on other values, the generated code."""
    program, arrays, _, _ = _case(seed)
    compiled = fg.compile(lambda *xs: program.run(fg, *xs), fullgraph=True)
    by_value_and_grad = fg.compile(fg.func.value_and_grad(
        lambda *xs: program.run(fg, *xs), tuple(range(len(arrays)))), fullgraph=True)
    for draw in (0, 1):
        arrays = program.arrays(draw)
        value, grads, _ = _torch_reference(program, arrays)
        xs = [fg.tensor(a, requires_grad=True) for a in arrays]
        out = compiled(*xs)
        _check(out.item(), _as_arrays(fg.grad(out, xs, allow_unused=True), arrays), value,
               grads, program, arrays)
        v, g = by_value_and_grad(*[fg.tensor(a) for a in arrays])
        _check(v.item(), _as_arrays(g, arrays), value, grads, program, arrays)
    assert compiled.trace_count == 1


@pytest.mark.parametrize("seed", SEEDS)
def test_static(seed):
    program, arrays, _, (value, grads, _) = _case(seed)
    main = static.Program()
    fg.enable_static()
    try:
        with static.program_guard(main, static.Program()):
            xs = [static.data(f"x{i}", shape=a.shape, dtype="float64")
                  for i, a in enumerate(arrays)]
            out = program.run(fg, *xs)
            off = static.grad(out, xs, prim=False)
            on = static.grad(out, xs, prim=True)
    finally:
        fg.disable_static()
    feed = {f"x{i}": a for i, a in enumerate(arrays)}
    got = static.Executor().run(main, feed=feed, fetch_list=[out] + off + on)
    n = len(arrays)
    _check(float(got[0]), [np.asarray(g) for g in got[1:1 + n]], value, grads, program, arrays)
    _check(float(got[0]), [np.asarray(g) for g in got[1 + n:]], value, grads, program, arrays)


@pytest.mark.parametrize("seed", SEEDS)
def test_static_with_an_unknown_batch_size(seed):
    """The first input's first size declared unknown (None): the program computes the same
    numbers for the size fed, or refuses to build or run; never a result of the stand-in size."""
    program, arrays, _, (value, grads, _) = _case(seed)
    if not arrays[0].ndim:
        return
    main = static.Program()
    fg.enable_static()
    try:
        with static.program_guard(main, static.Program()):
            xs = [static.data(f"x{i}", shape=[None, *a.shape[1:]] if i == 0 else a.shape,
                              dtype="float64") for i, a in enumerate(arrays)]
            try:
                out = program.run(fg, *xs)
                gs = static.grad(out, xs)
            except (ValueError, RuntimeError, IndexError):
                return  # refused while building (sizes the program combines with the unknown)
    finally:
        fg.disable_static()
    try:
        got = static.Executor().run(main, feed={f"x{i}": a for i, a in enumerate(arrays)},
                                    fetch_list=[out] + gs)
    except (ValueError, RuntimeError, IndexError):
        return
    _check(float(got[0]), [np.asarray(g) for g in got[1:]], value, grads, program, arrays)
