"""`fluxgrad.compile(fn, backend="numba")`: runs of elementwise equations on large arrays as
fused numba kernels (`fluxgrad.jit.kernels`), checked against eager mode (the same NumPy
ufuncs, so float results are equal bit for bit), PyTorch, and the NumPy code; the size from
which kernels are used; the fallback to NumPy code when numba is missing."""
import sys

import numpy as np
import pytest

import fluxgrad
from fluxgrad import Tensor, nn, optim
from fluxgrad.jit import kernels

numba = pytest.importorskip("numba")
# (NaN and infinities in, by design)
pytestmark = pytest.mark.filterwarnings("ignore::RuntimeWarning")
SIZE = 70_000  # three chunks of fusion's loop, the last one partial


@pytest.fixture(autouse=True)
def _kernel_cache_in_a_temporary_folder(monkeypatch, tmp_path_factory):
    """Kernels compiled by these tests go to the test session's folder, not the user's cache."""
    monkeypatch.setenv("FLUXGRAD_CACHE_DIR", str(tmp_path_factory.getbasetemp() / "cache"))


def _binary(rng):
    return rng.choice(["add", "sub", "mul", "div", "max", "min", "mask"])


def _random_program(seed, n_ops=14):
    """A function of (x, y, s: 0-d) applying `n_ops` random elementwise ops (a tanh, exp or
    abs now and then: NumPy calls between kernels) to earlier values and Python scalars,
    returning the last two values."""
    rng = np.random.default_rng(seed)
    plan = []
    for k in range(n_ops):
        kind = rng.choice(["binary", "binary", "binary", "scalar", "unary", "lr"])
        a, b = (int(rng.integers(max(0, k - 2), k + 2)) for _ in range(2))
        plan.append((kind, a, b, _binary(rng) if kind != "unary" else
                     rng.choice(["neg", "abs", "tanh", "exp_neg_abs", "sqrt_abs"]),
                     float(rng.choice([0.5, -2.0, 3.0, 0.1]))))

    def f(x, y, s):
        values = [x, y]
        for kind, a, b, op, c in plan:
            u, v = values[a], values[b]
            if kind == "scalar":
                v = c
            elif kind == "lr":
                v = s
            values.append(_apply(op, u, v))
        return values[-1], values[-2]
    return f


def _apply(op, u, v):
    if op == "add":
        return u + v
    if op == "sub":
        return u - v
    if op == "mul":
        return u * v
    if op == "div":
        return u / v
    if op == "max":
        return fluxgrad.maximum(u, v if isinstance(v, Tensor) else fluxgrad.full_like(u, v))
    if op == "min":
        return fluxgrad.minimum(u, v if isinstance(v, Tensor) else fluxgrad.full_like(u, v))
    if op == "mask":
        return u * (u > v)
    if op == "neg":
        return -u
    if op == "abs":
        return u.abs()
    if op == "tanh":
        return u.tanh()
    if op == "exp_neg_abs":
        return (-u.abs()).exp()
    return u.abs().sqrt()


def _inputs(dtype, size=SIZE, special=True, seed=0):
    rng = np.random.default_rng(seed)
    x = rng.standard_normal(size).astype(dtype)
    y = rng.standard_normal(size).astype(dtype)
    if special:  # NaN, infinities and signed zeros where the ops meet them
        x[:8] = [np.nan, np.inf, -np.inf, 0.0, -0.0, 1e30, -1e-30, 0.0]
        y[:8] = [1.0, np.inf, 2.0, -0.0, 0.0, 1e30, np.nan, 0.0]
    return x, y, np.array(0.3, dtype)


def _assert_same(actual, expected):
    """Equal values, NaN where NaN, and zeros of the same sign."""
    np.testing.assert_array_equal(actual, expected)
    assert actual.dtype == expected.dtype
    np.testing.assert_array_equal(np.signbit(actual), np.signbit(expected))


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("seed", range(4))
def test_random_elementwise_programs_give_eager_values_bit_for_bit(seed, dtype):
    f = _random_program(seed)
    compiled = fluxgrad.compile(f, backend="numba")
    x, y, s = _inputs(dtype)
    with fluxgrad.no_grad():
        expected = f(Tensor(x), Tensor(y), Tensor(s))
        for _ in range(2):  # traced (NumPy, equation by equation), then the generated code
            got = compiled(Tensor(x), Tensor(y), Tensor(s))
            for a, e in zip(got, expected):
                _assert_same(a.numpy(), e.numpy())
    assert "_kernel(" in compiled.code


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("seed", range(4, 7))
def test_random_elementwise_programs_give_eager_gradients(seed, dtype):
    f = _random_program(seed)
    compiled = fluxgrad.compile(f, backend="numba")
    x, y, s = _inputs(dtype, special=False, seed=seed)
    bars = [np.random.default_rng(seed + 10).standard_normal(SIZE).astype(dtype)
            for _ in range(2)]
    grads = []
    for fn in (f, compiled, compiled):
        leaves = [Tensor(a, requires_grad=True) for a in (x, y, s)]
        outs = fn(*leaves)
        sum((o * Tensor(b)).sum() for o, b in zip(outs, bars)).backward()
        grads.append([np.zeros_like(a) if t.grad is None else t.grad.numpy()
                      for t, a in zip(leaves, (x, y, s))])
    entry = next(iter(compiled._entries.values()))
    assert "_kernel(" in entry.joint.forward_source + entry.joint.backward_source
    tolerance = 1e-5 if dtype == np.float32 else 1e-12
    for got in grads[1:]:
        for a, e in zip(got, grads[0]):
            # (the 0-d input's gradient is a sum: the compiled code may add in another order)
            np.testing.assert_allclose(a, e, rtol=tolerance, atol=tolerance)


def test_kernels_match_pytorch():
    torch = pytest.importorskip("torch")

    def f(x, y):
        for _ in range(5):
            x = torch.maximum(x * y + 0.5, x) - y * 0.25 if isinstance(x, torch.Tensor) else \
                fluxgrad.maximum(x * y + 0.5, x) - y * 0.25
        return x / (y * y + 1)
    x, y, _ = _inputs(np.float32, special=False)
    compiled = fluxgrad.compile(f, backend="numba")
    with fluxgrad.no_grad():
        compiled(Tensor(x), Tensor(y))
        got = compiled(Tensor(x), Tensor(y)).numpy()
    assert "_kernel(" in compiled.code
    np.testing.assert_allclose(got, f(torch.tensor(x), torch.tensor(y)).numpy(), rtol=1e-6)


def test_integer_and_boolean_values_in_a_kernel_keep_numpys_dtypes():
    def f(k, j, x):
        n = k * 3 + j - k  # int64 throughout
        mask = (x > 0.5) == (n > 0)  # bool
        return n, mask, x * mask + n / 7  # a bool into float32, int64 / int -> float64
    rng = np.random.default_rng(0)
    k, j = rng.integers(-5, 5, SIZE), rng.integers(-5, 5, SIZE)
    x = rng.random(SIZE).astype(np.float32)
    compiled = fluxgrad.compile(f, backend="numba")
    with fluxgrad.no_grad():
        expected = f(Tensor(k), Tensor(j), Tensor(x))
        compiled(Tensor(k), Tensor(j), Tensor(x))
        got = compiled(Tensor(k), Tensor(j), Tensor(x))
    assert "_kernel(" in compiled.code
    for a, e in zip(got, expected):
        _assert_same(a.numpy(), e.numpy())


def _chain(x, y):
    return ((x * y + 0.5) * x - y) * 0.25


def _two_ops(x, y):
    return x * y + 0.5


@pytest.mark.parametrize("fn, size, kernel", [
    (_two_ops, kernels.MIN_SIZE[2] - 1, False), (_two_ops, kernels.MIN_SIZE[2], True),
    (_chain, 16, True)])  # 5 ops: a kernel at any size
def test_arrays_below_the_crossover_keep_the_numpy_calls(fn, size, kernel):
    compiled = fluxgrad.compile(fn, backend="numba")
    x, y, _ = _inputs(np.float32, size, special=False)
    with fluxgrad.no_grad():
        compiled(Tensor(x), Tensor(y))
        got = compiled(Tensor(x), Tensor(y)).numpy()
    assert ("_kernel(" in compiled.code) is kernel
    _assert_same(got, fn(x, y))


def test_without_the_backend_the_code_calls_numpy_only():
    compiled = fluxgrad.compile(_chain)
    x, y, _ = _inputs(np.float32, special=False)
    with fluxgrad.no_grad():
        compiled(Tensor(x), Tensor(y))
    assert "_kernel(" not in compiled.code


def test_without_numba_the_backend_warns_once_and_writes_numpy_code(monkeypatch):
    monkeypatch.setitem(sys.modules, "numba", None)  # `import numba` raises ImportError
    monkeypatch.setattr(kernels, "_missing", False)
    monkeypatch.setattr(kernels, "_warned", False)
    with pytest.warns(UserWarning, match=r"numba is not installed.*fluxgrad\[numba\]"):
        compiled = fluxgrad.compile(_chain, backend="numba")
    x, y, _ = _inputs(np.float32, special=False)
    with fluxgrad.no_grad():
        compiled(Tensor(x), Tensor(y))
        got = compiled(Tensor(x), Tensor(y)).numpy()
    assert "_kernel(" not in compiled.code and "_mul(" in compiled.code
    _assert_same(got, _chain(x, y))
    assert not kernels.available()


def test_a_large_sgd_step_updates_parameters_in_place_as_eager_mode():
    def run(compile_step):
        fluxgrad.manual_seed(0)
        model = nn.Sequential(nn.Linear(128, 96), nn.ReLU(), nn.Linear(96, 10))
        opt = optim.SGD(model.parameters(), lr=0.05, momentum=0.9)

        def step(x, y):
            opt.zero_grad()
            loss = nn.functional.cross_entropy(model(x), y)
            loss.backward()
            opt.step()
            return loss
        fn = fluxgrad.compile(step, backend="numba") if compile_step else step
        arrays = [p._data for p in model.parameters()]
        rng = np.random.default_rng(1)
        losses = [fn(Tensor(rng.standard_normal((64, 128)).astype(np.float32)),
                     Tensor(rng.integers(0, 10, 64))).item() for _ in range(5)]
        assert all(p._data is a for p, a in zip(model.parameters(), arrays))
        return losses, [p._data.copy() for p in model.parameters()], fn
    losses, params, _ = run(False)
    got_losses, got_params, compiled = run(True)
    assert "_kernel(" in compiled.code  # the weight's momentum and update: 12288 elements
    np.testing.assert_allclose(got_losses, losses, rtol=1e-6)
    for a, e in zip(got_params, params):
        np.testing.assert_allclose(a, e, rtol=1e-5, atol=1e-7)


def test_a_kernel_writing_into_its_input_reads_each_element_before_writing_it():
    from fluxgrad.static.program import Variable
    p, g, out = (Variable._new(None, name, (5000,), np.float32) for name in ("p", "g", "out"))
    lr = Variable._new(None, "lr", (), np.float32)
    product = kernels._step(np.multiply, (lr, g))
    steps = [(out, [product, kernels._step(np.subtract, (p, product))])]
    update = kernels.kernel(kernels.source(steps, [p, lr, g], [out], in_place=[(0, 0)]))
    rng = np.random.default_rng(0)
    pa, ga = rng.standard_normal(5000).astype(np.float32), rng.standard_normal(5000).astype(
        np.float32)
    expected = pa - np.float32(0.1) * ga
    separate = np.empty_like(pa)
    update(pa, np.array(0.1, np.float32), ga, separate)  # two arrays
    update(pa, np.array(0.1, np.float32), ga, pa)  # one array: the in-place loop
    _assert_same(separate, expected)
    _assert_same(pa, expected)


def test_kernels_are_cached_on_disk_and_work_without_a_writable_cache(monkeypatch, tmp_path):
    monkeypatch.setattr(kernels, "_compiled", {})
    monkeypatch.setenv("FLUXGRAD_CACHE_DIR", str(tmp_path))
    x, y, _ = _inputs(np.float32, special=False)
    for writable in (True, False):
        if not writable:
            monkeypatch.setattr(kernels, "_compiled", {})
            (tmp_path / "file").write_text("")
            monkeypatch.setenv("FLUXGRAD_CACHE_DIR", str(tmp_path / "file"))  # not a folder
        compiled = fluxgrad.compile(_chain, backend="numba")
        with fluxgrad.no_grad():
            compiled(Tensor(x), Tensor(y))
            _assert_same(compiled(Tensor(x), Tensor(y)).numpy(), _chain(x, y))
        assert "_kernel(" in compiled.code
    assert list((tmp_path / "numba").glob("kernel_*.py"))


def test_a_saved_module_with_kernels_runs_without_fluxgrad(tmp_path, run_without_fluxgrad):
    compiled = fluxgrad.compile(_chain, backend="numba")
    x, y, _ = _inputs(np.float32, special=False)
    with fluxgrad.no_grad():
        compiled(Tensor(x), Tensor(y))
    assert "_kernel(" in compiled.code
    compiled.save(tmp_path / "chain.py")
    np.savez(tmp_path / "inputs.npz", x=x, y=y, expected=_chain(x, y))
    run_without_fluxgrad(
        "from chain import _chain as f\n"
        "d = np.load('inputs.npz')\n"
        "np.testing.assert_array_equal(f(d['x'], d['y'])[0], d['expected'])\n"
        "print('ok')\n")
