"""vmap and the transforms built on it (jacrev, jacfwd, hessian, per-example gradients,
functional_call), against torch.func and loops; the errors a user can cause."""
import numpy as np
import pytest

import fluxgrad as fg
from fluxgrad import func, nn

torch = pytest.importorskip("torch")
from torch.utils._pytree import tree_flatten  # noqa: E402
rng = np.random.default_rng(0)


def close(ours, theirs, rtol=1e-10):
    np.testing.assert_allclose(ours.numpy(), theirs.detach().numpy(), rtol=rtol, atol=1e-12)


def mlp(ns):
    """The same small MLP in fluxgrad (ns=fg) and torch (ns=torch)."""
    W1, W2 = (ns.tensor(w) for w in (MLP_W1, MLP_W2))
    return lambda x: ns.tanh(x @ W1.T) @ W2.T


MLP_W1, MLP_W2 = rng.standard_normal((6, 4)), rng.standard_normal((3, 6))


def test_vmap_moves_batch_dimensions_like_torch():
    a, b = rng.standard_normal((3, 4, 5)), rng.standard_normal((5, 4))

    def f(ns):
        return lambda x, y: (ns.exp(x) * y.sum(1)).sum(-1, keepdim=True)
    ours = func.vmap(f(fg), in_dims=(1, None), out_dims=1)(fg.tensor(a), fg.tensor(b))
    theirs = torch.func.vmap(f(torch), in_dims=(1, None), out_dims=1)(torch.tensor(a),
                                                                      torch.tensor(b))
    assert ours.shape == tuple(theirs.shape)
    close(ours, theirs)


def test_vmap_takes_and_returns_nested_structures():
    xs = {"a": fg.tensor(rng.standard_normal((4, 2))), "b": [fg.tensor(rng.standard_normal(4))]}
    out = func.vmap(lambda d: {"sum": d["a"].sum() + d["b"][0], "a": d["a"] * 2},
                    in_dims=({"a": 0, "b": [0]},))(xs)
    np.testing.assert_allclose(out["sum"].numpy(), xs["a"].numpy().sum(1) + xs["b"][0].numpy())
    np.testing.assert_allclose(out["a"].numpy(), xs["a"].numpy() * 2)


def test_vmap_of_vmap_matches_nested_loops():
    x, y = rng.standard_normal((3, 5)), rng.standard_normal((4, 5))
    pairwise = func.vmap(func.vmap(lambda a, b: (a * b).sum(), in_dims=(None, 0)),
                         in_dims=(0, None))(fg.tensor(x), fg.tensor(y))
    np.testing.assert_allclose(pairwise.numpy(), x @ y.T, rtol=1e-12)


def test_chunked_vmap_equals_unchunked():
    x = fg.tensor(rng.standard_normal((10, 3)))
    f = lambda t: fg.softmax(t * 3, -1)  # noqa: E731
    np.testing.assert_allclose(func.vmap(f, chunk_size=3)(x).numpy(), func.vmap(f)(x).numpy())


def test_jacrev_and_jacfwd_match_torch():
    x = rng.standard_normal(4)
    for ours_t, theirs_t in ((func.jacrev, torch.func.jacrev), (func.jacfwd, torch.func.jacfwd)):
        close(ours_t(mlp(fg))(fg.tensor(x)), theirs_t(mlp(torch))(torch.tensor(x)))
        close(ours_t(mlp(fg), chunk_size=2)(fg.tensor(x)),
              theirs_t(mlp(torch))(torch.tensor(x)))


def test_hessian_matches_torch():
    W = rng.standard_normal((5, 5))
    x = rng.standard_normal(5)
    ours = func.hessian(lambda t: (fg.tanh(fg.tensor(W) @ t) ** 2).sum())(fg.tensor(x))
    theirs = torch.func.hessian(lambda t: (torch.tanh(torch.tensor(W) @ t) ** 2).sum())(
        torch.tensor(x))
    close(ours, theirs)


def test_per_example_jacobians_match_torch():
    xs = rng.standard_normal((7, 4))
    close(func.vmap(func.jacrev(mlp(fg)))(fg.tensor(xs)),
          torch.func.vmap(torch.func.jacrev(mlp(torch)))(torch.tensor(xs)))


def test_per_example_gradients_match_torch():
    W, X, Y = rng.standard_normal((3, 4)), rng.standard_normal((6, 4)), rng.standard_normal((6, 3))

    def loss(ns):
        return lambda w, x, y: ((ns.tanh(w @ x) - y) ** 2).sum()
    ours = func.vmap(func.grad(loss(fg)), in_dims=(None, 0, 0))(*map(fg.tensor, (W, X, Y)))
    theirs = torch.func.vmap(torch.func.grad(loss(torch)), in_dims=(None, 0, 0))(
        *map(torch.tensor, (W, X, Y)))
    close(ours, theirs)


def test_per_example_gradients_of_a_module_through_functional_call():
    model = nn.Sequential(nn.Linear(4, 5), nn.Tanh(), nn.Linear(5, 2)).double()
    params = {k: v.detach() for k, v in model.named_parameters()}
    X, Y = fg.tensor(rng.standard_normal((6, 4))), fg.tensor(rng.standard_normal((6, 2)))

    def loss(p, x, y):
        return ((func.functional_call(model, p, (x,)) - y) ** 2).sum()
    per_example = func.vmap(func.grad(loss), in_dims=(None, 0, 0))(params, X, Y)
    for i in range(6):
        model.zero_grad()
        loss({k: v for k, v in model.named_parameters()}, X[i], Y[i]).backward()
        for name, p in model.named_parameters():
            np.testing.assert_allclose(per_example[name][i].numpy(), p.grad.numpy(), rtol=1e-6,
                                       atol=1e-7)


def test_per_example_aux_outputs_stay_per_example():
    xs = rng.standard_normal((4, 3))
    grads, aux = func.vmap(func.grad(lambda x: ((x ** 2).sum(), x.sin()), has_aux=True))(
        fg.tensor(xs))
    np.testing.assert_allclose(grads.numpy(), 2 * xs, rtol=1e-14)
    np.testing.assert_allclose(aux.numpy(), np.sin(xs), rtol=1e-14)


def test_gradient_through_vmap_matches_torch():
    W, X = rng.standard_normal((3, 4)), rng.standard_normal((6, 4))

    def f(ns, vmap, x):
        return lambda w: vmap(lambda v: ns.tanh(w @ v).sum())(x).sum()
    ours = func.grad(f(fg, func.vmap, fg.tensor(X)))(fg.tensor(W))
    theirs = torch.func.grad(f(torch, torch.func.vmap, torch.tensor(X)))(torch.tensor(W))
    close(ours, theirs)


def test_vmap_of_jvp_matches_torch():
    x, vs = rng.standard_normal(4), rng.standard_normal((5, 4))
    ours = func.vmap(lambda v: func.jvp(mlp(fg), (fg.tensor(x),), (v,))[1])(fg.tensor(vs))
    theirs = torch.func.vmap(lambda v: torch.func.jvp(mlp(torch), (torch.tensor(x),), (v,))[1])(
        torch.tensor(vs))
    close(ours, theirs)


def test_functional_call_leaves_the_module_unchanged():
    model = nn.Linear(3, 2)
    before = model.weight
    out = func.functional_call(model, {"weight": fg.zeros(2, 3), "bias": fg.ones(2)},
                               (fg.ones(4, 3),))
    np.testing.assert_allclose(out.numpy(), np.ones((4, 2)))
    assert model.weight is before


# --- errors ---------------------------------------------------------------------------------
def test_mismatched_batch_sizes_are_an_error_naming_them():
    with pytest.raises(ValueError, match="different batch sizes.*input 0: 3.*input 1: 4"):
        func.vmap(lambda a, b: a + b)(fg.ones(3, 2), fg.ones(4, 2))


def test_vmap_without_a_batched_input_is_an_error():
    with pytest.raises(ValueError, match="no argument is batched"):
        func.vmap(lambda a: a, in_dims=None)(fg.ones(3))


def test_in_dims_out_of_range_is_an_error():
    with pytest.raises(ValueError, match="in_dim 2 for argument 0 is out of range"):
        func.vmap(lambda a: a, in_dims=2)(fg.ones(3, 2))


def test_out_dims_out_of_range_is_an_error():
    with pytest.raises(ValueError, match="out_dim 2 is out of range.*shape \\[3\\]"):
        func.vmap(lambda a: a, out_dims=2)(fg.ones(2, 3))


def test_reading_a_batched_value_is_an_error():
    with pytest.raises(RuntimeError, match="different value for each of the 3 examples"):
        func.vmap(lambda a: fg.tensor(float(a.sum())))(fg.ones(3, 2))


def test_a_batched_tensor_used_after_its_vmap_is_an_error():
    kept = []
    func.vmap(lambda a: kept.append(a) or a)(fg.ones(3, 2))
    with pytest.raises(RuntimeError, match="after its vmap returned"):
        func.vmap(lambda b: b + kept[0])(fg.ones(3, 2))


def test_backward_inside_vmap_is_an_error():
    w = fg.ones(2, requires_grad=True)
    with pytest.raises(RuntimeError, match="backward\\(\\) inside vmap"):
        func.vmap(lambda a: (a * w).sum().backward() or a)(fg.ones(3, 2))


def test_grad_of_a_shared_input_inside_vmap_points_to_func_grad():
    w = fg.ones(2, requires_grad=True)
    with pytest.raises(RuntimeError, match="use\nfluxgrad.func.grad|fluxgrad.func.grad"):
        func.vmap(lambda a: fg.grad((a * w).sum(), w)[0])(fg.ones(3, 2))


def test_per_example_gradients_of_cross_entropy_with_class_targets():
    model = nn.Sequential(nn.Linear(4, 5), nn.Tanh(), nn.Linear(5, 3)).double()
    params = {k: v.detach() for k, v in model.named_parameters()}
    X = fg.tensor(rng.standard_normal((6, 4)))
    Y = fg.tensor(np.array([0, 2, 1, 1, 0, 2]))

    def loss(p, x, y):
        return fg.nn.functional.cross_entropy(func.functional_call(model, p, (x[None],)), y[None])
    per_example = func.vmap(func.grad(loss), in_dims=(None, 0, 0))(params, X, Y)
    for i in range(6):
        model.zero_grad()
        loss(dict(model.named_parameters()), X[i], Y[i]).backward()
        np.testing.assert_allclose(per_example["0.weight"][i].numpy(), model[0].weight.grad.numpy(),
                                   rtol=1e-6, atol=1e-7)


def test_out_of_range_class_targets_of_any_example_are_an_error():
    with pytest.raises(IndexError, match="target 7 is out of bounds for 3 classes"):
        func.vmap(lambda x, y: fg.nn.functional.cross_entropy(x[None], y[None]))(
            fg.ones(2, 3), fg.tensor(np.array([0, 7])))


def test_embedding_and_one_hot_of_batched_indices_match_the_unbatched_call():
    weight = fg.tensor(rng.standard_normal((5, 3)))
    idx = fg.tensor(np.array([[0, 4], [2, 2], [1, 3]]))
    F = fg.nn.functional
    np.testing.assert_array_equal(func.vmap(lambda r: F.embedding(r, weight))(idx).numpy(),
                                  F.embedding(idx, weight).numpy())
    np.testing.assert_array_equal(func.vmap(lambda r: F.one_hot(r, 5))(idx).numpy(),
                                  F.one_hot(idx, 5).numpy())


def test_random_numbers_inside_vmap_follow_the_randomness_argument():
    x = fg.zeros(4, 3)
    with pytest.raises(RuntimeError, match="randomness='different'"):
        func.vmap(lambda t: t + fg.randn(3))(x)
    fg.manual_seed(0)
    different = func.vmap(lambda t: t + fg.randn(3), randomness="different")(x).numpy()
    same = func.vmap(lambda t: fg.nn.functional.dropout(t + 1, 0.5), randomness="same")(x).numpy()
    assert len({tuple(row) for row in different}) == 4
    assert len({tuple(row) for row in same}) == 1 and set(same.ravel()) <= {0.0, 2.0}



def test_nested_vmap_with_different_randomness_draws_for_every_pair_of_examples():
    x = fg.zeros(3, 4, 5)
    for inner_dim in (0, 1):
        out = func.vmap(func.vmap(lambda a: a + fg.randn(a.shape[-1]), in_dims=inner_dim,
                                  randomness="different"), randomness="different")(x).numpy()
        expected = torch.func.vmap(torch.func.vmap(lambda a: a + torch.randn(a.shape[-1]),
                                                   in_dims=inner_dim, randomness="different"),
                                   randomness="different")(torch.zeros(3, 4, 5)).shape
        assert out.shape == tuple(expected)
        assert len({tuple(row) for row in out.reshape(-1, 5)}) == out.size // 5
    like = func.vmap(func.vmap(fg.rand_like, randomness="different"), randomness="different")(x)
    assert like.shape == (3, 4, 5) and len(set(like.numpy().ravel())) == 60
    masks = func.vmap(func.vmap(lambda a: fg.nn.functional.dropout(a + 1, 0.5),
                                randomness="different"), randomness="different")(
        fg.zeros(3, 4, 40)).numpy()
    assert masks.shape == (3, 4, 40) and len({tuple(row) for row in masks.reshape(12, 40)}) == 12


def test_nested_vmap_mixing_same_and_different_randomness():
    x = fg.zeros(3, 4, 5)
    same_outside = func.vmap(func.vmap(fg.rand_like, randomness="different"),
                             randomness="same")(x).numpy()
    assert same_outside.shape == (3, 4, 5)
    assert (same_outside == same_outside[:1]).all()
    assert len({tuple(row) for row in same_outside[0]}) == 4
    same_inside = func.vmap(func.vmap(fg.rand_like, randomness="same"),
                            randomness="different")(x).numpy()
    assert same_inside.shape == (3, 4, 5)
    assert (same_inside == same_inside[:, :1]).all()
    assert len({tuple(row) for row in same_inside[:, 0]}) == 3


def test_chunked_vmap_with_same_randomness_draws_the_same_numbers_in_every_chunk():
    out = func.vmap(lambda a: a + fg.randn(3), randomness="same", chunk_size=2)(fg.zeros(5, 3))
    assert (out.numpy() == out.numpy()[:1]).all()


def test_chunked_vmap_with_different_randomness_continues_the_stream():
    out = func.vmap(lambda a: a + fg.randn(3), randomness="different", chunk_size=2)(
        fg.zeros(5, 3))
    assert len({tuple(row) for row in out.numpy()}) == 5


@pytest.mark.parametrize("chunk_size", [None, 2])
def test_nested_and_dict_out_dims_match_torch(chunk_size):
    x = rng.standard_normal((5, 4))
    cases = [(lambda a: ((a, a * 2), a.sum()), ((0, 1), 0)),
             (lambda a: ((a, a * 2), a), ((0, -1), 1)),
             (lambda a: {"x": a, "y": [a.exp()]}, {"x": 0, "y": 1}),
             (lambda a: {"x": a, "y": [a.exp()]}, {"x": 1, "y": [0]})]
    for f, out_dims in cases:
        ours = func.vmap(f, out_dims=out_dims, chunk_size=chunk_size)(fg.tensor(x))
        theirs = torch.func.vmap(f, out_dims=out_dims)(torch.tensor(x))
        (ours_leaves, ours_spec), (theirs_leaves, theirs_spec) = map(tree_flatten, (ours, theirs))
        assert ours_spec == theirs_spec
        for o, t in zip(ours_leaves, theirs_leaves):
            assert o.shape == tuple(t.shape)
            close(o, t)


def test_chunked_vmap_returns_an_output_with_out_dim_none_once():
    shared = fg.tensor([1.0, 2.0])
    out, same = func.vmap(lambda a: (a * 2, shared * 3), out_dims=(0, None), chunk_size=2)(
        fg.ones(5, 3))
    np.testing.assert_array_equal(out.numpy(), np.full((5, 3), 2.0))
    np.testing.assert_array_equal(same.numpy(), [3.0, 6.0])


def test_out_dims_not_matching_the_output_structure_is_an_error():
    with pytest.raises(ValueError, match=r"out_dims entry \(0, 1, 0\).*tuple of 2"):
        func.vmap(lambda a: ((a, a), a), out_dims=(0, 1, 0))(fg.ones(3, 4))
    with pytest.raises(ValueError, match=r"out_dims entry \{'y': 0\}.*keys \['x'\]"):
        func.vmap(lambda a: {"x": a}, out_dims={"y": 0})(fg.ones(3, 4))


def test_out_dims_that_are_not_ints_are_a_type_error():
    with pytest.raises(TypeError, match="out_dims entries must be ints or None, got 0.5"):
        func.vmap(lambda a: a, out_dims=0.5)(fg.ones(3, 2))


def test_an_in_dim_for_a_non_tensor_argument_is_an_error():
    with pytest.raises(ValueError, match="in_dims entry 0 for argument 1 applies to a float.*"
                                         "use None"):
        func.vmap(lambda a, b: a * b, in_dims=(0, 0))(fg.ones(3), 2.0)
    with pytest.raises(ValueError, match="argument 0 applies to a int"):
        func.vmap(lambda d: d["x"] * d["n"])({"x": fg.ones(3), "n": 2})
    np.testing.assert_array_equal(
        func.vmap(lambda a, b: a * b, in_dims=(0, None))(fg.ones(3), 2.0).numpy(), [2.0] * 3)

def test_laplacian_is_differentiable_and_vmappable_for_pde_residuals():
    # f(u) = sum(u^3): Laplacian 6 * sum(u), whose gradient is 6 everywhere
    x = fg.tensor([1.0, 2.0, 3.0], requires_grad=True)
    lap = func.laplacian(lambda u: (u ** 3).sum(), x)
    np.testing.assert_allclose(lap.item(), 36.0, rtol=1e-12)
    np.testing.assert_allclose(fg.grad(lap, x)[0].numpy(), [6.0, 6.0, 6.0], rtol=1e-12)
    points = fg.tensor([[1.0, 2.0], [3.0, 4.0]])
    per_point = func.vmap(lambda p: func.laplacian(lambda u: (u ** 3).sum(), p))(points)
    np.testing.assert_allclose(per_point.numpy(), [18.0, 42.0], rtol=1e-12)
