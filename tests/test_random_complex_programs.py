"""Random complex programs (tests/complex_programs.py: complex64/128 values built by complex,
polar or view_as_complex; elementwise ops, matmul, einsum, FFTs, sums, reads and writes of
.real and .imag; a real loss) against PyTorch: in eager mode the value, the gradients of the
real leaves and of the complex leaf (PyTorch's convention, dL/dx + i dL/dy), a second-order
product by double backward, and forward mode (func.jvp against torch.func.jvp); compiled with
fullgraph=True, and staged into a static program, against eager fluxgrad."""
import numpy as np
import pytest

import fluxgrad as fg
from fluxgrad import static
from complex_programs import Program

torch = pytest.importorskip("torch")

SEEDS = range(25)


def _array(t, like=None):
    if t is None:
        return np.zeros_like(like)
    return t.detach().numpy(force=True) if isinstance(t, torch.Tensor) else t.detach().numpy()


def _tolerances(program):
    return (1e-9, 1e-10) if program.dtype == "complex128" else (2e-4, 2e-5)


def _close(got, want, what, program, scale=1):
    rtol, atol = _tolerances(program)
    got, want = np.asarray(got), np.asarray(want)
    assert got.dtype == want.dtype and got.shape == want.shape, \
        f"{what}: {got.dtype}{list(got.shape)}, PyTorch's {want.dtype}{list(want.shape)}"
    np.testing.assert_allclose(got, want, rtol=rtol * scale, atol=atol * scale,
                               err_msg=f"{what} of {program.describe()}")


def _leaves(m, program):
    return [m.tensor(a, requires_grad=True) for a in (program.x, program.y, program.c)]


def _run(m, program, create_graph=False):
    leaves = _leaves(m, program)
    out = program.run(m, *leaves)
    loss = program.loss(m, out)
    grads = m.autograd.grad(loss, leaves, allow_unused=True, create_graph=create_graph)
    return leaves, out, loss, grads


@pytest.mark.parametrize("seed", SEEDS)
def test_eager_values_and_gradients_to_second_order(seed):
    program = Program(seed)
    t_leaves, t_out, t_loss, t_grads = _run(torch, program, create_graph=True)
    leaves, out, loss, grads = _run(fg, program, create_graph=True)
    _close(_array(out), _array(t_out), "value", program)
    _close(_array(loss), _array(t_loss), "loss", program)
    for i, (g, w) in enumerate(zip(grads, t_grads)):
        _close(_array(g, program.c if i == 2 else program.x), _array(w, program.c if i == 2
                                                                     else program.x),
               f"gradient {i}", program)
    # second order: d/d(leaves) of Re<grad_c, v>
    if t_grads[2] is None or not t_grads[2].requires_grad:
        return
    v = np.random.default_rng(seed).uniform(-1, 1, program.c.shape)
    want2 = torch.autograd.grad((t_grads[2].real * torch.tensor(v)).sum() +
                                (t_grads[2].imag * torch.tensor(v[..., ::-1].copy())).sum(),
                                t_leaves, allow_unused=True)
    got2 = fg.grad((grads[2].real * fg.tensor(v)).sum() +
                   (grads[2].imag * fg.tensor(v[..., ::-1].copy())).sum(), leaves,
                   allow_unused=True) if grads[2].requires_grad else [None] * 3
    for i, (g, w) in enumerate(zip(got2, want2)):
        like = program.c if i == 2 else program.x
        _close(_array(g, like), _array(w, like), f"second order, {i}", program, 10)


@pytest.mark.parametrize("seed", SEEDS)
def test_forward_mode_matches_torch_func_jvp(seed):
    program = Program(seed)
    rng = np.random.default_rng(seed + 1)
    tangents = [rng.uniform(-1, 1, program.x.shape), rng.uniform(-1, 1, program.y.shape),
                (rng.uniform(-1, 1, program.c.shape) + 1j * rng.uniform(
                    -1, 1, program.c.shape)).astype(program.dtype)]
    results = []
    for m in (torch, fg):
        def f(x, y, c, m=m):
            out = program.run(m, x, y, c)
            return out, program.loss(m, out)
        primals = tuple(m.tensor(a) for a in (program.x, program.y, program.c))
        (out, loss), (out_dot, loss_dot) = m.func.jvp(f, primals, tuple(m.tensor(t)
                                                                         for t in tangents))
        results.append([_array(a) for a in (out, loss, out_dot, loss_dot)])
    for what, got, want in zip(("value", "loss", "tangent", "loss's tangent"), *results[::-1]):
        _close(got, want, f"forward mode: {what}", program)


@pytest.mark.parametrize("seed", SEEDS)
def test_compiled_matches_eager(seed):
    program = Program(seed)
    _, want, want_loss, want_grads = _run(fg, program)
    compiled = fg.compile(lambda x, y, c: program.loss(fg, program.run(fg, x, y, c)),
                          fullgraph=True)
    for where in ("compiled, trace: ", "compiled, generated code: "):
        leaves = _leaves(fg, program)
        loss = compiled(*leaves)
        _close(_array(loss), _array(want_loss), f"{where}loss", program)
        grads = fg.grad(loss, leaves, allow_unused=True)
        for i, (g, w) in enumerate(zip(grads, want_grads)):
            like = program.c if i == 2 else program.x
            _close(_array(g, like), _array(w, like), f"{where}gradient {i}", program)


@pytest.mark.parametrize("seed", SEEDS)
def test_static_matches_eager(seed):
    program = Program(seed)
    _, want, want_loss, want_grads = _run(fg, program)
    main = static.Program()
    fg.enable_static()
    try:
        with static.program_guard(main, static.Program()):
            leaves = [static.data(name, shape=list(a.shape), dtype=str(a.dtype)) for name, a in
                      (("x", program.x), ("y", program.y), ("c", program.c))]
            out = program.run(fg, *leaves)
            loss = program.loss(fg, out)
            grads = static.grad(loss, leaves)
    finally:
        fg.disable_static()
    fetch = [out, loss] + [g for g in grads if g is not None]
    got = static.Executor().run(main, feed={"x": program.x, "y": program.y, "c": program.c},
                                fetch_list=fetch)
    _close(got[0], _array(want), "static: value", program)
    _close(got[1], _array(want_loss), "static: loss", program)
    it = iter(got[2:])
    for i, (g, w) in enumerate(zip(grads, want_grads)):
        like = program.c if i == 2 else program.x
        _close(np.zeros_like(like) if g is None else next(it), _array(w, like),
               f"static: gradient {i}", program)
