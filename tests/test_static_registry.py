"""Generic over the registry: every differentiable op sample, staged into a static program,
gives eager mode's derivatives, in float64:
- reverse mode with prim on (linearize + transpose) == prim off (staged VJPs) == eager;
- forward mode (staged JVPs) == eager forward mode along the recorded graph;
- second order (the gradient of <grad, w>, prim off) == eager double backward.
"""
import numpy as np
import pytest

import fluxgrad
from fluxgrad import Tensor, static
from fluxgrad.autograd.forward_grad import forward_grad as eager_forward_grad
from samples import all_samples
from fluxgrad._core.primitive import REGISTRY

# samples that write a Variable into a concrete tensor in place can't be staged (the tensor is
# a constant of the program): they must raise a clear error instead
WRITES_INTO_CONSTANT = ["index_put([2])"]
SAMPLES = [s for s in all_samples() if REGISTRY[s.op].differentiable and
           repr(s) not in WRITES_INTO_CONSTANT]
RTOL, ATOL = 1e-9, 1e-11




def _float(outs):
    outs = tuple(outs) if isinstance(outs, (tuple, list)) else (outs,)
    return [o for o in outs if o.is_floating_point()]


def _rand(arrays, seed):
    rng = np.random.default_rng(seed)
    return [rng.standard_normal(np.shape(a)) for a in arrays]


def _staged(sample):
    xs = [static.data(f"x{i}", shape=np.shape(a), dtype="float64")
          for i, a in enumerate(sample.args)]
    return xs, _float(sample.fn(*xs))


def _feed(sample, extra=()):
    feed = {f"x{i}": np.asarray(a, dtype=np.float64) for i, a in enumerate(sample.args)}
    feed.update(extra)
    return feed


def _eager(sample):
    xs = [Tensor(np.asarray(a, dtype=np.float64), requires_grad=True) for a in sample.args]
    return xs, _float(sample.fn(*xs))


def _zeros_for_none(grads, xs):
    return [np.zeros(np.shape(x._data)) if g is None else g for g, x in zip(grads, xs)]


def _eager_grads(sample, us, create_graph=False):
    xs, ys = _eager(sample)
    grads = fluxgrad.grad(ys, xs, [Tensor(u) for u in us], allow_unused=True,
                          create_graph=create_graph)
    return xs, grads


@pytest.mark.parametrize("sample", SAMPLES, ids=repr)
def test_static_grad_prim_on_and_off_match_eager(sample, program):
    xs, ys = _staged(sample)
    us = _rand([np.zeros(y._data.shape) for y in ys], seed=1)
    seeds = [static.data(f"u{k}", shape=np.shape(u), dtype="float64") for k, u in enumerate(us)]
    from fluxgrad.static.transforms import grad as static_grad
    g_off = static_grad(ys, xs, seeds, prim=False)
    # prim on is linearize + transpose: an op without forward mode (py_func) has prim off only
    g_on = static_grad(ys, xs, seeds, prim=True) if sample.forward else g_off
    feed = _feed(sample, {f"u{k}": u for k, u in enumerate(us)})
    values = static.Executor().run(feed=feed, fetch_list=list(g_off) + list(g_on))
    fluxgrad.disable_static()
    _, expected = _eager_grads(sample, us)
    expected = [np.zeros(np.shape(a)) if g is None else g.detach().numpy()
                for g, a in zip(expected, sample.args)]
    n = len(xs)
    for i in range(n):
        np.testing.assert_allclose(values[i], expected[i], rtol=RTOL, atol=ATOL,
                                   err_msg=f"prim off, input {i}")
        np.testing.assert_allclose(values[n + i], expected[i], rtol=RTOL, atol=ATOL,
                                   err_msg=f"prim on, input {i}")


@pytest.mark.parametrize("sample", [s for s in SAMPLES if s.forward], ids=repr)
def test_static_forward_grad_matches_eager_jvp(sample, program):
    xs, ys = _staged(sample)
    vs = _rand(sample.args, seed=2)
    tangents = [static.data(f"v{i}", shape=np.shape(v), dtype="float64") for i, v in enumerate(vs)]
    dots = static.forward_grad(ys, xs, tangents)
    values = static.Executor().run(feed=_feed(sample, {f"v{i}": v for i, v in enumerate(vs)}),
                                   fetch_list=dots)
    fluxgrad.disable_static()
    ex, ey = _eager(sample)
    expected = eager_forward_grad(ey, ex, [Tensor(v) for v in vs])
    for k, (got, want, y) in enumerate(zip(values, expected, ey)):
        want = np.zeros(y.shape) if want is None else np.broadcast_to(want.detach().numpy(), y.shape)
        np.testing.assert_allclose(got, want, rtol=RTOL, atol=ATOL, err_msg=f"output {k}")


@pytest.mark.parametrize("sample", [s for s in SAMPLES if s.second_order], ids=repr)
def test_static_second_order_matches_eager(sample, program):
    xs, ys = _staged(sample)
    us = _rand([np.zeros(y._data.shape) for y in ys], seed=1)
    ws = _rand(sample.args, seed=3)
    from fluxgrad.static.transforms import grad as static_grad
    grads = static_grad(ys, xs, [Tensor(u) for u in us], prim=False)
    inner = sum(((g * Tensor(w)).sum() for g, w in zip(grads, ws)), Tensor(0.0))
    second = static_grad(inner, xs, prim=True) if isinstance(inner, static.Variable) else None
    if second is None:
        return  # the gradient does not depend on the inputs: nothing to differentiate
    values = static.Executor().run(feed=_feed(sample), fetch_list=second)
    fluxgrad.disable_static()
    ex, grads_e = _eager_grads(sample, us, create_graph=True)
    inner_e = sum(((g * Tensor(w)).sum() for g, w in zip(grads_e, ws) if g is not None),
                  Tensor(0.0))
    expected = [None] * len(ex)
    if inner_e.requires_grad:
        expected = fluxgrad.grad(inner_e, ex, allow_unused=True)
    for i, (got, want) in enumerate(zip(values, expected)):
        want = np.zeros(np.shape(sample.args[i])) if want is None else want.detach().numpy()
        np.testing.assert_allclose(got, want, rtol=1e-8, atol=1e-10, err_msg=f"input {i}")


@pytest.mark.parametrize("sample", [s for s in all_samples() if repr(s) in WRITES_INTO_CONSTANT],
                         ids=repr)
def test_writing_a_variable_into_a_constant_is_a_clear_error(sample, program):
    with pytest.raises(TypeError, match="not part of the program"):
        _staged(sample)
