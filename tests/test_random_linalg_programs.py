"""Random linear-algebra programs (tests/linalg_programs.py: solve, inv, det, slogdet, cholesky,
qr, svdvals, eigvalsh, norms of every order, pinv, lstsq, matrix_power, matrix_exp, triangular
and LU solves, on well-conditioned matrices, batched or not) against PyTorch: in eager mode the
value, the gradients and a Hessian-vector product by double backward; compiled with
fullgraph=True (value and gradients through the compiled call, called twice); staged into a
static program (known sizes, and an unknown first dim fed two sizes)."""
import numpy as np
import pytest

import fluxgrad as fg
from fluxgrad import static
from linalg_programs import Program

torch = pytest.importorskip("torch")

SEEDS = range(60)


def _array(t, shape=None):
    if t is None:
        return np.zeros(shape)
    return t.detach().numpy(force=True) if isinstance(t, torch.Tensor) else t.detach().numpy()


def _close(got, want, what, rtol=1e-8, atol=1e-9):
    assert got.shape == want.shape, f"{what}: shape {got.shape}, PyTorch's {want.shape}"
    np.testing.assert_allclose(got, want, rtol=rtol, atol=atol, err_msg=what)


def _reference(program, arrays=None, create_graph=False):
    xs = [torch.tensor(a, requires_grad=True) for a in (arrays or program.arrays)]
    out = program.run(torch, xs)
    grads = torch.autograd.grad(program.loss(torch, out), xs, allow_unused=True,
                                create_graph=create_graph)
    return xs, out, grads


def _check_grads(got, want, program, where=""):
    for i, (g, w) in enumerate(zip(got, want)):
        shape = program.arrays[i].shape
        _close(_array(g, shape), _array(w, shape), f"{where}gradient {i} of "
                                                   f"{program.describe()}")


@pytest.mark.parametrize("seed", SEEDS)
def test_eager_to_second_order(seed):
    program = Program(seed)
    t_xs, want, t_grads = _reference(program, create_graph=True)
    xs = [fg.tensor(a, requires_grad=True) for a in program.arrays]
    out = program.run(fg, xs)
    _close(_array(out), _array(want), f"value of {program.describe()}", 1e-9, 1e-10)
    grads = fg.grad(program.loss(fg, out), xs, allow_unused=True, create_graph=True)
    _check_grads(grads, t_grads, program)
    if t_grads[0] is None or not t_grads[0].requires_grad:
        return
    v = np.random.default_rng(seed).uniform(-1, 1, program.arrays[0].shape)
    want2 = torch.autograd.grad((t_grads[0] * torch.tensor(v)).sum(), t_xs, allow_unused=True)
    got2 = fg.grad((grads[0] * fg.tensor(v)).sum(), xs, allow_unused=True)
    for i, (g, w) in enumerate(zip(got2, want2)):
        shape = program.arrays[i].shape
        g, w = _array(g, shape), _array(w, shape)
        defined = ~np.isnan(w)  # (torch's second order of a norm at 0 is NaN: no reference)
        _close(g[defined], w[defined], f"second order, {i} of {program.describe()}", 1e-6,
               1e-7)


@pytest.mark.parametrize("seed", SEEDS)
def test_compiled(seed):
    program = Program(seed)
    _, want, t_grads = _reference(program)
    compiled = fg.compile(lambda *xs: program.run(fg, xs), fullgraph=True)
    for where in ("compiled, trace: ", "compiled, generated code: "):
        xs = [fg.tensor(a, requires_grad=True) for a in program.arrays]
        out = compiled(*xs)
        _close(_array(out), _array(want), f"{where}value of {program.describe()}", 1e-9, 1e-10)
        _check_grads(fg.grad(program.loss(fg, out), xs, allow_unused=True), t_grads, program,
                     where)


@pytest.mark.parametrize("unknown", [False, True], ids=["known", "unknown_first_dim"])
@pytest.mark.parametrize("seed", SEEDS)
def test_static(seed, unknown):
    program = Program(seed)
    if unknown and not program.batched:
        return
    feeds = [program.arrays]
    if unknown:
        rng = np.random.default_rng(seed)
        feeds.append([rng.uniform(-1, 1, (a.shape[0] + 1,) + a.shape[1:])
                      for a in program.arrays])
        try:
            other = program.run(torch, [torch.tensor(a) for a in feeds[1]])
        except RuntimeError:
            other = None
        if other is None or tuple(other.shape[1:]) != program.weight.shape:
            return  # (the first dim is not a batch dim of this program)
    main = static.Program()
    fg.enable_static()
    try:
        with static.program_guard(main, static.Program()):
            xs = [static.data(f"x{i}", shape=[None, *a.shape[1:]] if unknown else list(a.shape),
                              dtype="float64") for i, a in enumerate(program.arrays)]
            out = program.run(fg, xs)
            grads = static.grad(program.loss(fg, out), xs)
    finally:
        fg.disable_static()
    for arrays in feeds:
        _, want, t_grads = _reference(program, arrays)
        fetch = [out] + [g for g in grads if g is not None]
        got = static.Executor().run(main, feed={f"x{i}": a for i, a in enumerate(arrays)},
                                    fetch_list=fetch)
        where = f"static, first dim {arrays[0].shape[0]}: "
        _close(got[0], _array(want), f"{where}value of {program.describe()}", 1e-9, 1e-10)
        it = iter(got[1:])
        for i, (g, w) in enumerate(zip(grads, t_grads)):
            shape = arrays[i].shape
            _close(np.zeros(shape) if g is None else next(it), _array(w, shape),
                   f"{where}gradient {i} of {program.describe()}")
