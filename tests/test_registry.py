"""Generic tests over the op registry: every primitive, through its samples, in float64.

For each sample: the op is really used; values and gradients match PyTorch; the
VJP and the JVP match central finite differences along random directions; the
JVP and the VJP satisfy the adjoint identity <u, J v> == <J^T u, v> to rounding
precision; and second derivatives (reverse over reverse, forward over reverse)
match finite differences of the gradient and PyTorch's double backward.
"""
import numpy as np
import pytest

import fluxgrad
from fluxgrad import Tensor
from fluxgrad._core.primitive import REGISTRY
from samples import all_samples

SAMPLES = all_samples()
STEP = 1e-6
FD_RTOL = 1e-5
ROUNDING = 1e3 * np.finfo(np.float64).eps  # rounding error allowed in one evaluation of f
ADJOINT_RTOL = 1e-10


def test_every_registered_op_has_samples():
    covered = {s.op for s in SAMPLES}
    missing = sorted(set(REGISTRY) - covered)
    assert not missing, f"registered ops with no Sample in tests/samples/: {missing}"


def test_every_sample_names_a_registered_op():
    unknown = sorted({s.op for s in SAMPLES} - set(REGISTRY))
    assert not unknown, f"samples name ops that are not registered: {unknown}"


# ops without a derivative (argmax, all, ...) are checked for their values only
DIFFERENTIABLE = [s for s in SAMPLES if s.op not in REGISTRY or REGISTRY[s.op].differentiable]
each_sample = pytest.mark.parametrize("sample", SAMPLES, ids=repr)
each_differentiable = pytest.mark.parametrize("sample", DIFFERENTIABLE, ids=repr)
each_forward = pytest.mark.parametrize("sample", [s for s in DIFFERENTIABLE if s.forward],
                                       ids=repr)
second_order = pytest.mark.parametrize("sample", [s for s in DIFFERENTIABLE if s.second_order],
                                       ids=repr)
with_torch = pytest.mark.parametrize("sample", [s for s in SAMPLES if s.torch_fn], ids=repr)
differentiable_with_torch = pytest.mark.parametrize(
    "sample", [s for s in DIFFERENTIABLE if s.torch_fn], ids=repr)
with_torch_second_order = pytest.mark.parametrize(
    "sample", [s for s in DIFFERENTIABLE if s.torch_fn and s.second_order], ids=repr)


# --- helpers --------------------------------------------------------------------------------
def leaves(sample, arrays=None, requires_grad=True):
    arrays = sample.args if arrays is None else arrays
    return [Tensor(np.array(a, dtype=np.float64), requires_grad=requires_grad) for a in arrays]


def as_tuple(out):
    return tuple(out) if isinstance(out, (tuple, list)) else (out,)


def float_outputs(out):
    return [o for o in as_tuple(out) if o.is_floating_point()]


def evaluate(sample, arrays):
    """The float outputs of `sample.fn` at `arrays`, as float64 NumPy arrays, without a graph."""
    with fluxgrad.no_grad():
        return [o._data.astype(np.float64) for o in float_outputs(sample.fn(*leaves(
            sample, arrays, requires_grad=False)))]


def random_like(arrays, seed):
    rng = np.random.default_rng(seed)
    return [rng.standard_normal(np.shape(a)) for a in arrays]


def moved(arrays, direction, h):
    return [np.asarray(a, dtype=np.float64) + h * d for a, d in zip(arrays, direction)]


def dot(xs, ys):
    return float(sum(np.sum(np.asarray(x) * np.asarray(y)) for x, y in zip(xs, ys)))


def abs_dot(xs, ys):
    return float(sum(np.sum(np.abs(np.asarray(x) * np.asarray(y))) for x, y in zip(xs, ys)))


def gradients(outs, xs, cotangents, create_graph=False):
    """VJP: the gradient of sum_k <u_k, y_k> w.r.t. each x (zeros where x is unused)."""
    grads = fluxgrad.grad(outs, xs, grad_outputs=[Tensor(u) for u in cotangents],
                          create_graph=create_graph, allow_unused=True)
    return [Tensor(np.zeros(x.shape)) if g is None else g for x, g in zip(xs, grads)]


def vjp_arrays(sample, arrays, cotangents):
    xs = leaves(sample, arrays)
    return [g._data for g in gradients(float_outputs(sample.fn(*xs)), xs, cotangents)]


def fd_tolerance(fd, contributions, values_scale):
    """Allowed |analytical - fd|: relative to the terms summed, plus f's rounding over 2h."""
    return FD_RTOL * (abs(fd) + contributions) + ROUNDING * values_scale / STEP + 1e-12


def check_directional(name, analytical, plus, minus, weights, values):
    """<w, (plus - minus) / 2h> against `analytical`, an inner product <w, D v>."""
    diffs = [(p - m) / (2 * STEP) for p, m in zip(plus, minus)]
    fd = dot(weights, diffs)
    tol = fd_tolerance(fd, abs_dot(weights, diffs), abs_dot(weights, values))
    assert abs(analytical - fd) <= tol, (
        f"{name}: analytical {analytical!r}, finite differences {fd!r} "
        f"(difference {abs(analytical - fd):.3g}, tolerance {tol:.3g})")


def torch_module():
    return pytest.importorskip("torch")


def torch_leaves(torch, arrays):
    return [torch.tensor(np.array(a, dtype=np.float64), requires_grad=True) for a in arrays]


def torch_float_outputs(torch, out):
    return [o for o in as_tuple(out) if o.is_floating_point()]


def torch_gradients(torch, outs, xs, cotangents, create_graph=False):
    pairs = [(o, torch.tensor(u)) for o, u in zip(outs, cotangents) if o.requires_grad]
    if not pairs:
        return [torch.zeros_like(x) for x in xs]
    grads = torch.autograd.grad([o for o, _ in pairs], xs, [u for _, u in pairs],
                                create_graph=create_graph, allow_unused=True)
    return [torch.zeros_like(x) if g is None else g for x, g in zip(xs, grads)]


def assert_matches_torch(what, ours, theirs, sample):
    assert len(ours) == len(theirs), f"{what}: {len(ours)} results, PyTorch gives {len(theirs)}"
    for i, (a, b) in enumerate(zip(ours, theirs)):
        b = b.detach().numpy(force=True)
        assert a.shape == b.shape, f"{what} {i}: shape {list(a.shape)}, PyTorch {list(b.shape)}"
        np.testing.assert_allclose(a, b, rtol=sample.rtol, atol=sample.atol,
                                   err_msg=f"{what} {i} differs from PyTorch")


# --- the op is really used ----------------------------------------------------------------
@each_sample
def test_sample_uses_its_op(sample):
    prim = REGISTRY.get(sample.op)
    assert prim is not None, f"no op named {sample.op!r} is registered"
    if not prim.differentiable:
        calls = []
        impl = prim.impl
        prim.impl = lambda *args, **params: calls.append(1) or impl(*args, **params)
        try:
            sample.fn(*leaves(sample))
        finally:
            prim.impl = impl
        assert calls, f"the sample never calls the op {sample.op!r}"
        return
    seen, stack, names = set(), [], set()
    for out in as_tuple(sample.fn(*leaves(sample))):
        if out.grad_fn is not None:
            stack.append(out.grad_fn)
    while stack:
        node = stack.pop()
        if id(node) in seen:
            continue
        seen.add(id(node))
        names.add(getattr(getattr(node, "prim", None), "name", None))
        stack.extend(f for f, _ in node.next_functions if f is not None)
    assert sample.op in names, (f"the graph of the sample's output has no {sample.op!r} node "
                                f"(found {sorted(n for n in names if n)})")


# --- values and first derivatives vs PyTorch ----------------------------------------------
@with_torch
def test_value_matches_torch(sample):
    torch = torch_module()
    ours = as_tuple(sample.fn(*leaves(sample, requires_grad=False)))
    theirs = as_tuple(sample.torch_fn(*[torch.tensor(np.array(a, dtype=np.float64))
                                        for a in sample.args]))
    for i, (a, b) in enumerate(zip(ours, theirs)):
        assert str(b.dtype) == f"torch.{a.dtype.name}", (
            f"output {i}: dtype {a.dtype}, PyTorch {b.dtype}")
    assert_matches_torch("output", [o._data for o in ours], theirs, sample)


@differentiable_with_torch
def test_vjp_matches_torch(sample):
    torch = torch_module()
    xs = leaves(sample)
    outs = float_outputs(sample.fn(*xs))
    us = random_like([o._data for o in outs], seed=1)
    ours = [g._data for g in gradients(outs, xs, us)]
    txs = torch_leaves(torch, sample.args)
    theirs = torch_gradients(torch, torch_float_outputs(torch, sample.torch_fn(*txs)), txs, us)
    assert_matches_torch("gradient of input", ours, theirs, sample)


@with_torch_second_order
def test_double_backward_matches_torch(sample):
    torch = torch_module()
    xs = leaves(sample)
    outs = float_outputs(sample.fn(*xs))
    us = random_like([o._data for o in outs], seed=1)
    ws = random_like(sample.args, seed=2)
    ours = [g._data for g in second_gradients(xs, gradients(outs, xs, us, create_graph=True), ws)]
    txs = torch_leaves(torch, sample.args)
    touts = torch_float_outputs(torch, sample.torch_fn(*txs))
    tgrads = torch_gradients(torch, touts, txs, us, create_graph=True)
    theirs = torch_gradients(torch, tgrads, txs, ws)
    assert_matches_torch("second derivative of input", ours, theirs, sample)


def second_gradients(xs, grads, ws):
    """The gradient of sum_i <w_i, g_i(x)> w.r.t. x, for first gradients g."""
    pairs = [(g, w) for g, w in zip(grads, ws) if g.requires_grad]
    if not pairs:
        return [Tensor(np.zeros(x.shape)) for x in xs]
    return gradients([g for g, _ in pairs], xs, [w for _, w in pairs])


# --- reverse mode vs finite differences ---------------------------------------------------
@each_differentiable
def test_vjp_matches_finite_differences(sample):
    values = evaluate(sample, sample.args)
    us = random_like(values, seed=1)
    vs = random_like(sample.args, seed=2)
    analytical = dot(vjp_arrays(sample, sample.args, us), vs)
    check_directional("<J^T u, v>", analytical, evaluate(sample, moved(sample.args, vs, STEP)),
                      evaluate(sample, moved(sample.args, vs, -STEP)), us, values)


@second_order
def test_second_derivative_matches_finite_differences_of_the_gradient(sample):
    values = evaluate(sample, sample.args)
    us = random_like(values, seed=1)
    ws = random_like(sample.args, seed=2)
    vs = random_like(sample.args, seed=3)
    xs = leaves(sample)
    grads = gradients(float_outputs(sample.fn(*xs)), xs, us, create_graph=True)
    analytical = dot([g._data for g in second_gradients(xs, grads, ws)], vs)
    check_directional("<w, d(J^T u)[v]>", analytical,
                      vjp_arrays(sample, moved(sample.args, vs, STEP), us),
                      vjp_arrays(sample, moved(sample.args, vs, -STEP), us), ws,
                      vjp_arrays(sample, sample.args, us))


# --- forward mode -------------------------------------------------------------------------
def jvp_arrays(sample, arrays, direction):
    """(values, tangents) of the float outputs, pushing `direction` through forward mode."""
    from fluxgrad.autograd import forward_ad
    with forward_ad.dual_level():
        xs = [forward_ad.make_dual(x, Tensor(v)) for x, v in
              zip(leaves(sample, arrays, requires_grad=False), direction)]
        outs = float_outputs(sample.fn(*xs))
        pairs = [forward_ad.unpack_dual(o) for o in outs]
    return ([p._data for p, _ in pairs],
            [np.zeros(p.shape) if t is None else np.broadcast_to(t._data, p.shape)
             for p, t in pairs])


@each_forward
def test_jvp_matches_finite_differences(sample):
    vs = random_like(sample.args, seed=2)
    values, tangents = jvp_arrays(sample, sample.args, vs)
    expected = evaluate(sample, sample.args)
    for k, (a, b) in enumerate(zip(values, expected)):
        np.testing.assert_allclose(a, b, rtol=1e-12, atol=0,
                                   err_msg=f"output {k}: forward mode changes the value")
    plus = evaluate(sample, moved(sample.args, vs, STEP))
    minus = evaluate(sample, moved(sample.args, vs, -STEP))
    for k, (t, p, m, f) in enumerate(zip(tangents, plus, minus, expected)):
        fd = (p - m) / (2 * STEP)
        tol = FD_RTOL * np.abs(fd) + ROUNDING * np.max(np.abs(f), initial=1.0) / STEP + 1e-12
        bad = np.abs(t - fd) > tol
        assert not bad.any(), (
            f"output {k}: J v from forward mode differs from finite differences at "
            f"{np.argwhere(bad)[:5].tolist()}: jvp {t[bad][:5]}, fd {fd[bad][:5]}")


@each_forward
def test_jvp_and_vjp_satisfy_the_adjoint_identity(sample):
    vs = random_like(sample.args, seed=2)
    values, tangents = jvp_arrays(sample, sample.args, vs)
    us = random_like(values, seed=1)
    grads = vjp_arrays(sample, sample.args, us)
    forward, reverse = dot(us, tangents), dot(grads, vs)
    tol = ADJOINT_RTOL * (abs_dot(us, tangents) + abs_dot(grads, vs)) + 1e-300
    assert abs(forward - reverse) <= tol, (
        f"<u, J v> = {forward!r} (forward mode) but <J^T u, v> = {reverse!r} (reverse mode)")


@second_order
def test_forward_over_reverse_matches_reverse_over_reverse(sample):
    """The JVP rules applied to the VJP rules agree with reverse mode applied twice."""
    from fluxgrad.autograd import forward_ad
    values = evaluate(sample, sample.args)
    us = random_like(values, seed=1)
    ws = random_like(sample.args, seed=2)
    vs = random_like(sample.args, seed=3)
    xs = leaves(sample)
    grads = gradients(float_outputs(sample.fn(*xs)), xs, us, create_graph=True)
    second = [g._data for g in second_gradients(xs, grads, ws)]
    reverse = dot(second, vs)
    with forward_ad.dual_level():
        xs = [forward_ad.make_dual(x, Tensor(v)) for x, v in zip(leaves(sample), vs)]
        grads = gradients(float_outputs(sample.fn(*xs)), xs, us)
        tangents = [forward_ad.unpack_dual(g)[1] for g in grads]
    tangents = [np.zeros(x.shape) if t is None else t._data for x, t in zip(xs, tangents)]
    forward = dot(ws, tangents)
    tol = ADJOINT_RTOL * 1e2 * (abs_dot(ws, tangents) + abs_dot(second, vs)) + 1e-300
    assert abs(forward - reverse) <= tol, (
        f"<w, d(J^T u)[v]>: {forward!r} by forward over reverse, {reverse!r} by reverse twice")
