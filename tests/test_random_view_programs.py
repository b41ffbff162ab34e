"""Random chains of views with in-place writes through them (tests/view_programs.py) against
PyTorch: a program PyTorch refuses (a view that doesn't apply, a write into an expanded view or
into an output of split / chunk / unbind, a backward through a saved value written since) is
refused by fluxgrad with the same exception type; the others give PyTorch's base, value and
gradient, eagerly and compiled with fullgraph=True."""
import numpy as np
import pytest

import fluxgrad as fg
from view_programs import Program

torch = pytest.importorskip("torch")

SEEDS = range(100)
REFUSALS = (RuntimeError, IndexError, ValueError, TypeError)


def _torch(program):
    """PyTorch's (value, base, gradient), or the exception it raised."""
    x = torch.tensor(program.x, requires_grad=True)
    try:
        value, base = program.run(torch, x)
        grad, = torch.autograd.grad(value, x)
    except (RuntimeError, IndexError, ValueError, TypeError) as err:
        return err
    return value.item(), base.detach().numpy(), grad.numpy()


def _check(got, want, where):
    value, base, grad = got
    np.testing.assert_allclose(value.item(), want[0], rtol=1e-12, err_msg=where)
    np.testing.assert_allclose(base.detach().numpy(), want[1], rtol=1e-12, err_msg=where)
    np.testing.assert_allclose(grad.numpy(), want[2], rtol=1e-10, atol=1e-12, err_msg=where)


def _fluxgrad(program, run):
    x = fg.tensor(program.x, requires_grad=True)
    value, base = run(x)
    grad, = fg.grad(value, [x])
    return value, base, grad


@pytest.mark.parametrize("seed", SEEDS)
def test_eager(seed):
    program = Program(seed)
    want = _torch(program)
    if isinstance(want, Exception):
        # PyTorch's refusals of in-place writes and of stale views are RuntimeErrors: the same
        # here; where a view's arguments don't apply as well, which error comes first differs
        expected = RuntimeError if isinstance(want, RuntimeError) else REFUSALS
        with pytest.raises(expected):
            _fluxgrad(program, lambda x: program.run(fg, x))
        return
    if program.overlapping():  # (PyTorch's values depend on its loop order)
        return
    _check(_fluxgrad(program, lambda x: program.run(fg, x)), want, program.describe())


@pytest.mark.parametrize("seed", SEEDS)
def test_compiled(seed):
    program = Program(seed)
    want = _torch(program)
    if isinstance(want, Exception) or program.overlapping():
        return
    compiled = fg.compile(lambda x: program.run(fg, x), fullgraph=True)
    for where in ("trace", "generated code"):
        _check(_fluxgrad(program, compiled), want, f"{where}: {program.describe()}")
