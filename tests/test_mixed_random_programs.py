"""Random programs over a mixed vocabulary (tests/mixed_programs.py: integer, bool, float32 and
float64 tensors with Python scalars, 0-d and empty tensors, reductions, indexing, scatter and
gather, sorting, shape ops, nn.functional ops and losses) against PyTorch: in eager mode every
value and its dtype, the gradient of every float64 input and a Hessian-vector product by double
backward; staged into a static program (known sizes, and the first input's first size unknown);
compiled with fullgraph=True (values and dtypes, then gradients through the compiled call)."""
import re

import numpy as np
import pytest

import fluxgrad as fg
from fluxgrad import static
from mixed_programs import Program

torch = pytest.importorskip("torch")

SEEDS = range(150)
REFUSALS = (ValueError, RuntimeError, IndexError, TypeError)


def _same(got, want, loose, what):
    got = np.asarray(got.detach().numpy() if hasattr(got, "detach") else got)
    want = want.detach().numpy()
    assert str(got.dtype) == str(want.dtype), f"{what}: dtype {got.dtype}, PyTorch's {want.dtype}"
    assert got.shape == want.shape, f"{what}: shape {got.shape}, PyTorch's {want.shape}"
    if want.dtype.kind == "f":
        tolerance = dict(rtol=1e-4, atol=1e-5) if loose else dict(rtol=1e-9, atol=1e-11)
        np.testing.assert_allclose(got, want, equal_nan=True, err_msg=what, **tolerance)
    else:
        np.testing.assert_array_equal(got, want, err_msg=what)


def _inputs(m, program, grad):
    return [m.tensor(a, requires_grad=grad and a.dtype == np.float64) for a in program.arrays]


def _float64(program):
    return [i for i, a in enumerate(program.arrays) if a.dtype == np.float64]


def _as_array(g, shape):
    if g is None:
        return np.zeros(shape)
    return g.detach().numpy(force=True) if isinstance(g, torch.Tensor) else g.detach().numpy()


def _torch_gradients(program, create_graph=False):
    """PyTorch's values, its inputs and the gradients of the loss (None where the program
    makes no float64 value from its inputs, or PyTorch's own backward fails)."""
    xs = _inputs(torch, program, True)
    values = program.run(torch, xs)
    loss = program.loss(torch, values)
    if loss is None or not loss.requires_grad:
        return values, xs, None
    try:
        grads = torch.autograd.grad(loss, [xs[i] for i in _float64(program)], allow_unused=True,
                                    create_graph=create_graph)
    except RuntimeError:  # (its backward of some ops on bool tensors negates a bool)
        return values, xs, None
    return values, xs, grads


def _check_values(got, program, want, where=""):
    assert len(got) == len(want)
    for k, (g, w) in enumerate(zip(got, want)):
        _same(g, w, program.loose[k], f"{where}v{k} of\n{program.describe()}")


def _check_gradients(got, program, want):
    for i, g, w in zip(_float64(program), got, want):
        shape = program.arrays[i].shape
        np.testing.assert_allclose(_as_array(g, shape), _as_array(w, shape), rtol=1e-8,
                                   atol=1e-10, err_msg=f"gradient of x{i} of\n"
                                   f"{program.describe()}")


@pytest.mark.parametrize("seed", SEEDS)
def test_eager_values_and_dtypes(seed):
    check_eager_values(Program, seed)


def check_eager_values(make, seed):
    program = make(seed)
    _check_values(program.run(fg, _inputs(fg, program, False)), program,
                  program.run(torch, _inputs(torch, program, False)))


@pytest.mark.parametrize("seed", SEEDS)
def test_eager_gradients_to_second_order(seed):
    check_second_order(Program, seed)


def check_second_order(make, seed):
    program = make(seed, grad=True)
    values, xs, grads = _torch_gradients(program, create_graph=True)
    ours = _inputs(fg, program, True)
    our_values = program.run(fg, ours)
    _check_values(our_values, program, values)
    if grads is None:
        return
    wrt = [ours[i] for i in _float64(program)]
    our_grads = fg.grad(program.loss(fg, our_values), wrt, allow_unused=True, create_graph=True)
    _check_gradients(our_grads, program, grads)
    rng = np.random.default_rng(seed)
    directions = [rng.uniform(-1, 1, program.arrays[i].shape) for i in _float64(program)]
    pairs = [(g, w, d) for g, w, d in zip(our_grads, grads, directions)
             if w is not None and w.requires_grad]
    if not pairs:
        return
    try:
        want = torch.autograd.grad(sum((w * torch.tensor(d)).sum() for _, w, d in pairs),
                                   [xs[i] for i in _float64(program)], allow_unused=True)
    except RuntimeError:  # (torch has no double backward of some scatter_reduce cases)
        return
    ours_dot = [(g * fg.tensor(d)).sum() for g, _, d in pairs if g is not None and
                g.requires_grad]
    got = fg.grad(sum(ours_dot), wrt, allow_unused=True) if ours_dot else [None] * len(wrt)
    for i, g, w in zip(_float64(program), got, want):
        shape = program.arrays[i].shape
        g, w = _as_array(g, shape), _as_array(w, shape)
        # where torch's second order is NaN (a norm or std at 0, where it has no derivative)
        # it gives no reference
        defined = ~np.isnan(w)
        np.testing.assert_allclose(g[defined], w[defined], rtol=1e-7, atol=1e-9,
                                   err_msg=f"second order, x{i} of\n{program.describe()}")


def _refuses_selection(err):
    """Whether `err` is a clear refusal of a size that depends on the data (`x[x > 0]`, a size
    U0, U1, ... of a static program)."""
    return re.search(r"\bU\d", str(err)) is not None


def _staged(program, unknown):
    """(program, its values, their gradients) staged in static mode; None where building
    refused (only allowed with an unknown size)."""
    main = static.Program()
    fg.enable_static()
    try:
        with static.program_guard(main, static.Program()):
            xs = [static.data(f"x{i}", shape=[None, *a.shape[1:]] if unknown and i == 0 else
                              a.shape, dtype=str(a.dtype)) for i, a in enumerate(program.arrays)]
            try:
                values = program.run(fg, xs)
                loss = program.loss(fg, values)
                grads = [] if loss is None or not _float64(program) else static.grad(
                    loss, [xs[i] for i in _float64(program)])
            except REFUSALS as err:
                if not (unknown or _refuses_selection(err)):
                    raise
                return None
    finally:
        fg.disable_static()
    return main, values, grads


@pytest.mark.parametrize("unknown", [False, True], ids=["known", "unknown_batch"])
@pytest.mark.parametrize("seed", SEEDS)
def test_static(seed, unknown):
    check_static(Program, seed, unknown)


def check_static(make, seed, unknown):
    program = make(seed, grad=True)
    if unknown and not program.arrays[0].ndim:
        return
    want_values, _, want_grads = _torch_gradients(program)
    staged = _staged(program, unknown)
    if staged is None:
        return
    main, values, grads = staged
    feed = {f"x{i}": a for i, a in enumerate(program.arrays)}
    try:
        got = static.Executor().run(main, feed=feed, fetch_list=list(values) + [
            g for g in grads if g is not None])
    except REFUSALS as err:
        if not (unknown or _refuses_selection(err)):
            raise
        return
    _check_values(got[:len(values)], program, want_values)
    if want_grads is not None:
        it = iter(got[len(values):])
        _check_gradients([None if g is None else fg.tensor(next(it)) for g in grads], program,
                         want_grads)


@pytest.mark.parametrize("seed", SEEDS)
def test_compiled(seed):
    check_compiled(Program, seed)


def check_compiled(make, seed):
    """Mixed dtypes (values), then float64 (gradients through the compiled call); each
    called twice (the trace, then the generated code)."""
    program = make(seed, sized=True)
    compiled = fg.compile(lambda *xs: program.run(fg, xs), fullgraph=True)
    want = program.run(torch, _inputs(torch, program, False))
    for where in ("trace: ", "generated code: "):
        _check_values(compiled(*_inputs(fg, program, False)), program, want, where)
    program = make(seed, grad=True, sized=True)
    compiled = fg.compile(lambda *xs: program.run(fg, xs), fullgraph=True)
    want_values, _, want_grads = _torch_gradients(program)
    for where in ("trace: ", "generated code: "):
        xs = _inputs(fg, program, True)
        values = compiled(*xs)
        _check_values(values, program, want_values, where)
        if want_grads is not None:
            _check_gradients(fg.grad(program.loss(fg, list(values)),
                                     [xs[i] for i in _float64(program)], allow_unused=True),
                             program, want_grads)
