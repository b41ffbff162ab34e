"""Random compositions of nn modules (tests/module_programs.py: convolutions with random
strides, padding, dilation and groups, transposed convolutions, norms in train and eval mode,
recurrent layers, attention, pooling, upsampling, pads) against PyTorch from the same
parameters and buffers: in eager mode the output, the running statistics after the call, the
gradients of the input and of every parameter, and a Hessian-vector product by double
backward; compiled with fullgraph=True as a training step (backward inside) and as a function
of its parameters (gradients through the compiled call); staged into a static program with the
parameters fed (known batch size, and an unknown one fed two sizes)."""
import numpy as np
import pytest

import fluxgrad as fg
from fluxgrad import static
from module_programs import Program

torch = pytest.importorskip("torch")

SEEDS = range(40)


def _array(t):
    if t is None:
        return None
    return t.detach().numpy(force=True) if isinstance(t, torch.Tensor) else t.detach().numpy()


def _close(got, want, what, rtol=1e-9, atol=1e-10):
    got, want = np.asarray(got), np.asarray(want)
    assert got.dtype == want.dtype and got.shape == want.shape, \
        f"{what}: {got.dtype}{list(got.shape)}, PyTorch's {want.dtype}{list(want.shape)}"
    np.testing.assert_allclose(got, want, rtol=rtol, atol=atol, err_msg=what)


def _parameters(modules):
    return [p for m in modules if m is not None for p in m.parameters()]


def _buffers(modules):
    return [b for m in modules if m is not None for b in m.buffers()]


def _floating(program):
    return program.x.dtype.kind == "f"


def _reference(program, x=None, create_graph=False):
    """PyTorch's output, its buffers after the call, its inputs and the loss's gradients."""
    modules = program.build(torch)
    x = torch.tensor(program.x if x is None else x, requires_grad=_floating(program))
    out = program.run(torch, modules, x)
    wrt = ([x] if _floating(program) else []) + _parameters(modules)
    grads = torch.autograd.grad(program.loss(torch, out), wrt, allow_unused=True,
                                create_graph=create_graph) if wrt else []
    grads = [torch.zeros_like(w) if g is None else g for g, w in zip(grads, wrt)]
    return out, [_array(b) for b in _buffers(modules)], wrt, grads


def _check_grads(got, want, program, where=""):
    for i, (g, w) in enumerate(zip(got, want)):
        g = np.zeros(w.shape) if g is None else _array(g)
        _close(g, _array(w), f"{where}gradient {i} of\n{program.describe()}", 1e-8, 1e-9)


@pytest.mark.parametrize("seed", SEEDS)
def test_eager(seed):
    program = Program(seed)
    want, want_buffers, t_wrt, t_grads = _reference(program, create_graph=True)
    modules = program.build(fg)
    x = fg.tensor(program.x, requires_grad=_floating(program))
    out = program.run(fg, modules, x)
    _close(_array(out), _array(want), f"output of\n{program.describe()}")
    for i, (b, w) in enumerate(zip(_buffers(modules), want_buffers)):
        _close(_array(b), w, f"buffer {i} after the call of\n{program.describe()}")
    wrt = ([x] if _floating(program) else []) + _parameters(modules)
    if not wrt:
        return
    grads = fg.grad(program.loss(fg, out), wrt, allow_unused=True, create_graph=True)
    _check_grads(grads, t_grads, program)
    if not _floating(program):
        return
    # second order: d/d(x, params) <d loss/dx, v>
    v = np.random.default_rng(seed).uniform(-1, 1, program.x.shape)
    if t_grads[0].requires_grad:
        want2 = torch.autograd.grad((t_grads[0] * torch.tensor(v)).sum(), t_wrt,
                                    allow_unused=True)
    else:  # (x's gradient is a constant: no second order)
        want2 = [None] * len(t_wrt)
    want2 = [torch.zeros_like(w) if g is None else g for g, w in zip(want2, t_wrt)]
    got2 = fg.grad((grads[0] * fg.tensor(v)).sum(), wrt, allow_unused=True) if \
        grads[0] is not None and grads[0].requires_grad else [None] * len(wrt)
    for i, (g, w) in enumerate(zip(got2, want2)):
        g = np.zeros(tuple(w.shape)) if g is None else _array(g)
        _close(g, _array(w), f"second order, {i} of\n{program.describe()}", 1e-7, 1e-8)


@pytest.mark.parametrize("seed", SEEDS)
def test_compiled_training_step(seed):
    """backward() inside the compiled function: parameters' .grad and the buffers."""
    program = Program(seed)
    want, want_buffers, _, t_grads = _reference(program)
    modules = program.build(fg)
    params = _parameters(modules)

    def step(x):
        out = program.run(fg, modules, x)
        if params:
            program.loss(fg, out).backward()
        return out.detach()
    compiled = fg.compile(step, fullgraph=True)
    out = compiled(fg.tensor(program.x))
    _close(_array(out), _array(want), f"compiled output of\n{program.describe()}")
    _check_grads([p.grad for p in params], t_grads[_floating(program):], program, "compiled ")
    for i, (b, w) in enumerate(zip(_buffers(modules), want_buffers)):
        _close(_array(b), w, f"compiled: buffer {i} after the call of\n{program.describe()}")


class _WithParameters:
    """A module called with other parameters (func.functional_call), as a layer is."""

    def __init__(self, module, params):
        self.module, self.params = module, params

    def __call__(self, *args, **kwargs):
        return fg.func.functional_call(self.module, self.params, args, kwargs)


def _run_with(program, modules, named, values, x):
    for k, (layer, module) in enumerate(zip(program.layers, modules)):
        if module is not None:
            module = _WithParameters(module, {n: v for (j, n), v in zip(named, values)
                                              if j == k})
        x = layer.apply(fg, module, x)
    return x


def _named(modules):
    return [(k, n) for k, m in enumerate(modules) if m is not None
            for n, _ in m.named_parameters()]


@pytest.mark.parametrize("seed", SEEDS)
def test_compiled_function_of_parameters(seed):
    """The parameters passed as arguments; gradients through the compiled call (in eval
    mode: a compiled call that writes running statistics can't also return gradients)."""
    program = Program(seed, eval_mode=True)
    want, _, _, t_grads = _reference(program)
    modules = program.build(fg)
    named = _named(modules)
    params = [fg.tensor(_array(p), requires_grad=True) for p in _parameters(modules)]
    x = fg.tensor(program.x, requires_grad=_floating(program))
    compiled = fg.compile(lambda x, *ps: _run_with(program, modules, named, ps, x),
                          fullgraph=True)
    for where in ("trace: ", "generated code: "):
        out = compiled(x, *params)
        _close(_array(out), _array(want), f"{where}output of\n{program.describe()}")
        wrt = ([x] if _floating(program) else []) + params
        if wrt:
            _check_grads(fg.grad(program.loss(fg, out), wrt, allow_unused=True), t_grads,
                         program, where)


@pytest.mark.parametrize("unknown", [False, True], ids=["known", "unknown_batch"])
@pytest.mark.parametrize("seed", SEEDS)
def test_static(seed, unknown):
    program = Program(seed)
    modules = program.build(fg)
    named = _named(modules)
    main, startup = static.Program(), static.Program()
    fg.enable_static()
    try:
        with static.program_guard(main, startup):
            shape = [None, *program.x.shape[1:]] if unknown else list(program.x.shape)
            x = static.data("x", shape=shape, dtype=str(program.x.dtype))
            params = [static.data(f"p{i}", shape=list(p.shape), dtype="float64")
                      for i, p in enumerate(_parameters(modules))]
            out = _run_with(program, modules, named, params, x)
            wrt = ([x] if _floating(program) else []) + params
            grads = static.grad(program.loss(fg, out), wrt) if wrt else []
    finally:
        fg.disable_static()
    exe = static.Executor()
    exe.run(startup)
    feed = {f"p{i}": _array(p) for i, p in enumerate(_parameters(modules))}
    rng = np.random.default_rng(seed)
    inputs = [program.x]
    if unknown:  # another batch size, drawn as the first
        other = (program.x.shape[0] + 1,) + program.x.shape[1:]
        inputs.append(rng.integers(0, 7, other) if program.x.dtype.kind == "i" else
                      rng.uniform(-1.5, 1.5, other))
    for value in inputs:
        want, _, _, t_grads = _reference(program, value)
        got = exe.run(main, feed={"x": value, **feed}, fetch_list=[out] + grads)
        _close(got[0], _array(want), f"static output, batch {len(value)}, of\n"
                                     f"{program.describe()}")
        _check_grads([fg.tensor(g) for g in got[1:]], t_grads, program,
                     f"static, batch {len(value)}: ")
