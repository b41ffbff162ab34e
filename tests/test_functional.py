"""PaddlePaddle-style functional API: forward_grad, jvp, vjp, and the lazy Jacobian / Hessian."""
import numpy as np
import pytest

import fluxgrad as fg
from fluxgrad.autograd import Hessian, Jacobian, forward_grad, jvp, vjp

rng = np.random.default_rng(3)


def test_forward_grad_of_several_outputs_in_one_pass():
    x = fg.tensor([0.4], dtype="float64", requires_grad=True)
    ys = (x + x, x * x, fg.tanh(x))
    d_sum, d_sq, d_tanh = forward_grad(ys, x)
    assert d_sum.item() == pytest.approx(2.0)
    assert d_sq.item() == pytest.approx(0.8)
    assert d_tanh.item() == pytest.approx(1 - np.tanh(0.4) ** 2)


def test_forward_grad_needs_inputs_that_require_grad():
    x = fg.tensor([1.0])
    with pytest.raises(RuntimeError, match="does not require grad"):
        forward_grad(x * 2, x)


def test_tanh_derivatives_at_one():
    x = fg.tensor([1.0], dtype="float64", requires_grad=True)
    g1, = fg.grad(fg.tanh(x), x, create_graph=True)
    g2, = fg.grad(g1, x, create_graph=True)
    g3, = fg.grad(g2, x)
    t = np.tanh(1.0)
    expected = [1 - t * t, -2 * t * (1 - t * t), (1 - t * t) * (6 * t * t - 2)]
    np.testing.assert_allclose([g1.item(), g2.item(), g3.item()], expected, rtol=1e-12)
    np.testing.assert_allclose(expected, [0.41997434, -0.63970001, 0.62162668], atol=1e-8)


def test_paddle_style_jvp_and_vjp():
    x = fg.tensor(rng.standard_normal(3))
    out, dot = jvp(lambda t: t.exp(), x)
    np.testing.assert_allclose(dot.numpy(), np.exp(x.numpy()))
    out, g = vjp(lambda t: (t * t).sum(), x)
    np.testing.assert_allclose(g.numpy(), 2 * x.numpy())


def test_batched_jacobian_of_multiply_has_two_diagonal_blocks():
    x = fg.tensor(rng.standard_normal((2, 8)))
    y = fg.tensor(rng.standard_normal((2, 8)))
    J = Jacobian(fg.multiply, (x, y), is_batched=True)
    assert J.shape == (2, 8, 16)
    full = J[:].numpy()
    for b in range(2):
        np.testing.assert_allclose(full[b, :, :8], np.diag(y.numpy()[b]))
        np.testing.assert_allclose(full[b, :, 8:], np.diag(x.numpy()[b]))


def test_jacobian_is_lazy_and_caches_rows():
    x = fg.tensor(rng.standard_normal(4))
    J = Jacobian(lambda t: fg.tanh(t) * 3, x)
    assert J.passes == 0
    J[0]
    assert J.passes == 1
    J[0]
    assert J.passes == 1
    J[0:2]
    assert J.passes == 2


def test_jacobian_indexing_forms_agree_with_full_matrix():
    W = rng.standard_normal((5, 3))
    x = fg.tensor(rng.standard_normal(3))
    J = Jacobian(lambda t: fg.tensor(W) @ t, x)
    np.testing.assert_allclose(J[:].numpy(), W)
    np.testing.assert_allclose(J[-1].numpy(), W[-1])
    np.testing.assert_allclose(J[1:4, 0:2].numpy(), W[1:4, 0:2])
    np.testing.assert_allclose(J[..., 2].numpy(), W[:, 2])
    np.testing.assert_allclose(J[2, 1].numpy(), W[2, 1])


def test_jacobian_uses_forward_mode_when_columns_are_fewer():
    W = rng.standard_normal((6, 2))
    x = fg.tensor(rng.standard_normal(2))
    J = Jacobian(lambda t: fg.tensor(W) @ t, x, chunk_size=1)
    np.testing.assert_allclose(J[:].numpy(), W)
    assert J.passes == 2  # two JVP columns, not six VJP rows


def test_jacobian_computes_the_rows_it_needs_in_one_vectorised_pass_per_chunk():
    W = rng.standard_normal((7, 9))
    x = fg.tensor(rng.standard_normal(9))
    whole = Jacobian(lambda t: fg.tanh(fg.tensor(W) @ t), x)
    chunked = Jacobian(lambda t: fg.tanh(fg.tensor(W) @ t), x, chunk_size=3)
    expected = (1 - np.tanh(W @ x.numpy()) ** 2)[:, None] * W
    np.testing.assert_allclose(whole[:].numpy(), expected, rtol=1e-12)
    np.testing.assert_allclose(chunked[:].numpy(), expected, rtol=1e-12)
    assert (whole.passes, chunked.passes) == (1, 3)  # 7 rows: 3 + 3 + 1


def test_overlapping_row_and_column_requests_reuse_the_cache_and_agree():
    W = rng.standard_normal((5, 4))
    x = fg.tensor(rng.standard_normal((3, 4)))
    J = Jacobian(lambda t: fg.tanh(t @ fg.tensor(W).T), x, is_batched=True)
    expected = (1 - np.tanh(x.numpy() @ W.T) ** 2)[:, :, None] * W
    requests = [(slice(None), 1), (slice(None), slice(None), 0), (-1, slice(0, 3), 0),
                (slice(None), slice(1, 4), slice(None, None, 2)), (Ellipsis, 3), (slice(None),)]
    passes = []
    for index in requests:
        np.testing.assert_allclose(J[index].detach().numpy(), expected[index], rtol=1e-12)
        passes.append(J.passes)
    # each request computes only what it lacks, by the mode that needs fewer passes: row 1 by
    # VJP, then columns 0, 2, 3 and 1 by JVP; the third request is covered by column 0
    assert passes == [1, 2, 2, 3, 4, 5]


def test_jacobian_chunk_size_must_be_positive():
    with pytest.raises(ValueError, match="chunk_size"):
        Jacobian(lambda t: t, fg.tensor([1.0]), chunk_size=0)


def test_hessian_of_quadratic():
    A = rng.standard_normal((3, 3))
    A = A + A.T
    H = Hessian(lambda t: 0.5 * (t * (fg.tensor(A) @ t)).sum(), fg.tensor(rng.standard_normal(3)))
    np.testing.assert_allclose(H[:].numpy(), A, rtol=1e-12)


def test_hessian_of_non_scalar_function_raises():
    H = Hessian(lambda t: t * 2, fg.tensor(rng.standard_normal(3)))
    with pytest.raises(ValueError, match="scalar"):
        H[:]


def test_inputs_that_require_grad_are_separated_from_the_callers_graph():
    x = fg.tensor([1.0, 2.0], dtype="float64", requires_grad=True)
    z = x * 2  # captured by func: its path back to x is not a path from the input
    np.testing.assert_array_equal(jvp(lambda a: a + z, x)[1].numpy(), [1.0, 1.0])
    np.testing.assert_array_equal(vjp(lambda a: a + z, x)[1].numpy(), [1.0, 1.0])
    np.testing.assert_array_equal(Jacobian(lambda a: a + z, x)[:].numpy(), np.eye(2))
    z.sum().backward()  # the caller's graph is still there
    np.testing.assert_array_equal(x.grad.numpy(), [2.0, 2.0])


def test_one_tensor_given_twice_counts_as_two_inputs():
    x = fg.tensor([2.0, 3.0], dtype="float64", requires_grad=True)
    da, db = vjp(lambda a, b: a * b * b, (x, x))[1]
    np.testing.assert_array_equal(da.detach().numpy(), [4.0, 9.0])   # b^2
    np.testing.assert_array_equal(db.detach().numpy(), [8.0, 18.0])  # 2ab
    dot = jvp(lambda a, b: a * b * b, (x, x), (fg.ones(2, dtype="float64"),
                                               fg.zeros(2, dtype="float64")))[1]
    np.testing.assert_array_equal(dot.detach().numpy(), [4.0, 9.0])


def test_vjp_and_jvp_nest_in_each_other():
    x = fg.tensor([2.0], dtype="float64")
    cube_grad = lambda a: vjp(lambda b: (b ** 3).sum(), a)[1]  # noqa: E731  3 b^2
    assert jvp(cube_grad, x)[1].item() == pytest.approx(12.0)
    assert vjp(cube_grad, x)[1].item() == pytest.approx(12.0)
    assert not vjp(lambda b: (b ** 3).sum(), x)[1].requires_grad  # top level: no graph


def test_vjp_of_outputs_without_a_path_to_the_input_is_zero():
    x = fg.tensor([1.0, 2.0], dtype="float64")
    (doubled, index), g = vjp(lambda t: (t * 2, t.argmax()), x)
    np.testing.assert_array_equal(g.numpy(), [2.0, 2.0])
    np.testing.assert_array_equal(vjp(lambda t: fg.ones(2), x)[1].numpy(), [0.0, 0.0])


def test_forward_grad_refuses_a_graph_whose_saved_tensors_were_overwritten():
    x = fg.tensor([1.0, 2.0], dtype="float64", requires_grad=True)
    w = fg.tensor([3.0, 4.0], dtype="float64")
    z = x * w
    w.add_(1.0)
    with pytest.raises(RuntimeError, match="modified by an in-place operation"):
        forward_grad(z, x)


def test_hessian_of_a_function_that_ignores_an_input():
    v, w = fg.tensor([1.0, 2.0], dtype="float64"), fg.tensor([1.0, 2.0], dtype="float64")
    H = Hessian(lambda v, w: (v ** 2).sum(), (v, w))
    np.testing.assert_array_equal(H[:].numpy(), np.diag([2.0, 2.0, 0.0, 0.0]))


def test_empty_and_repeated_jacobian_indices():
    J = Jacobian(lambda t: t * 2, fg.tensor([1.0, 2.0, 3.0], dtype="float64"), chunk_size=2)
    assert J[0:0].shape == (0, 3) and J[:, 2:1].shape == (3, 0)
    assert J.passes == 0
    np.testing.assert_array_equal(J[[1, 1, 1, 1]].numpy(), np.tile([0.0, 2.0, 0.0], (4, 1)))
    assert J.passes == 1  # one unique row


@pytest.mark.parametrize("index, error, message", [
    ((0, 5), IndexError, "index 5 is out of range for axis 1"),
    (None, TypeError, "indexed with ints, slices"),
    ((Ellipsis, Ellipsis), IndexError, "only one ellipsis"),
])
def test_bad_jacobian_indices_are_errors_that_name_them(index, error, message):
    J = Jacobian(lambda t: t * 2, fg.tensor([1.0, 2.0, 3.0]))
    with pytest.raises(error, match=message):
        J[index]


def test_unpack_dual_names_its_parts_as_torch_does():
    from fluxgrad.autograd import forward_ad
    with forward_ad.dual_level():
        y = forward_ad.make_dual(fg.tensor([1.0, 2.0]), fg.tensor([3.0, 4.0])) * 2
        unpacked = forward_ad.unpack_dual(y)
    np.testing.assert_array_equal(unpacked.primal.numpy(), [2.0, 4.0])
    np.testing.assert_array_equal(unpacked.tangent.numpy(), [6.0, 8.0])
    assert forward_ad.unpack_dual(fg.ones(2)).tangent is None
