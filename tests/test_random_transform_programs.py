"""Random stacks of function transforms over random bodies (tests/transform_programs.py:
vmap with random in_dims/out_dims and nesting, grad, jacrev, jacfwd, jvp, vjp, hessian,
functional_call) against torch.func: the value, and the gradient of a weighted sum of it
(differentiating through the transforms), in eager mode, compiled with fullgraph=True (called
twice: the trace, then the generated code), and staged into a static program."""
import numpy as np
import pytest

import fluxgrad as fg
from fluxgrad import static
from transform_programs import Program

torch = pytest.importorskip("torch")

SEEDS = range(60)


def _array(t):
    return t.detach().numpy(force=True) if isinstance(t, torch.Tensor) else t.detach().numpy()


def _close(got, want, what, rtol=1e-8, atol=1e-9):
    assert got.shape == want.shape, f"{what}: shape {got.shape}, torch.func's {want.shape}"
    np.testing.assert_allclose(got, want, rtol=rtol, atol=atol, err_msg=what)


def _reference(program):
    """torch.func's value, the weights of the sum and its gradients (None where torch's own
    backward through its transforms fails)."""
    xs = [torch.tensor(a, requires_grad=True) for a in program.arrays]
    out = program.function(torch)(*xs)
    weight = np.random.default_rng(len(program.transforms)).uniform(-1, 1, tuple(out.shape))
    grads = None
    if out.requires_grad:
        try:
            grads = torch.autograd.grad((out * torch.tensor(weight)).sum(), xs,
                                        allow_unused=True)
        except RuntimeError:  # (vector_norm's double backward writes in place, then fails)
            pass
    else:
        grads = (None, None)
    if grads is not None:
        grads = [np.zeros(a.shape) if g is None else _array(g) for g, a in zip(grads,
                                                                             program.arrays)]
    return _array(out), weight, grads


def _check(program, fn, where):
    want, weight, want_grads = _reference(program)
    xs = [fg.tensor(a, requires_grad=True) for a in program.arrays]
    out = fn(*xs)
    _close(_array(out), want, f"{where}value of {program.describe()}")
    if want_grads is None:
        return
    grads = fg.grad((out * fg.tensor(weight)).sum(), xs, allow_unused=True) if \
        out.requires_grad else (None, None)
    for i, (g, w) in enumerate(zip(grads, want_grads)):
        g = np.zeros(w.shape) if g is None else _array(g)
        _close(g, w, f"{where}gradient {i} of {program.describe()}", 1e-7, 1e-8)


@pytest.mark.parametrize("seed", SEEDS)
def test_eager(seed):
    program = Program(seed)
    _check(program, program.function(fg), "")


@pytest.mark.parametrize("seed", SEEDS)
def test_compiled(seed):
    program = Program(seed)
    function = program.function(fg)
    function(*[fg.tensor(a) for a in program.arrays])  # (builds its layers outside the trace)
    compiled = fg.compile(function, fullgraph=True)
    for where in ("compiled, trace: ", "compiled, generated code: "):
        _check(program, compiled, where)


@pytest.mark.parametrize("seed", SEEDS)
def test_static(seed):
    program = Program(seed)
    if "linear" in program.body:  # (a layer's parameters are eager state: not for static)
        return
    want, weight, want_grads = _reference(program)
    main = static.Program()
    fg.enable_static()
    try:
        with static.program_guard(main, static.Program()):
            xs = [static.data(f"x{i}", shape=list(a.shape), dtype="float64")
                  for i, a in enumerate(program.arrays)]
            out = program.function(fg)(*xs)
            grads = static.grad((out * fg.tensor(weight)).sum(), xs)
    finally:
        fg.disable_static()
    fetch = [out] + [g for g in grads if g is not None]
    got = static.Executor().run(main, feed={f"x{i}": a for i, a in enumerate(program.arrays)},
                                fetch_list=fetch)
    _close(got[0], want, f"static value of {program.describe()}")
    if want_grads is not None:
        it = iter(got[1:])
        for i, (g, w) in enumerate(zip(grads, want_grads)):
            g = np.zeros(w.shape) if g is None else next(it)
            _close(g, w, f"static gradient {i} of {program.describe()}", 1e-7, 1e-8)
