"""Random programs that write in place into values the graph saved (tests/version_programs.py:
ops that save their input, their output or nothing; writes into the value or through a view of
it: strided slices, transpose, diagonal, unfold, narrow, as_strided, flat views) against
PyTorch: the same programs fail at backward (a saved value was modified in place, caught by
the version counter), with the same exception type; the others give PyTorch's loss and
gradient, eagerly and compiled with fullgraph=True."""
import numpy as np
import pytest

import fluxgrad as fg
from version_programs import Program

torch = pytest.importorskip("torch")

SEEDS = range(150)


def _torch(program):
    x = torch.tensor(program.x, requires_grad=True)
    loss = program.run(torch, x)
    try:
        return loss.item(), torch.autograd.grad(loss, x)[0].numpy()
    except RuntimeError as err:
        assert "modified by an inplace operation" in str(err)
        return None


@pytest.mark.parametrize("seed", SEEDS)
def test_eager(seed):
    program = Program(seed)
    want = _torch(program)
    x = fg.tensor(program.x, requires_grad=True)
    loss = program.run(fg, x)
    if want is None:
        with pytest.raises(RuntimeError, match="in.place"):
            fg.grad(loss, [x])
        return
    grad, = fg.grad(loss, [x])
    np.testing.assert_allclose(loss.item(), want[0], rtol=1e-10, err_msg=program.describe())
    np.testing.assert_allclose(grad.numpy(), want[1], rtol=1e-9, atol=1e-10,
                               err_msg=program.describe())


@pytest.mark.parametrize("seed", SEEDS)
def test_compiled(seed):
    program = Program(seed)
    want = _torch(program)
    if want is None:  # (a compiled call's graph is its own: it holds no stale saved value)
        return
    compiled = fg.compile(lambda x: program.run(fg, x), fullgraph=True)
    for where in ("trace", "generated code"):
        x = fg.tensor(program.x, requires_grad=True)
        loss = compiled(x)
        grad, = fg.grad(loss, [x])
        np.testing.assert_allclose(loss.item(), want[0], rtol=1e-10,
                                   err_msg=f"{where}: {program.describe()}")
        np.testing.assert_allclose(grad.numpy(), want[1], rtol=1e-9, atol=1e-10,
                                   err_msg=f"{where}: {program.describe()}")
