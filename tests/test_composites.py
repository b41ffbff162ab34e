"""The composite ops (built from other fluxgrad ops, no primitive of their own): values,
first and second order gradients against PyTorch in float64, and their input errors."""
import math

import numpy as np
import pytest

import fluxgrad as fg

torch = pytest.importorskip("torch")


def _check(fg_fn, torch_fn, *arrays, second_order=True):
    """Values and gradients (weighted by a random cotangent, and of that gradient once more)
    of fg_fn and torch_fn agree on float64 inputs; outputs may be tuples."""
    rng = np.random.default_rng(0)
    xs = [fg.tensor(a, dtype=fg.float64, requires_grad=True) for a in arrays]
    ts = [torch.tensor(a, dtype=torch.float64, requires_grad=True) for a in arrays]
    outs, t_outs = fg_fn(*xs), torch_fn(*ts)
    outs = outs if isinstance(outs, tuple) else (outs,)
    t_outs = t_outs if isinstance(t_outs, tuple) else (t_outs,)
    assert len(outs) == len(t_outs)
    for out, t_out in zip(outs, t_outs):
        assert out.shape == tuple(t_out.shape)
        np.testing.assert_allclose(out.detach().numpy(), t_out.detach().numpy(), rtol=1e-10,
                                   atol=1e-12)
    ws = [rng.standard_normal(o.shape) for o in outs]
    loss = sum((o * fg.tensor(w)).sum() for o, w in zip(outs, ws))
    t_loss = sum((o * torch.tensor(w)).sum() for o, w in zip(t_outs, ws))
    grads = fg.grad(loss, xs, create_graph=second_order)
    t_grads = torch.autograd.grad(t_loss, ts, create_graph=second_order)
    for g, t_g in zip(grads, t_grads):
        np.testing.assert_allclose(g.detach().numpy(), t_g.detach().numpy(), rtol=1e-9, atol=1e-10)
    if not second_order:
        return
    vs = [rng.standard_normal(a.shape) for a in arrays]
    inner = sum((g * fg.tensor(v)).sum() for g, v in zip(grads, vs))
    t_inner = sum((g * torch.tensor(v)).sum() for g, v in zip(t_grads, vs))
    if not t_inner.requires_grad:  # linear in every input: the second derivative is 0
        return
    grads2 = fg.grad(inner, xs, allow_unused=True)
    t_grads2 = torch.autograd.grad(t_inner, ts, allow_unused=True)
    for g, t_g in zip(grads2, t_grads2):
        expected = 0.0 if t_g is None else t_g.numpy()
        got = 0.0 if g is None else g.numpy()
        np.testing.assert_allclose(got, expected, rtol=1e-9, atol=1e-10)


def _rand(*shape, seed=1):
    return np.random.default_rng(seed + len(shape)).standard_normal(shape)


# --- linalg --------------------------------------------------------------------------------
@pytest.mark.parametrize("sa, sb, dims", [
    ((3, 4, 5), (4, 5, 2), 2), ((3, 4), (4, 2), 1), ((2, 3), (4,), 0),
    ((3, 4, 5), (5, 3, 2), ([0, 2], [1, 0])), ((2, 3), (3, 4), ([1], [0])),
    ((2, 3), (3, 2), (1, 0)),
])
def test_tensordot_matches_torch(sa, sb, dims):
    # fluxgrad also takes a pair of ints for single dimensions; torch wants lists
    t_dims = dims if isinstance(dims, int) else tuple(
        [d] if isinstance(d, int) else d for d in dims)
    _check(lambda a, b: fg.tensordot(a, b, dims), lambda a, b: torch.tensordot(a, b, t_dims),
           _rand(*sa), _rand(*sb, seed=5))


def test_tensordot_mismatched_sizes_raise():
    with pytest.raises(ValueError, match="sizes differ"):
        fg.tensordot(fg.ones((2, 3)), fg.ones((4, 2)), dims=1)
    with pytest.raises(ValueError, match="between 0"):
        fg.tensordot(fg.ones((2, 3)), fg.ones((3,)), dims=2)


@pytest.mark.parametrize("sa, sb, dim", [
    ((3,), (3,), None), ((4, 3), (4, 3), -1), ((3, 5), (3, 5), None), ((2, 3, 4), (1, 3, 4), 1),
])
def test_cross_matches_torch(sa, sb, dim):
    def t_cross(a, b):
        return torch.linalg.cross(a, b, dim=dim) if dim is not None else torch.cross(
            a, b, dim=next(i for i, n in enumerate(a.shape) if n == 3))
    _check(lambda a, b: fg.cross(a, b, dim), t_cross, _rand(*sa), _rand(*sb, seed=5))
    _check(lambda a, b: a.cross(b, dim), t_cross, _rand(*sa), _rand(*sb, seed=5))


def test_cross_on_a_dim_not_of_size_3_raises():
    with pytest.raises(ValueError, match="size 3"):
        fg.cross(fg.ones((3, 4)), fg.ones((3, 4)), dim=1)
    with pytest.raises(ValueError, match="no dimension of size 3"):
        fg.cross(fg.ones((2, 4)), fg.ones((2, 4)))


@pytest.mark.parametrize("sa, sb", [((2, 3), (4, 2)), ((3,), (2,)), ((2, 2), (3,)),
                                    ((2, 1, 3), (2, 2))])
def test_kron_matches_torch(sa, sb):
    _check(fg.kron, torch.kron, _rand(*sa), _rand(*sb, seed=5))
    _check(lambda a, b: a.kron(b), torch.kron, _rand(*sa), _rand(*sb, seed=5))


@pytest.mark.parametrize("s1, s2, p", [
    ((4, 3), (5, 3), 2.0), ((2, 4, 3), (2, 5, 3), 2.0), ((4, 3), (5, 3), 1.0),
    ((4, 3), (2, 3), 3.0),
    ((3, 2), (4, 2), math.inf),
])
def test_cdist_matches_torch(s1, s2, p):
    a, b = _rand(*s1), _rand(*s2, seed=5)
    _check(lambda a, b: fg.cdist(a, b, p), lambda a, b: torch.cdist(a, b, p), a, b,
           second_order=False)
    # torch.cdist has no double backward: second order against its definition
    _check(lambda a, b: fg.cdist(a, b, p),
           lambda a, b: torch.linalg.vector_norm(a[..., :, None, :] - b[..., None, :, :], p, -1),
           a, b)


def test_cdist_gradient_is_zero_at_zero_distance():
    x = fg.tensor([[1.0, 2.0], [3.0, 4.0]], dtype=fg.float64, requires_grad=True)
    (g,) = fg.grad(fg.cdist(x, x.detach()).sum(), x)
    t = torch.tensor([[1.0, 2.0], [3.0, 4.0]], dtype=torch.float64, requires_grad=True)
    (t_g,) = torch.autograd.grad(torch.cdist(t, t.detach()).sum(), t)
    assert np.all(np.isfinite(g.numpy()))
    np.testing.assert_allclose(g.numpy(), t_g.numpy(), atol=1e-12)


def test_cdist_feature_sizes_must_match():
    with pytest.raises(ValueError, match="same M"):
        fg.cdist(fg.ones((4, 3)), fg.ones((5, 2)))


# --- shape ---------------------------------------------------------------------------------
@pytest.mark.parametrize("indexing", ["ij", "xy"])
@pytest.mark.parametrize("sizes", [(3, 4), (2, 3, 4), (5,)])
def test_meshgrid_matches_torch(sizes, indexing):
    arrays = [_rand(n, seed=k) for k, n in enumerate(sizes)]
    _check(lambda *xs: fg.meshgrid(*xs, indexing=indexing),
           lambda *xs: torch.meshgrid(*xs, indexing=indexing), *arrays)
    _check(lambda *xs: fg.meshgrid(list(xs), indexing=indexing),
           lambda *xs: torch.meshgrid(*xs, indexing=indexing), *arrays)


def test_meshgrid_rejects_2d_tensors_and_unknown_indexing():
    with pytest.raises(ValueError, match="1-D"):
        fg.meshgrid(fg.ones((2, 2)), fg.ones(3))
    with pytest.raises(ValueError, match="indexing"):
        fg.meshgrid(fg.ones(2), fg.ones(3), indexing="ji")


@pytest.mark.parametrize("shape, n, dim", [((6,), 1, -1), ((3, 5), 2, 1), ((4, 3), 1, 0),
                                           ((3, 4), 6, -1), ((3, 4), 0, 0)])
def test_diff_matches_torch(shape, n, dim):
    _check(lambda x: fg.diff(x, n, dim), lambda x: torch.diff(x, n, dim), _rand(*shape))
    _check(lambda x: x.diff(n, dim), lambda x: torch.diff(x, n, dim), _rand(*shape))


def test_diff_with_prepend_and_append_matches_torch():
    _check(lambda x, p, a: fg.diff(x, 2, 1, prepend=p, append=a),
           lambda x, p, a: torch.diff(x, 2, 1, prepend=p, append=a),
           _rand(3, 4), _rand(3, 2, seed=7), _rand(3, 1, seed=9))


def test_diff_of_bool_is_not_equal():
    x = np.array([True, True, False, True])
    assert fg.diff(fg.tensor(x)).tolist() == torch.diff(torch.tensor(x)).tolist()


def test_diff_of_a_scalar_raises():
    with pytest.raises(ValueError, match="at least 1 dimension"):
        fg.diff(fg.tensor(1.0))


@pytest.mark.parametrize("shape", [(3, 4), (5,), (), (1, 3)])
def test_t_matches_torch(shape):
    _check(lambda x: x.t(), lambda x: x.t(), _rand(*shape))
    _check(fg.t, torch.t, _rand(*shape))


def test_t_of_a_3d_tensor_raises():
    with pytest.raises(ValueError, match="at most 2 dimensions"):
        fg.ones((2, 3, 4)).t()


# --- elementwise ---------------------------------------------------------------------------
def test_isclose_and_allclose_match_torch():
    a = np.array([1.0, 1.0 + 1e-6, 1.0 + 1e-3, np.inf, -np.inf, np.nan, np.inf, 0.0])
    b = np.array([1.0, 1.0, 1.0, np.inf, np.inf, np.nan, np.nan, 1e-9])
    ta, tb = torch.tensor(a), torch.tensor(b)
    for kw in ({}, {"equal_nan": True}, {"rtol": 1e-2, "atol": 0.0}):
        got = fg.isclose(fg.tensor(a), fg.tensor(b), **kw)
        assert got.dtype == fg.bool_
        assert got.tolist() == torch.isclose(ta, tb, **kw).tolist()
        assert fg.tensor(a).isclose(fg.tensor(b), **kw).tolist() == got.tolist()
    x = _rand(3, 4)
    assert fg.allclose(fg.tensor(x), fg.tensor(x + 1e-9)) is True
    assert fg.allclose(fg.tensor(x), fg.tensor(x[:1] + 1e-3)) is torch.allclose(
        torch.tensor(x), torch.tensor(x[:1] + 1e-3))
    assert fg.tensor(x).allclose(fg.tensor(x)) is True


def test_isclose_rejects_negative_tolerance():
    with pytest.raises(ValueError, match="non-negative"):
        fg.isclose(fg.ones(2), fg.ones(2), rtol=-1.0)


@pytest.mark.parametrize("kw", [{}, {"nan": 1.5, "posinf": 9.0, "neginf": -9.0}])
def test_nan_to_num_matches_torch(kw):
    x = np.array([[1.0, np.nan, np.inf], [-np.inf, -2.5, 0.0]])
    _check(lambda x: fg.nan_to_num(x, **kw), lambda x: torch.nan_to_num(x, **kw), x)
    _check(lambda x: x.nan_to_num(**kw), lambda x: torch.nan_to_num(x, **kw), x)
    _check(lambda x: fg.nan_to_num(x, **kw), lambda x: torch.nan_to_num(x, **kw), _rand(4))


def test_nan_to_num_float32_default_bounds_match_torch():
    x = np.array([np.nan, np.inf, -np.inf, 1.0], dtype=np.float32)
    assert fg.nan_to_num(fg.tensor(x)).tolist() == torch.nan_to_num(torch.tensor(x)).tolist()


# --- reduce --------------------------------------------------------------------------------
@pytest.mark.parametrize("fg_fn, t_fn", [(fg.std_mean, torch.std_mean),
                                         (fg.var_mean, torch.var_mean)], ids=["std", "var"])
@pytest.mark.parametrize("args, kw", [((), {}), ((1,), {}), ((0,), {"keepdim": True}),
                                      (((0, 1),), {"correction": 0}), ((1, False), {})])
def test_std_mean_and_var_mean_match_torch(fg_fn, t_fn, args, kw):
    _check(lambda x: fg_fn(x, *args, **kw), lambda x: t_fn(x, *args, **kw), _rand(3, 4))


def test_std_mean_legacy_unbiased_flag():
    _check(lambda x: fg.std_mean(x, False), lambda x: torch.std_mean(x, False), _rand(5))


def test_std_mean_rejects_both_unbiased_and_correction():
    with pytest.raises(TypeError, match="either unbiased or correction"):
        fg.var_mean(fg.ones(3), 0, True, correction=1)
