"""Random indexing programs (tests/indexing_programs.py: basic and advanced reads, writes by
setitem, index_put_, index_add / copy / fill, scatter, masked_fill / scatter / select, gather,
take, narrow, select, unfold) against PyTorch, with the harness of
tests/test_mixed_random_programs.py: in eager mode every value and its dtype, the gradient of
every float64 input and a Hessian-vector product by double backward; staged into a static
program (known sizes, and the first input's first size unknown); compiled with fullgraph=True
against eager PyTorch (values, then gradients through the compiled call)."""
import numpy as np
import pytest

import fluxgrad as fg
from fluxgrad import static
from indexing_programs import Program
from test_mixed_random_programs import (REFUSALS, _as_array, _check_gradients, _check_values,
                                        _float64, _inputs, _refuses_selection, _staged,
                                        _torch_gradients)

torch = pytest.importorskip("torch")

SEEDS = range(30)


@pytest.mark.parametrize("seed", SEEDS)
def test_eager_values_and_dtypes(seed):
    program = Program(seed)
    _check_values(program.run(fg, _inputs(fg, program, False)), program,
                  program.run(torch, _inputs(torch, program, False)))


@pytest.mark.parametrize("seed", SEEDS)
def test_eager_gradients_to_second_order(seed):
    program = Program(seed, grad=True)
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
    want = torch.autograd.grad(sum((w * torch.tensor(d)).sum() for _, w, d in pairs),
                               [xs[i] for i in _float64(program)], allow_unused=True)
    ours_dot = [(g * fg.tensor(d)).sum() for g, _, d in pairs if g is not None and
                g.requires_grad]
    got = fg.grad(sum(ours_dot), wrt, allow_unused=True) if ours_dot else [None] * len(wrt)
    for i, g, w in zip(_float64(program), got, want):
        shape = program.arrays[i].shape
        np.testing.assert_allclose(_as_array(g, shape), _as_array(w, shape), rtol=1e-7,
                                   atol=1e-9, err_msg=f"second order, x{i} of\n"
                                   f"{program.describe()}")


@pytest.mark.parametrize("unknown", [False, True], ids=["known", "unknown_batch"])
@pytest.mark.parametrize("seed", SEEDS)
def test_static(seed, unknown):
    program = Program(seed, grad=True)
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
    """Mixed dtypes (values), then float64 (gradients through the compiled call); each called
    twice (the trace, then the generated code)."""
    program = Program(seed, sized=True)
    compiled = fg.compile(lambda *xs: program.run(fg, xs), fullgraph=True)
    want = program.run(torch, _inputs(torch, program, False))
    for where in ("trace: ", "generated code: "):
        _check_values(compiled(*_inputs(fg, program, False)), program, want, where)
    program = Program(seed, grad=True, sized=True)
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
