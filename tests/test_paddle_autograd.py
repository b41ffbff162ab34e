"""PaddlePaddle's `incubate.autograd.vjp` / `jvp` and Paddle 2.5's `autograd.jacobian` /
`hessian` (lazy, of computed outputs), in eager mode and in static programs (prim on, as
Paddle's tutorials run them); values against torch.autograd.functional."""
import numpy as np
import pytest
import torch

import fluxgrad as fg
from fluxgrad import static
from fluxgrad.incubate import autograd as iad

from static_programs import build_program

A = np.array([0.3, -1.2, 2.0])


def _f(x):
    return fg.tanh(x) * x.sum()


def _tf(x):
    return torch.tanh(x) * x.sum()


def _g(x):
    return (x ** 3).sum() * x[0]


def _tg(x):
    return (x ** 3).sum() * x[0]


def _torch_jacobian():
    return torch.autograd.functional.jacobian(_tf, torch.tensor(A)).numpy()


def _torch_hessian():
    return torch.autograd.functional.hessian(_tg, torch.tensor(A)).numpy()


@pytest.fixture
def prim():
    iad.enable_prim()
    yield
    iad.disable_prim()


def test_eager_jacobian_is_lazy_and_matches_torch():
    x = fg.tensor(A, requires_grad=True)
    J = fg.autograd.jacobian(_f(x), x)
    assert J.shape == [3, 3] and "0 rows" in repr(J)
    np.testing.assert_allclose(J[1].detach().numpy(), _torch_jacobian()[1], rtol=1e-12)
    assert "1 rows" in repr(J)
    np.testing.assert_allclose(J[:].detach().numpy(), _torch_jacobian(), rtol=1e-12)
    np.testing.assert_allclose(J[0:2, 1].detach().numpy(), _torch_jacobian()[0:2, 1],
                               rtol=1e-12)


def test_eager_jacobian_of_tuples_is_nested_per_output_and_input():
    x1, x2 = fg.tensor(A, requires_grad=True), fg.tensor(A * 2, requires_grad=True)
    J = fg.autograd.jacobian((x1 * x2, x1.sum()), (x1, x2))
    np.testing.assert_allclose(J[0][1][:].detach().numpy(), np.diag(A), rtol=1e-12)
    np.testing.assert_allclose(J[1][0][:].detach().numpy(), np.ones(3))
    np.testing.assert_allclose(J[1][1][:].detach().numpy(), np.zeros(3))


def test_eager_batched_jacobian_is_b_m_n():
    xb = np.random.default_rng(0).standard_normal((4, 3))
    x = fg.tensor(xb, requires_grad=True)
    J = fg.autograd.jacobian(fg.tanh(x)[:, :2], x, batch_axis=0)
    assert J.shape == [4, 2, 3]
    expected = np.zeros((4, 2, 3))
    for b in range(4):
        expected[b, :, :2] = np.diag(1 - np.tanh(xb[b, :2]) ** 2)
    np.testing.assert_allclose(J[:].detach().numpy(), expected, rtol=1e-12)


def test_eager_hessian_matches_torch_and_refuses_a_vector_output():
    x = fg.tensor(A, requires_grad=True)
    np.testing.assert_allclose(fg.autograd.hessian(_g(x), x)[:].detach().numpy(),
                               _torch_hessian(), rtol=1e-12)
    with pytest.raises(ValueError, match="0-d"):
        fg.autograd.hessian(x * 2, x)
    with pytest.raises(ValueError, match="batch_axis"):
        fg.autograd.jacobian(x * 2, x, batch_axis=1)


def test_eager_vjp_and_jvp_return_the_output_and_the_product():
    x = fg.tensor(A)
    v = fg.tensor([1.0, 0.5, -2.0])
    out, vj = iad.vjp(_f, x, v)
    _, t_vj = torch.autograd.functional.vjp(_tf, torch.tensor(A), torch.tensor(v.numpy()))
    np.testing.assert_allclose(out.detach().numpy(), _tf(torch.tensor(A)).numpy(), rtol=1e-12)
    np.testing.assert_allclose(vj.detach().numpy(), t_vj.numpy(), rtol=1e-12)
    _, jv = iad.jvp(_f, x, v)
    _, t_jv = torch.autograd.functional.jvp(_tf, torch.tensor(A), torch.tensor(v.numpy()))
    np.testing.assert_allclose(jv.detach().numpy(), t_jv.numpy(), rtol=1e-12)


def _run_static(build, **feed):
    main, startup, fetches = build_program(build)
    return static.Executor().run(main, feed=feed, fetch_list=list(fetches))


def test_static_jacobian_and_hessian_are_staged_and_match_torch(prim):
    def build():
        x = static.data("x", [3], "float64")
        return fg.autograd.jacobian(_f(x), x)[:], fg.autograd.hessian(_g(x), x)[:]
    j, h = _run_static(build, x=A)
    np.testing.assert_allclose(j, _torch_jacobian(), rtol=1e-12)
    np.testing.assert_allclose(h, _torch_hessian(), rtol=1e-12)


def test_static_batched_jacobian_keeps_an_unknown_batch(prim):
    def build():
        x = static.data("x", [None, 3], "float64")
        return (fg.autograd.jacobian(fg.tanh(x)[:, :2], x, batch_axis=0)[:],)
    xb = np.random.default_rng(1).standard_normal((5, 3))
    j, = _run_static(build, x=xb)
    assert j.shape == (5, 2, 3)
    np.testing.assert_allclose(j[:, :, :2], np.stack([np.diag(1 - np.tanh(r[:2]) ** 2)
                                                      for r in xb]), rtol=1e-12)
    np.testing.assert_array_equal(j[:, :, 2], 0.0)


def test_static_vjp_and_jvp_are_staged_and_match_torch(prim):
    v = np.array([1.0, 0.5, -2.0])

    def build():
        x = static.data("x", [3], "float64")
        out, vj = iad.vjp(_f, x, fg.tensor(v))
        _, jv = iad.jvp(_f, x, fg.tensor(v))
        return out, vj, jv
    out, vj, jv = _run_static(build, x=A)
    _, t_vj = torch.autograd.functional.vjp(_tf, torch.tensor(A), torch.tensor(v))
    _, t_jv = torch.autograd.functional.jvp(_tf, torch.tensor(A), torch.tensor(v))
    np.testing.assert_allclose(out, _tf(torch.tensor(A)).numpy(), rtol=1e-12)
    np.testing.assert_allclose(vj, t_vj.numpy(), rtol=1e-12)
    np.testing.assert_allclose(jv, t_jv.numpy(), rtol=1e-12)


def test_static_vjp_refuses_a_cotangent_count_that_does_not_match():
    def build():
        x = static.data("x", [3], "float64")
        iad.vjp(lambda a: (a, a * 2), x, fg.ones(3, dtype=fg.float64))
    with pytest.raises(ValueError, match="2 outputs but 1 cotangents"):
        build_program(build)
