"""fluxgrad.autograd.functional against torch.autograd.functional: the same functions, the
same inputs, the same result structures, shapes and values; create_graph, strict and the
errors PyTorch raises."""
import numpy as np
import pytest
import torch
from torch.autograd import functional as TF

import fluxgrad as fg
from fluxgrad.autograd import functional as F


def arrays(*shapes, seed=0):
    rng = np.random.default_rng(seed)
    return [rng.standard_normal(s) for s in shapes]


def ours(xs):
    return tuple(fg.tensor(x) for x in xs)


def theirs(xs):
    return tuple(torch.tensor(x) for x in xs)


def assert_same_structure(a, b, path="result"):
    """Tuples where PyTorch has tuples (same lengths), tensors of equal values where it has
    tensors."""
    if isinstance(b, torch.Tensor):
        assert isinstance(a, fg.Tensor), f"{path}: {type(a).__name__}, PyTorch a tensor"
        assert a.shape == tuple(b.shape), f"{path}: shape {a.shape}, PyTorch {tuple(b.shape)}"
        np.testing.assert_allclose(a.detach().numpy(), b.detach().numpy(), rtol=1e-10,
                                   atol=1e-12, err_msg=path)
        return
    assert type(a) is tuple, f"{path}: {type(a).__name__}, PyTorch a tuple"
    assert len(a) == len(b), f"{path}: {len(a)} entries, PyTorch {len(b)}"
    for i, (x, y) in enumerate(zip(a, b)):
        assert_same_structure(x, y, f"{path}[{i}]")


# Each case: (name, function for fluxgrad and torch alike, input shapes, tuple input?)
FUNCTIONS = [
    ("tensor to tensor", lambda x: x.sin() * x.sum(), [(3,)], False),
    ("matrix to matrix", lambda x: x @ x.T, [(2, 3)], False),
    ("tuple to tensor", lambda x, y: (x * y.sum()).exp(), [(3,), (2,)], True),
    ("tensor to tuple", lambda x: (x.sum() * x, x.prod()), [(4,)], False),
    ("tuple to tuple", lambda x, y: (x @ y, (x ** 2).sum(), y.tanh()), [(2, 3), (3,)], True),
    ("ignores an input", lambda x, y: x * 3.0, [(2,), (3,)], True),
    ("one-element tuple", lambda x: (x.cos(),), [(2, 2)], True),
]
SCALARS = [
    ("scalar of one input", lambda x: (x.sin() * x).sum(), [(3,)], False),
    ("scalar of a matrix", lambda x: (x @ x.T).tanh().sum(), [(2, 3)], False),
    ("scalar of a tuple", lambda x, y: (x.exp() * y.sum() ** 2).sum(), [(2,), (3,)], True),
    ("scalar ignoring an input", lambda x, y: (x ** 3).sum(), [(2,), (2, 2)], True),
    ("one-element output", lambda x: (x * x).sum().reshape(1), [(3,)], False),
]
ids = [c[0] for c in FUNCTIONS]
scalar_ids = [c[0] for c in SCALARS]


def call_args(xs, is_tuple):
    return xs if is_tuple else xs[0]


@pytest.mark.parametrize("name,fn,shapes,is_tuple", FUNCTIONS, ids=ids)
@pytest.mark.parametrize("strategy", ["reverse-mode", "forward-mode"])
def test_jacobian_matches_torch(name, fn, shapes, is_tuple, strategy):
    xs = arrays(*shapes)
    a = F.jacobian(fn, call_args(ours(xs), is_tuple), vectorize=True, strategy=strategy)
    b = TF.jacobian(fn, call_args(theirs(xs), is_tuple), vectorize=True, strategy=strategy)
    assert_same_structure(a, b)


@pytest.mark.parametrize("name,fn,shapes,is_tuple", FUNCTIONS, ids=ids)
def test_vjp_matches_torch(name, fn, shapes, is_tuple):
    xs = arrays(*shapes)
    vs = _random_like(fn(*theirs(xs)), seed=1)
    a = F.vjp(fn, call_args(ours(xs), is_tuple), _tree(vs, fg.tensor))
    b = TF.vjp(fn, call_args(theirs(xs), is_tuple), _tree(vs, torch.tensor))
    assert_same_structure(a, b)


@pytest.mark.parametrize("name,fn,shapes,is_tuple", FUNCTIONS, ids=ids)
def test_jvp_matches_torch(name, fn, shapes, is_tuple):
    xs = arrays(*shapes)
    vs = arrays(*shapes, seed=1)
    a = F.jvp(fn, call_args(ours(xs), is_tuple), call_args(ours(vs), is_tuple))
    b = TF.jvp(fn, call_args(theirs(xs), is_tuple), call_args(theirs(vs), is_tuple))
    assert_same_structure(a, b)


@pytest.mark.parametrize("name,fn,shapes,is_tuple", SCALARS, ids=scalar_ids)
@pytest.mark.parametrize("strategy", ["reverse-mode", "forward-mode"])
def test_hessian_matches_torch(name, fn, shapes, is_tuple, strategy):
    xs = arrays(*shapes)
    a = F.hessian(fn, call_args(ours(xs), is_tuple), vectorize=True,
                  outer_jacobian_strategy=strategy)
    b = TF.hessian(fn, call_args(theirs(xs), is_tuple), vectorize=True,
                   outer_jacobian_strategy=strategy)
    assert_same_structure(a, b)


@pytest.mark.parametrize("name,fn,shapes,is_tuple", SCALARS, ids=scalar_ids)
@pytest.mark.parametrize("which", ["hvp", "vhp"])
def test_hvp_and_vhp_match_torch(name, fn, shapes, is_tuple, which):
    xs, vs = arrays(*shapes), arrays(*shapes, seed=1)
    a = getattr(F, which)(fn, call_args(ours(xs), is_tuple), call_args(ours(vs), is_tuple))
    b = getattr(TF, which)(fn, call_args(theirs(xs), is_tuple), call_args(theirs(vs), is_tuple))
    assert_same_structure(a, b)


def _random_like(out, seed):
    rng = np.random.default_rng(seed)
    if isinstance(out, tuple):
        return tuple(rng.standard_normal(tuple(o.shape)) for o in out)
    return rng.standard_normal(tuple(out.shape))


def _tree(values, make):
    return tuple(make(v) for v in values) if isinstance(values, tuple) else make(values)


# --- create_graph -----------------------------------------------------------------------------
def test_results_are_detached_without_create_graph():
    x = fg.tensor([1.0, 2.0], requires_grad=True)
    out, g = F.vjp(lambda t: (t ** 3).sum(), x)
    assert not out.requires_grad and not g.requires_grad
    assert not F.jacobian(lambda t: t ** 3, x).requires_grad
    assert not F.hessian(lambda t: (t ** 3).sum(), x).requires_grad


@pytest.mark.parametrize("which", ["jacobian", "hessian", "vjp", "jvp", "hvp", "vhp"])
def test_create_graph_makes_results_differentiable_as_torch(which):
    def fn(t):
        return (t ** 3).sum() * t[0] if which in ("hessian", "hvp", "vhp", "vjp") else t ** 3 * t[0]

    def run(module, x, v):
        if which in ("jacobian", "hessian"):
            res = getattr(module, which)(fn, x, create_graph=True)
        elif which == "vjp":
            res = module.vjp(fn, x, create_graph=True)[1]
        else:
            res = getattr(module, which)(fn, x, v, create_graph=True)[1]
        return (res * res).sum()
    x_np, v_np = np.array([0.5, -1.5, 2.0]), np.array([1.0, 0.3, -0.7])
    x, tx = fg.tensor(x_np, requires_grad=True), torch.tensor(x_np, requires_grad=True)
    run(F, x, fg.tensor(v_np)).backward()
    run(TF, tx, torch.tensor(v_np)).backward()
    np.testing.assert_allclose(x.grad.numpy(), tx.grad.numpy(), rtol=1e-10)


# --- strict, v=None and errors ----------------------------------------------------------------
def test_strict_refuses_an_independent_input_as_torch():
    x, y = fg.ones(2), fg.ones(3)
    with pytest.raises(RuntimeError, match="Output 0 of the user-provided function is "
                                           "independent of input 1"):
        F.jacobian(lambda a, b: a * 2, (x, y), strict=True)
    with pytest.raises(RuntimeError, match="independent of input 1"):
        F.vjp(lambda a, b: (a * 2).sum(), (x, y), strict=True)
    with pytest.raises(RuntimeError, match="Output 0 of the user-provided function does not "
                                           "require gradients"):
        F.vjp(lambda a: fg.ones(3), x, fg.ones(3), strict=True)


def test_strict_hessian_refuses_a_linear_function():
    with pytest.raises(RuntimeError, match="jacobian of the user-provided function with respect "
                                           "to input 0 is independent of the input"):
        F.hessian(lambda a: (a * 2).sum(), fg.ones(3), strict=True)


def test_without_strict_an_independent_input_gets_zeros():
    jac = F.jacobian(lambda a, b: a * 2, (fg.ones(2), fg.ones(3)))
    np.testing.assert_array_equal(jac[1].numpy(), np.zeros((2, 3)))


def test_v_may_be_omitted_only_for_one_element():
    x = fg.tensor([2.0])
    assert F.vjp(lambda t: t ** 2, x)[1].tolist() == [4.0]
    assert F.jvp(lambda t: t ** 2, x)[1].tolist() == [4.0]
    with pytest.raises(RuntimeError, match="v can only be None if the user-provided function "
                                           "returns a single Tensor with a single element"):
        F.vjp(lambda t: t * 2, fg.ones(3))
    with pytest.raises(RuntimeError, match="v can only be None if the input to the "
                                           "user-provided function is a single Tensor"):
        F.jvp(lambda t: t * 2, fg.ones(3))


def test_paddle_vjp_keeps_its_ones_default_beside_torch_vjp():
    _, g = fg.autograd.vjp(lambda t: t * 2, fg.ones(3))
    assert g.tolist() == [2.0, 2.0, 2.0]


@pytest.mark.parametrize("call,error,match", [
    (lambda: F.vjp(lambda a: a * 2, fg.ones(3), fg.ones(2)), RuntimeError,
     r"v has invalid size: should be \[3\] but got \[2\]"),
    (lambda: F.jvp(lambda a: a * 2, (fg.ones(3),), (fg.ones(3), fg.ones(3))), RuntimeError,
     "v is a tuple of invalid length: should be 1 but got 2"),
    (lambda: F.vjp(lambda a: a * 2, [fg.ones(3)]), TypeError,
     "inputs given to vjp must be either a Tensor or a tuple of Tensors"),
    (lambda: F.jacobian(lambda a: [a], fg.ones(3)), TypeError,
     "outputs of the user-provided function given to jacobian must be"),
    (lambda: F.hessian(lambda a: a * 2, fg.ones(3)), RuntimeError,
     "should contain a single element"),
    (lambda: F.vhp(lambda a: (a.sum(),), fg.ones(3), fg.ones(3)), RuntimeError,
     "function given to vhp should return a single Tensor"),
    (lambda: F.jacobian(lambda a: a, fg.ones(3), strategy="fwd"), ValueError,
     "expected strategy to be either"),
    (lambda: F.jacobian(lambda a: a, fg.ones(3), strategy="forward-mode"), NotImplementedError,
     "only implemented for `vectorize=True`"),
    (lambda: F.jacobian(lambda a: a, fg.ones(3), strict=True, vectorize=True), RuntimeError,
     "`strict=True` and `vectorize=True` are not supported together"),
])
def test_errors_as_torch(call, error, match):
    with pytest.raises(error, match=match):
        call()
