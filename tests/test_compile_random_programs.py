"""Random programs (the chains of tests/test_random_programs.py) under fluxgrad.compile, against
PyTorch: the value and first-order gradients of a compiled call (its backward is generated
code), the gradients of a compiled `func.value_and_grad`, and second order two ways (a compiled
`func.hessian`, and double backward through a compiled call with create_graph)."""
import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

import fluxgrad as fg
from test_random_programs import chain, shapes

torch = pytest.importorskip("torch")


def _program(steps):
    def program(x, y):
        return chain(torch if isinstance(x, torch.Tensor) else fg, steps, x, y)
    return program


def _close(got, want, rtol=1e-8, atol=1e-10):
    want = np.zeros(np.shape(got)) if want is None else want.detach().numpy()
    got = np.zeros(np.shape(want)) if got is None else np.asarray(got.detach().numpy())
    np.testing.assert_allclose(got, want, rtol=rtol, atol=atol)


@settings(max_examples=40, deadline=None, derandomize=True)
@given(shape_x=shapes, shape_y=shapes,
       steps=st.lists(st.tuples(st.sampled_from(["u", "b", "r"]), st.integers(0, 99)),
                      min_size=1, max_size=6),
       seed=st.integers(0, 2 ** 16))
def test_compiled_random_program_matches_torch_to_second_order(shape_x, shape_y, steps, seed):
    rng = np.random.default_rng(seed)
    x0, y0 = rng.uniform(-1.5, 1.5, shape_x), rng.uniform(-1.5, 1.5, shape_y)
    program = _program(steps)
    tx, ty = torch.tensor(x0, requires_grad=True), torch.tensor(y0, requires_grad=True)
    fx, fy = fg.tensor(x0, requires_grad=True), fg.tensor(y0, requires_grad=True)
    compiled = fg.compile(program)
    try:
        theirs = program(tx, ty)
    except (ValueError, RuntimeError):
        with pytest.raises((ValueError, RuntimeError)):
            compiled(fx, fy)
        return
    ours = compiled(fx, fy)
    np.testing.assert_allclose(ours.item(), theirs.item(), rtol=1e-10, atol=1e-12)
    t_grads = torch.autograd.grad(theirs, [tx, ty], create_graph=True, allow_unused=True)
    f_grads = fg.grad(ours, [fx, fy], create_graph=True, allow_unused=True)
    for got, want in zip(f_grads, t_grads):
        _close(got, want)

    value, grads = fg.compile(fg.func.value_and_grad(program, argnums=(0, 1)))(fx, fy)
    np.testing.assert_allclose(value.item(), theirs.item(), rtol=1e-10, atol=1e-12)
    for got, want in zip(grads, t_grads):
        _close(got, want)

    # second order: d/dx of <grad_x, v> by double backward through the compiled call's node
    v = rng.uniform(-1, 1, shape_x)
    if t_grads[0] is not None and t_grads[0].requires_grad:
        t_hvp = torch.autograd.grad((t_grads[0] * torch.tensor(v)).sum(), [tx, ty],
                                    allow_unused=True)
        f_hvp = fg.grad((f_grads[0] * fg.tensor(v)).sum(), [fx, fy], allow_unused=True)
        for got, want in zip(f_hvp, t_hvp):
            _close(got, want, rtol=1e-7, atol=1e-9)
    if np.size(x0) <= 6:
        want = torch.func.hessian(program)(torch.tensor(x0), torch.tensor(y0))
        got = fg.compile(fg.func.hessian(program))(fg.tensor(x0), fg.tensor(y0))
        _close(got, want, rtol=1e-7, atol=1e-9)
