"""Forward mode at a level whose tangents nothing differentiates (`func.hvp`'s untaped level):
ops whose record gives an `array_jvp` compute their tangent on arrays, dispatching no op.

Every sample of such an op must give, at that level, the tangents a taped level gives (in
float64 and float32: same shape, dtype and values), and `func.hvp` of every second-order
sample must give what the general path jvp(grad(f)) gives (the VJP rules' ops then run as
dual ops at the untaped level).
"""
import numpy as np
import pytest

import fluxgrad
from fluxgrad import Tensor, func
from fluxgrad._core.forward_mode import state as forward_state
from fluxgrad._core.primitive import REGISTRY
from fluxgrad.autograd import forward_ad
from samples import all_samples

ARRAY_JVP_SAMPLES = [s for s in all_samples()
                     if s.op in REGISTRY and REGISTRY[s.op].array_jvp is not None
                     and not s.in_place]


def _outputs(out):
    out = tuple(out) if isinstance(out, (tuple, list)) else (out,)
    return [o for o in out if o.is_floating_point()]


def _tangents(sample, dtype, untaped):
    rng = np.random.default_rng(3)
    with forward_ad.dual_level() as level:
        if untaped:
            forward_state.untaped = level
        try:
            xs = [forward_ad.make_dual(Tensor(np.asarray(a, dtype)),
                                       Tensor(rng.standard_normal(np.shape(a)).astype(dtype)))
                  for a in sample.args]
            pairs = [forward_ad.unpack_dual(o) for o in _outputs(sample.fn(*xs))]
        finally:
            forward_state.untaped = 0
    return [(p._data, None if t is None else t._data) for p, t in pairs]


def test_the_arithmetic_families_and_linear_ops_have_array_jvps():
    have = {name for name, prim in REGISTRY.items() if prim.array_jvp is not None}
    assert {"add", "mul", "tanh", "tanh_backward", "matmul", "sum", "einsum", "conv2d"} <= have
    assert not {"pow", "pad", "print", "reshape", "split"} & have
    assert len(ARRAY_JVP_SAMPLES) >= 80


@pytest.mark.parametrize("dtype", [np.float64, np.float32])
@pytest.mark.parametrize("sample", ARRAY_JVP_SAMPLES, ids=repr)
def test_untaped_tangents_are_the_taped_ones(sample, dtype):
    with np.errstate(all="ignore"):
        untaped = _tangents(sample, dtype, untaped=True)
        taped = _tangents(sample, dtype, untaped=False)
    tol = 1e-12 if dtype is np.float64 else 1e-5
    for (value, got), (want_value, want) in zip(untaped, taped):
        np.testing.assert_array_equal(value, want_value)
        assert (got is None) == (want is None)
        if got is None:
            continue
        assert got.shape == want.shape and got.dtype == want.dtype
        np.testing.assert_allclose(got, want, rtol=tol, atol=tol, equal_nan=True)


SECOND_ORDER = [s for s in ARRAY_JVP_SAMPLES if s.second_order and REGISTRY[s.op].differentiable]


@pytest.mark.parametrize("sample", SECOND_ORDER, ids=repr)
def test_untaped_hvp_is_the_general_one(sample):
    rng = np.random.default_rng(4)
    weights = None

    def f(*xs):
        nonlocal weights
        outs = _outputs(sample.fn(*xs))
        if weights is None:
            weights = [Tensor(rng.standard_normal(o.shape)) for o in outs]
        return fluxgrad.stack([(o * w).sum() for o, w in zip(outs, weights)]).sum()
    primals = tuple(Tensor(np.asarray(a, np.float64)) for a in sample.args)
    tangents = tuple(Tensor(rng.standard_normal(np.shape(a))) for a in sample.args)
    with np.errstate(all="ignore"):
        _, untaped = func.hvp(f, primals, tangents)
        _, general = func.jvp(func.grad(f, argnums=tuple(range(len(primals)))), primals,
                              tangents)
    untaped = untaped if len(primals) > 1 else (untaped,)
    for got, want in zip(untaped, general):
        assert not got.requires_grad
        np.testing.assert_allclose(got.numpy(), want.numpy(), rtol=1e-10, atol=1e-12)


def test_untaped_hvp_calls_no_jvp_rule_of_an_op_with_an_array_jvp(monkeypatch):
    rng = np.random.default_rng(5)
    W, x, v = rng.standard_normal((6, 6)), rng.standard_normal(6), rng.standard_normal(6)

    def refused(*args, **kwargs):
        raise AssertionError("a JVP rule ran on Tensors at the untaped level")
    for name in ("matmul", "tanh", "mul", "sum", "tanh_backward"):
        monkeypatch.setattr(REGISTRY[name], "jvp", refused)
    _, hv = func.hvp(lambda t: fluxgrad.tanh(Tensor(W) @ t).pow(3).sum(), (Tensor(x),),
                     (Tensor(v),))
    t = np.tanh(W @ x)
    # the gradient is W^T (3 t^2 - 3 t^4), t = tanh(W x): H = W^T diag((6 t - 12 t^3)(1 - t^2)) W
    d = (6 * t - 12 * t ** 3) * (1 - t * t)
    np.testing.assert_allclose(hv.numpy(), W.T @ (d * (W @ v)), rtol=1e-12, atol=1e-12)
