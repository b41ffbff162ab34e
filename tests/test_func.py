"""Function transforms (fluxgrad.func) against closed forms, finite differences and torch.func."""
import gc

import numpy as np
import pytest

import fluxgrad as fg
from fluxgrad import func
from fluxgrad.autograd import forward_ad

rng = np.random.default_rng(7)


def f_tanh_sq(x, W):
    return (fg.tanh(W @ x) ** 2).sum()


def numeric_grad(f, x, eps=1e-6):
    g = np.zeros_like(x)
    for i in range(x.size):
        e = np.zeros_like(x)
        e.flat[i] = eps
        g.flat[i] = (f(x + e) - f(x - e)) / (2 * eps)
    return g


def test_grad_matches_closed_form():
    x = fg.tensor(rng.standard_normal(5), dtype="float64")
    g = func.grad(lambda x: (x.sin() * x).sum())(x)
    xn = x.numpy()
    np.testing.assert_allclose(g.numpy(), np.cos(xn) * xn + np.sin(xn), rtol=1e-12)


def test_grad_argnums_tuple_and_aux():
    x = fg.tensor([1.0, 2.0], dtype="float64")
    y = fg.tensor([3.0, 4.0], dtype="float64")
    (gx, gy), aux = func.grad(lambda x, y: ((x * y).sum(), x + y), argnums=(0, 1),
                              has_aux=True)(x, y)
    np.testing.assert_allclose(gx.numpy(), [3, 4])
    np.testing.assert_allclose(gy.numpy(), [1, 2])
    np.testing.assert_allclose(aux.numpy(), [4, 6])


def test_grad_of_non_scalar_raises():
    with pytest.raises(ValueError, match="one element"):
        func.grad(lambda x: x * 2)(fg.ones(3))


def test_grad_of_grad_is_second_derivative():
    x = fg.tensor(0.7, dtype="float64")
    d2 = func.grad(func.grad(lambda x: x.tanh()))(x)
    t = np.tanh(0.7)
    np.testing.assert_allclose(d2.item(), -2 * t * (1 - t * t), rtol=1e-12)


def test_value_and_grad_nested_dict():
    params = {"w": fg.tensor([1.0, -2.0], dtype="float64"), "b": fg.tensor(0.5, dtype="float64")}
    value, g = func.value_and_grad(lambda p: ((p["w"] * 3).sum() + p["b"] ** 2))(params)
    assert value.item() == pytest.approx(-3 + 0.25)
    np.testing.assert_allclose(g["w"].numpy(), [3, 3])
    assert g["b"].item() == pytest.approx(1.0)


def test_jvp_matches_finite_differences():
    x = rng.standard_normal(4)
    v = rng.standard_normal(4)
    f = lambda t: (t.exp() * t.sin())  # noqa: E731
    out, dot = func.jvp(f, (fg.tensor(x),), (fg.tensor(v),))
    eps = 1e-6
    fd = (np.exp(x + eps * v) * np.sin(x + eps * v) - np.exp(x - eps * v) * np.sin(x - eps * v))
    np.testing.assert_allclose(dot.numpy(), fd / (2 * eps), rtol=1e-6)
    np.testing.assert_allclose(out.numpy(), np.exp(x) * np.sin(x))


def test_jvp_tangent_of_wrong_shape_raises():
    with pytest.raises(ValueError, match="tangent has shape"):
        func.jvp(lambda t: t * 2, (fg.ones(3),), (fg.ones(2),))


def test_jvp_tangent_of_another_dtype_raises():
    with pytest.raises(TypeError, match="tangent has dtype .*int64.*primal has dtype .*float64"):
        func.jvp(lambda t: t * 2, (fg.ones(3, dtype="float64"),), (fg.ones(3, dtype="int64"),))


def test_jvp_primals_given_bare_instead_of_in_a_tuple_raises():
    with pytest.raises(TypeError, match="must be tuples .*jvp\\(f, \\(x,\\), \\(v,\\)\\)"):
        func.jvp(lambda t: t * 2, fg.ones(3), fg.ones(3))


def test_differentiating_an_argument_that_is_not_a_tensor_raises():
    with pytest.raises(TypeError, match="argument 1 is differentiated but holds no tensor"):
        func.grad(lambda a, b: (a * b).sum(), argnums=1)(fg.ones(3), 2.0)


def test_hutchinson_needs_a_positive_number_of_samples():
    with pytest.raises(ValueError, match="num_samples must be a positive int, got 0"):
        func.hutchinson_trace(lambda t: (t * t).sum(), fg.ones(3), num_samples=0)


def test_vjp_returns_cotangent_for_each_primal():
    x = fg.tensor(rng.standard_normal(3))
    y = fg.tensor(rng.standard_normal(3))
    out, vjp_fn = func.vjp(lambda a, b: a * b, x, y)
    u = fg.tensor([1.0, 2.0, 3.0], dtype="float64")
    gx, gy = vjp_fn(u)
    np.testing.assert_allclose(gx.numpy(), u.numpy() * y.numpy())
    np.testing.assert_allclose(gy.numpy(), u.numpy() * x.numpy())


def test_linearize_pushes_several_tangents_through_one_forward():
    x = fg.tensor(rng.standard_normal(3))
    out, jvp_fn = func.linearize(lambda t: t.tanh() * 2, x)
    for _ in range(2):
        v = rng.standard_normal(3)
        np.testing.assert_allclose(jvp_fn(fg.tensor(v)).numpy(),
                                   2 * (1 - np.tanh(x.numpy()) ** 2) * v, rtol=1e-12)


def test_jacrev_and_jacfwd_agree_with_closed_form():
    W = fg.tensor(rng.standard_normal((3, 4)))
    x = fg.tensor(rng.standard_normal(4))
    f = lambda x: fg.tanh(W @ x)  # noqa: E731
    expected = (1 - np.tanh(W.numpy() @ x.numpy()) ** 2)[:, None] * W.numpy()
    np.testing.assert_allclose(func.jacrev(f)(x).numpy(), expected, rtol=1e-12)
    np.testing.assert_allclose(func.jacfwd(f)(x).numpy(), expected, rtol=1e-12)


def test_hessian_of_quadratic_is_constant_matrix():
    A = rng.standard_normal((4, 4))
    A = A + A.T
    At = fg.tensor(A)
    H = func.hessian(lambda x: 0.5 * (x * (At @ x)).sum())(fg.tensor(rng.standard_normal(4)))
    np.testing.assert_allclose(H.numpy(), A, rtol=1e-12, atol=1e-12)


def test_hvp_equals_hessian_times_vector():
    W = fg.tensor(rng.standard_normal((5, 5)))
    x = fg.tensor(rng.standard_normal(5))
    v = fg.tensor(rng.standard_normal(5))
    H = func.hessian(lambda x: f_tanh_sq(x, W))(x)
    value, hv = func.hvp(lambda x: f_tanh_sq(x, W), (x,), (v,))
    np.testing.assert_allclose(hv.numpy(), H.numpy() @ v.numpy(), rtol=1e-10)
    assert value.item() == pytest.approx(f_tanh_sq(x, W).item())


def test_laplacian_of_sum_of_squares_is_2n():
    x = fg.tensor(rng.standard_normal(6))
    assert func.laplacian(lambda x: (x ** 2).sum(), x).item() == pytest.approx(12.0)


def test_hessian_diag_exact_and_hutchinson():
    x = fg.tensor(rng.standard_normal(4))
    f = lambda x: (x ** 3).sum()  # noqa: E731
    np.testing.assert_allclose(func.hessian_diag(f, x).numpy(), 6 * x.numpy(), rtol=1e-12)
    # for a separable f the Hutchinson estimate of the diagonal is exact: v*v == 1
    fg.manual_seed(0)
    np.testing.assert_allclose(func.hessian_diag(f, x, method="hutchinson", num_samples=3).numpy(),
                               6 * x.numpy(), rtol=1e-12)


def test_hutchinson_trace_converges_to_trace():
    A = rng.standard_normal((5, 5))
    At = fg.tensor(A + A.T)
    fg.manual_seed(1)
    estimate = func.hutchinson_trace(lambda x: 0.5 * (x * (At @ x)).sum(),
                                     fg.tensor(rng.standard_normal(5)), num_samples=2000)
    assert estimate.item() == pytest.approx(np.trace(A + A.T), abs=0.6)


def test_transforms_match_torch_func():
    torch = pytest.importorskip("torch")
    W = rng.standard_normal((6, 6))
    x = rng.standard_normal(6)
    v = rng.standard_normal(6)
    tW = torch.tensor(W)

    def tf(t):
        return (torch.tanh(tW @ t) ** 2).sum()
    ours_H = func.hessian(lambda t: f_tanh_sq(t, fg.tensor(W)))(fg.tensor(x)).numpy()
    np.testing.assert_allclose(ours_H, torch.func.hessian(tf)(torch.tensor(x)).numpy(),
                               rtol=1e-10, atol=1e-12)
    ours_jvp = func.jvp(lambda t: f_tanh_sq(t, fg.tensor(W)), (fg.tensor(x),),
                        (fg.tensor(v),))[1].item()
    theirs_jvp = torch.func.jvp(tf, (torch.tensor(x),), (torch.tensor(v),))[1].item()
    assert ours_jvp == pytest.approx(theirs_jvp, rel=1e-10)
    ours_J = func.jacrev(lambda t: fg.tanh(fg.tensor(W) @ t))(fg.tensor(x)).numpy()
    theirs_J = torch.func.jacrev(lambda t: torch.tanh(tW @ t))(torch.tensor(x)).numpy()
    np.testing.assert_allclose(ours_J, theirs_J, rtol=1e-12)


def test_third_derivative_by_nesting_transforms():
    x = fg.tensor([1.0, 2.0], dtype="float64")
    third = func.jacfwd(func.jacrev(func.grad(lambda t: (t ** 4).sum())))(x)
    expected = np.zeros((2, 2, 2))
    expected[0, 0, 0], expected[1, 1, 1] = 24.0, 48.0
    np.testing.assert_allclose(third.numpy(), expected)
    assert third.grad_fn is None  # top-level results carry no graph, as torch.func's


def test_gradient_of_a_forward_over_reverse_product():
    x = fg.tensor([1.0, 2.0], dtype="float64")
    v = fg.tensor([1.0, 0.5], dtype="float64")
    g = func.grad(lambda t: func.jvp(func.grad(lambda s: (s ** 4).sum()), (t,), (v,))[1].sum())(x)
    np.testing.assert_allclose(g.numpy(), 24 * x.numpy() * v.numpy())


def test_forward_over_forward_matches_closed_forms():
    x = fg.tensor([1.0, 2.0], dtype="float64")
    u = fg.tensor([0.5, -1.0], dtype="float64")
    v = fg.tensor([2.0, 3.0], dtype="float64")

    def directional(t):  # the derivative of sum(t ** 4) along v: 4 t^3 . v
        return func.jvp(lambda s: (s ** 4).sum(), (t,), (v,))[1]
    second = func.jvp(directional, (x,), (u,))[1]  # 12 t^2 u v, summed
    assert second.item() == pytest.approx(float((12 * x.numpy() ** 2 * u.numpy()
                                                 * v.numpy()).sum()), rel=1e-14)
    hessian = func.jacfwd(func.jacfwd(lambda t: (t ** 4).sum()))(x)
    np.testing.assert_allclose(hessian.numpy(), np.diag(12 * x.numpy() ** 2), rtol=1e-14)


def test_forward_over_forward_of_an_input_the_inner_function_ignores_is_zero():
    x = fg.tensor([1.0, 2.0], dtype="float64")
    inner = func.jacfwd(lambda t: fg.ones(3, dtype="float64") * 2.0)
    np.testing.assert_array_equal(func.jacfwd(inner)(x).numpy(), np.zeros((3, 2, 2)))


def test_nested_forward_mode_matches_torch_func():
    torch = pytest.importorskip("torch")
    W = rng.standard_normal((4, 3))
    x, u, v = rng.standard_normal(3), rng.standard_normal(3), rng.standard_normal(3)
    tW = torch.tensor(W)

    def ours(t):
        return fg.tanh(fg.tensor(W) @ t) * t.sum()

    def theirs(t):
        return torch.tanh(tW @ t) * t.sum()
    for depth in (2, 3):
        mine, reference = ours, theirs
        for _ in range(depth):
            mine, reference = func.jacfwd(mine), torch.func.jacfwd(reference)
        np.testing.assert_allclose(mine(fg.tensor(x)).numpy(),
                                   reference(torch.tensor(x)).numpy(), rtol=1e-10, atol=1e-13)
    got = func.jvp(lambda t: func.jvp(ours, (t,), (fg.tensor(v),))[1], (fg.tensor(x),),
                   (fg.tensor(u),))[1]
    expected = torch.func.jvp(lambda t: torch.func.jvp(theirs, (t,), (torch.tensor(v),))[1],
                              (torch.tensor(x),), (torch.tensor(u),))[1]
    np.testing.assert_allclose(got.numpy(), expected.numpy(), rtol=1e-10, atol=1e-13)


def assert_trees_close(ours, theirs, **tolerance):
    """Same nesting of tuples/lists/dicts, and close values at the leaves."""
    if isinstance(theirs, (tuple, list)):
        assert type(ours) is type(theirs) and len(ours) == len(theirs)
        for a, b in zip(ours, theirs):
            assert_trees_close(a, b, **tolerance)
    elif isinstance(theirs, dict):
        assert isinstance(ours, dict) and ours.keys() == theirs.keys()
        for k in theirs:
            assert_trees_close(ours[k], theirs[k], **tolerance)
    else:
        np.testing.assert_allclose(ours.numpy(), theirs.detach().numpy(), **tolerance)


def two_outputs(x, y):  # written with methods only, so it runs on fluxgrad and torch tensors
    return (x.sin() * y, (x * y.exp()).sum())


def dict_of_dict(p):
    return {"act": p["w"].tanh() * p["b"], "norm": (p["w"] ** 2).sum()}


@pytest.mark.parametrize("name", ["jacrev", "jacfwd"])
@pytest.mark.parametrize("chunk_size", [None, 2])
@pytest.mark.parametrize("f, arg_shapes, argnums", [
    (two_outputs, [(3,), (3,)], 0),
    (two_outputs, [(3,), (3,)], (0, 1)),
    (dict_of_dict, [{"w": (2, 2), "b": (2,)}], 0),
])
def test_jacobians_of_nested_outputs_match_torch_func(name, chunk_size, f, arg_shapes, argnums):
    torch = pytest.importorskip("torch")

    def inputs(make):
        return [{k: make(data[k]) for k in s} if isinstance(s, dict) else make(data)
                for s, data in zip(arg_shapes, arrays)]
    arrays = [{k: rng.standard_normal(v) for k, v in s.items()} if isinstance(s, dict)
              else rng.standard_normal(s) for s in arg_shapes]
    ours = getattr(func, name)(f, argnums, chunk_size=chunk_size)(*inputs(fg.tensor))
    theirs = getattr(torch.func, name)(f, argnums)(*inputs(torch.tensor))
    assert_trees_close(ours, theirs, rtol=1e-12, atol=1e-15)


def test_jacobian_of_an_output_that_is_not_a_tensor_raises():
    with pytest.raises(TypeError, match="f must return a tensor, or a tuple/list/dict of "
                                        "tensors, got tuple"):
        func.jacrev(lambda x: (x * 2, 3))(fg.ones(2))


def test_hessian_with_tuple_argnums_gives_nested_blocks_like_torch_func():
    torch = pytest.importorskip("torch")
    x, y = rng.standard_normal((2, 4, 3))

    def f(a, b):
        return (a.sin() * b * a).sum()
    theirs = torch.func.hessian(f, argnums=(0, 1))
    assert_trees_close(func.hessian(f, argnums=(0, 1))(fg.tensor(x[0]), fg.tensor(y[0])),
                       theirs(torch.tensor(x[0]), torch.tensor(y[0])), rtol=1e-12, atol=1e-15)
    assert_trees_close(func.vmap(func.hessian(f, argnums=(0, 1)))(fg.tensor(x), fg.tensor(y)),
                       torch.func.vmap(theirs)(torch.tensor(x), torch.tensor(y)),
                       rtol=1e-12, atol=1e-15)


@pytest.mark.parametrize("f", [lambda x, y: (y * 2).sum(), lambda x, y: (x > 0).sum().double()],
                         ids=["unused input", "no differentiable path"])
def test_gradient_w_r_t_an_input_the_output_does_not_depend_on_is_zero(f):
    torch = pytest.importorskip("torch")
    x, y = rng.standard_normal((2, 4, 3))
    expected = torch.func.grad(f)(torch.tensor(x[0]), torch.tensor(y[0]))
    np.testing.assert_array_equal(func.grad(f)(fg.tensor(x[0]), fg.tensor(y[0])).numpy(),
                                  expected.numpy())
    value, g = func.value_and_grad(f)(fg.tensor(x[0]), fg.tensor(y[0]))
    assert value.item() == pytest.approx(f(torch.tensor(x[0]), torch.tensor(y[0])).item())
    np.testing.assert_array_equal(g.numpy(), expected.numpy())
    np.testing.assert_array_equal(func.vmap(func.grad(f))(fg.tensor(x), fg.tensor(y)).numpy(),
                                  torch.func.vmap(torch.func.grad(f))(torch.tensor(x),
                                                                      torch.tensor(y)).numpy())


def test_jacfwd_with_aux_calls_f_once_and_its_aux_carries_no_tangent():
    torch = pytest.importorskip("torch")
    x = rng.standard_normal(3)
    calls = []

    def f(t):
        calls.append(1)
        return t.sin() * t.sum(), {"cos": t.cos()}
    jac, aux = func.jacfwd(f, has_aux=True)(fg.tensor(x))
    assert len(calls) == 1
    theirs_jac, theirs_aux = torch.func.jacfwd(f, has_aux=True)(torch.tensor(x))
    assert_trees_close((jac, aux), (theirs_jac, theirs_aux), rtol=1e-12)
    assert aux["cos"].grad_fn is None and forward_ad.unpack_dual(aux["cos"])[1] is None
    _, _, aux = func.jvp(f, (fg.tensor(x),), (fg.ones(3, dtype="float64"),), has_aux=True)
    assert forward_ad.unpack_dual(aux["cos"])[1] is None


_W6 = rng.standard_normal((6, 6))
_TRANSFORM_CALLS = {
    "grad": lambda f, x, v: func.grad(f)(x),
    "vjp": lambda f, x, v: func.vjp(f, x)[1](fg.tensor(1.0)),
    "jvp": lambda f, x, v: func.jvp(f, (x,), (v,)),
    "vmap": lambda f, x, v: func.vmap(lambda t: t * 2)(fg.tensor(_W6)),
}


@pytest.mark.parametrize("name", _TRANSFORM_CALLS)
def test_transform_leaves_no_reference_cycle(name):
    # what a transform built (the trees it flattened and their tensors' graphs) is freed
    # when it returns, not when the garbage collector next runs
    x, v = fg.tensor(rng.standard_normal(6)), fg.tensor(rng.standard_normal(6))
    f = lambda t: f_tanh_sq(t, fg.tensor(_W6))  # noqa: E731
    call = _TRANSFORM_CALLS[name]
    call(f, x, v)
    gc.collect()
    gc.set_debug(gc.DEBUG_SAVEALL)
    try:
        call(f, x, v)
        gc.collect()
        assert gc.garbage == []
    finally:
        gc.set_debug(0)
        gc.garbage.clear()
