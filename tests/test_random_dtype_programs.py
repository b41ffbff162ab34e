"""Random programs on integer, bool and mixed-dtype tensors (no gradients): each step's value
and dtype must be PyTorch's, in eager mode, compiled, and staged into a static program.

The steps exercise PyTorch's promotion rules (a Python float with an integer tensor gives
float32, int / int true-divides into float32, a 0-d tensor doesn't promote a dimensioned
one of its kind), floor division and remainder of negative numbers, bitwise and logical ops,
comparisons, integer reductions (sum and prod accumulate in int64, cumsum too), extrema and
argmax, sorting, where, clamp and casts.
"""
import numpy as np
import pytest

import fluxgrad as fg
from fluxgrad import static

torch = pytest.importorskip("torch")

INT_STEPS = [
    lambda m, x, y: x + y,
    lambda m, x, y: x - 2 * y,
    lambda m, x, y: x * y,
    lambda m, x, y: x // (y.abs() + 1),
    lambda m, x, y: x % (y.abs() + 1),
    lambda m, x, y: m.floor_divide(x, -3),
    lambda m, x, y: m.remainder(x, -4),
    lambda m, x, y: m.fmod(x, 3),
    lambda m, x, y: x / (y.abs() + 1),
    lambda m, x, y: x * 0.5,
    lambda m, x, y: x + True,
    lambda m, x, y: x & y,
    lambda m, x, y: x | 6,
    lambda m, x, y: x ^ y,
    lambda m, x, y: ~x,
    lambda m, x, y: x << 1,
    lambda m, x, y: x >> 1,
    lambda m, x, y: (x > y).int() + x,
    lambda m, x, y: m.where(x > 0, x, y),
    lambda m, x, y: m.where(x > y, 1.5, x),
    lambda m, x, y: x.clamp(-3, 4),
    lambda m, x, y: m.maximum(x, y),
    lambda m, x, y: m.minimum(x, y * 2),
    lambda m, x, y: x.abs(),
    lambda m, x, y: -x,
    lambda m, x, y: x.sign(),
    lambda m, x, y: x.sum(-1, keepdim=True) + x if x.ndim else x,
    lambda m, x, y: x.prod(-1) if x.ndim else x,
    lambda m, x, y: x.cumsum(-1) if x.ndim else x,
    lambda m, x, y: x.amax(-1) if x.ndim else x,
    lambda m, x, y: x.argmax(-1) if x.ndim else x,
    lambda m, x, y: m.sort(x, -1).values if x.ndim else x,
    lambda m, x, y: x.float().mean(-1) if x.ndim else x,
    lambda m, x, y: x.to(m.int32) * 3,
    lambda m, x, y: x.to(m.int16) + y.to(m.int8),
    lambda m, x, y: x.to(m.uint8) + 250,
    lambda m, x, y: x.bool() & (y > 0),
    lambda m, x, y: (x > 0).sum(-1) if x.ndim else x,
    lambda m, x, y: m.logical_xor(x > 0, y > 0).long() * x,
    lambda m, x, y: x.pow(2),
    lambda m, x, y: x * m.tensor(2),
    lambda m, x, y: x + m.tensor(1.5),
    lambda m, x, y: x.float() + m.tensor(1, dtype=m.float64),
    lambda m, x, y: x.half() * 2 if x.ndim else x,
]

SHAPES = [(), (3,), (2, 3), (1, 3), (4, 1)]


def _program(seed):
    rng = np.random.default_rng(seed)
    steps = [int(rng.integers(len(INT_STEPS))) for _ in range(int(rng.integers(2, 7)))]
    shapes = [SHAPES[rng.integers(len(SHAPES))] for _ in range(2)]
    arrays = [rng.integers(-9, 10, s) for s in shapes]

    def run(m, x, y):
        h = x
        for k in steps:
            h = INT_STEPS[k](m, h, y)
        return h
    return run, arrays


def _torch(run, arrays):
    try:
        out = run(torch, *[torch.tensor(a) for a in arrays])
    except (RuntimeError, TypeError, ValueError):
        return None
    return out.numpy()


def _same(got, want):
    got = np.asarray(got)
    assert got.dtype == want.dtype, f"dtype {got.dtype}, PyTorch's {want.dtype}"
    assert got.shape == want.shape
    np.testing.assert_allclose(got.astype(np.float64), want.astype(np.float64), rtol=1e-6,
                               atol=1e-6 if want.dtype == np.float16 else 0)


@pytest.mark.parametrize("seed", range(400))
def test_eager_compiled_and_static_match_torch(seed):
    run, arrays = _program(seed)
    want = _torch(run, arrays)
    xs = [fg.tensor(a) for a in arrays]
    if want is None:
        with pytest.raises((RuntimeError, TypeError, ValueError)):
            run(fg, *xs)
        return
    _same(run(fg, *xs).numpy(), want)
    compiled = fg.compile(lambda *xs: run(fg, *xs), fullgraph=True)
    for _ in range(2):
        _same(compiled(*xs).numpy(), want)
    main = static.Program()
    fg.enable_static()
    try:
        with static.program_guard(main, static.Program()):
            vs = [static.data(f"x{i}", shape=a.shape, dtype="int64") for i, a in enumerate(arrays)]
            out = run(fg, *vs)
    finally:
        fg.disable_static()
    got, = static.Executor().run(main, feed={f"x{i}": a for i, a in enumerate(arrays)},
                                 fetch_list=[out])
    _same(got, want)
