"""fluxgrad.compile: traced once per signature, run as generated NumPy code.

Generic over the registry: every op sample compiled gives eager mode's values, and for
differentiable samples eager mode's gradients (float64). Then one behaviour per test: the
cache, retracing, Python scalars in the signature, the generated source, gradients through
compiled code against central differences, higher order, and the clear errors.
"""
import numpy as np
import pytest

import fluxgrad
from fluxgrad import Tensor
from fluxgrad._core.primitive import REGISTRY
from samples import all_samples

WRITES_INTO_CONSTANT = ["index_put([2])"]
# a result whose size depends on the values: compile runs it eagerly (tests/
# test_static_data_dependent.py checks that), a static program holds it
DATA_DEPENDENT_SIZE = {"nonzero", "unique", "unique_consecutive"}
SAMPLES = [s for s in all_samples() if repr(s) not in WRITES_INTO_CONSTANT and
           s.op not in DATA_DEPENDENT_SIZE]
DIFFERENTIABLE = [s for s in SAMPLES if REGISTRY[s.op].differentiable]
RTOL, ATOL = 1e-9, 1e-11


def _leaves(out):
    return list(out) if isinstance(out, (tuple, list)) else [out]


def _inputs(sample, requires_grad):
    return [Tensor(np.asarray(a, dtype=np.float64), requires_grad=requires_grad)
            for a in sample.args]


@pytest.mark.parametrize("sample", SAMPLES, ids=repr)
def test_compiled_sample_values_match_eager(sample):
    compiled = fluxgrad.compile(sample.fn)
    for _ in range(2):  # the first call runs the trace, the second the generated code
        got = _leaves(compiled(*_inputs(sample, False)))
        want = _leaves(sample.fn(*_inputs(sample, False)))
        assert len(got) == len(want)
        for g, w in zip(got, want):
            assert g.dtype == w.dtype and tuple(g.shape) == tuple(w.shape)
            np.testing.assert_allclose(g.numpy(), w.numpy(), rtol=RTOL, atol=ATOL)
    assert compiled.trace_count == 1


@pytest.mark.parametrize("sample", DIFFERENTIABLE, ids=repr)
def test_compiled_sample_gradients_match_eager(sample):
    compiled = fluxgrad.compile(sample.fn)
    rng = np.random.default_rng(1)
    xs = _inputs(sample, True)
    outs = [o for o in _leaves(sample.fn(*xs)) if o.is_floating_point()]
    us = [Tensor(rng.standard_normal(tuple(o.shape))) for o in outs]
    want = fluxgrad.grad(outs, xs, us, allow_unused=True)
    for _ in range(2):
        cx = _inputs(sample, True)
        couts = [o for o in _leaves(compiled(*cx)) if o.is_floating_point()]
        got = fluxgrad.grad(couts, cx, us, allow_unused=True)
        for i, (g, w) in enumerate(zip(got, want)):
            g = np.zeros(np.shape(sample.args[i])) if g is None else g.numpy()
            w = np.zeros(np.shape(sample.args[i])) if w is None else w.numpy()
            np.testing.assert_allclose(g, w, rtol=RTOL, atol=ATOL, err_msg=f"input {i}")


def _f(x, w):
    return ((x @ w).tanh() * 2.0).sum()


def _central_differences(f, x, eps=1e-6):
    x = np.asarray(x, dtype=np.float64)
    g = np.zeros_like(x)
    for i in np.ndindex(x.shape):
        d = np.zeros_like(x)
        d[i] = eps
        g[i] = (f(x + d) - f(x - d)) / (2 * eps)
    return g


def test_a_cache_hit_does_not_trace_again():
    compiled = fluxgrad.compile(_f)
    rng = np.random.default_rng(0)
    for _ in range(3):
        compiled(Tensor(rng.standard_normal((3, 4))), Tensor(rng.standard_normal((4, 2))))
    assert compiled.trace_count == 1


def test_a_new_shape_dtype_or_requires_grad_traces_again():
    compiled = fluxgrad.compile(_f)
    compiled(Tensor(np.ones((3, 4))), Tensor(np.ones((4, 2))))
    compiled(Tensor(np.ones((5, 4))), Tensor(np.ones((4, 2))))
    assert compiled.trace_count == 2
    compiled(Tensor(np.ones((5, 4), np.float32)), Tensor(np.ones((4, 2), np.float32)))
    assert compiled.trace_count == 3
    compiled(Tensor(np.ones((5, 4))), Tensor(np.ones((4, 2)), requires_grad=True))
    assert compiled.trace_count == 4
    compiled(Tensor(np.ones((3, 4))), Tensor(np.ones((4, 2))))  # still cached
    assert compiled.trace_count == 4


def test_python_scalars_are_part_of_the_signature():
    compiled = fluxgrad.compile(lambda x, scale, mode: x * scale if mode == "mul" else x + scale)
    x = Tensor(np.array([1.0, 2.0]))
    np.testing.assert_allclose(compiled(x, 3.0, "mul").numpy(), [3.0, 6.0])
    np.testing.assert_allclose(compiled(x, 4.0, "mul").numpy(), [4.0, 8.0])
    np.testing.assert_allclose(compiled(x, 4.0, "add").numpy(), [5.0, 6.0])
    np.testing.assert_allclose(compiled(x, 3.0, "mul").numpy(), [3.0, 6.0])
    assert compiled.trace_count == 3


def test_the_cache_is_bounded():
    compiled = fluxgrad.compile(lambda x, k: x * k, cache_size=2)
    x = Tensor(np.ones(2))
    for k in (1, 2, 3, 1):
        np.testing.assert_allclose(compiled(x, k).numpy(), [k, k])
    assert compiled.trace_count == 4  # k=1 was evicted by k=3


def test_results_keep_their_structure():
    compiled = fluxgrad.compile(lambda x: {"a": x.exp(), "b": [x.sin(), (x.cos(), 7)]})
    x = Tensor(np.array([0.5, 1.5]))
    out = compiled(x)
    assert set(out) == {"a", "b"} and isinstance(out["b"], list) and out["b"][1][1] == 7
    np.testing.assert_allclose(out["b"][1][0].numpy(), np.cos([0.5, 1.5]))


def test_the_generated_source_is_python_naming_the_ops_and_the_user_lines():
    def model(x, w):
        h = x @ w
        return h.tanh().sum()
    compiled = fluxgrad.compile(model)
    x, w = Tensor(np.ones((2, 3))), Tensor(np.ones((3, 4)))
    source = compiled.source(x, w)
    assert source.startswith("def model(x, w):")
    assert "_matmul(x, w)" in source and "_tanh(" in source and "_sum(" in source
    assert "h = x @ w" in source  # the user's line, as a comment
    assert "del x, w" in source
    assert compiled.code == source and compiled.trace_count == 1
    compile(source, "<check>", "exec")


def test_an_if_on_a_traced_tensor_is_a_clear_error_pointing_to_cond():
    def f(x):
        if x.sum() > 0:
            return x
        return -x
    with pytest.raises(TypeError, match="cond"):
        fluxgrad.compile(f, fullgraph=True)(Tensor(np.ones(3)))


def test_a_captured_tensor_that_requires_grad_is_refused():
    w = Tensor(np.ones(3), requires_grad=True)
    with pytest.raises(NotImplementedError, match="not an argument"):
        fluxgrad.compile(lambda x: (x * w).sum(), fullgraph=True)(Tensor(np.ones(3)))


def test_to_static_is_compile():
    compiled = fluxgrad.jit.to_static(_f)
    x, w = Tensor(np.ones((2, 4))), Tensor(np.full((4, 2), 0.1))
    np.testing.assert_allclose(compiled(x, w).numpy(), _f(x, w).numpy(), rtol=1e-12)


def test_gradient_through_compiled_code_matches_central_differences():
    rng = np.random.default_rng(3)
    x0, w0 = rng.standard_normal((3, 4)), rng.standard_normal((4, 2))
    compiled = fluxgrad.compile(_f)
    for _ in range(2):
        x, w = Tensor(x0, requires_grad=True), Tensor(w0, requires_grad=True)
        loss = compiled(x, w)
        assert loss.grad_fn is not None
        loss.backward()
        want_x = _central_differences(lambda a: _f(Tensor(a), Tensor(w0)).item(), x0)
        want_w = _central_differences(lambda a: _f(Tensor(x0), Tensor(a)).item(), w0)
        np.testing.assert_allclose(x.grad.numpy(), want_x, rtol=1e-6, atol=1e-8)
        np.testing.assert_allclose(w.grad.numpy(), want_w, rtol=1e-6, atol=1e-8)


def test_double_backward_through_compiled_code_matches_eager():
    f = lambda x: (x.sin() * x.exp()).sum()  # noqa: E731
    x0 = np.array([0.3, -1.2, 0.8])
    compiled = fluxgrad.compile(f)
    x = Tensor(x0, requires_grad=True)
    g, = fluxgrad.grad(compiled(x), x, create_graph=True)
    h, = fluxgrad.grad(g.sum(), x)
    xe = Tensor(x0, requires_grad=True)
    ge, = fluxgrad.grad(f(xe), xe, create_graph=True)
    he, = fluxgrad.grad(ge.sum(), xe)
    np.testing.assert_allclose(g.detach().numpy(), ge.detach().numpy(), rtol=1e-12)
    np.testing.assert_allclose(h.numpy(), he.numpy(), rtol=1e-12)


def test_compiled_func_grad_and_value_and_grad_match_eager():
    f = lambda x: (x.tanh() ** 3).sum()  # noqa: E731
    x = Tensor(np.array([0.1, -0.7, 1.3]))
    for transform in (fluxgrad.func.grad, fluxgrad.func.value_and_grad):
        compiled = fluxgrad.compile(transform(f))
        for _ in range(2):
            got, want = _leaves(compiled(x)), _leaves(transform(f)(x))
            for g, w in zip(got, want):
                np.testing.assert_allclose(g.numpy(), w.numpy(), rtol=1e-12)
        assert compiled.trace_count == 1


def test_compiled_grad_of_grad_matches_the_closed_form():
    f = lambda x: (x.sin() * x).sum()  # noqa: E731  f'' = 2 cos x - x sin x
    compiled = fluxgrad.compile(fluxgrad.func.grad(fluxgrad.func.grad(f)))
    x0 = 0.7
    np.testing.assert_allclose(compiled(Tensor(np.array(x0))).item(),
                               2 * np.cos(x0) - x0 * np.sin(x0), rtol=1e-12)




def test_a_model_compiles_through_functional_call_with_its_parameters_as_arguments():
    model = fluxgrad.nn.Sequential(fluxgrad.nn.Linear(4, 8), fluxgrad.nn.Tanh(),
                                   fluxgrad.nn.Linear(8, 1))
    params = dict(model.named_parameters())
    loss_fn = fluxgrad.compile(lambda params, x, y: (
        (fluxgrad.func.functional_call(model, params, (x,)) - y) ** 2).mean())
    rng = np.random.default_rng(4)
    x = Tensor(rng.standard_normal((5, 4)).astype(np.float32))
    y = Tensor(rng.standard_normal((5, 1)).astype(np.float32))
    loss = loss_fn(params, x, y)
    loss.backward()
    got = {k: p.grad.numpy().copy() for k, p in params.items()}
    for p in params.values():
        p.grad = None
    expected = ((model(x) - y) ** 2).mean()
    expected.backward()
    np.testing.assert_allclose(loss.item(), expected.item(), rtol=1e-6)
    for k, p in params.items():
        np.testing.assert_allclose(got[k], p.grad.numpy(), rtol=1e-5, atol=1e-7, err_msg=k)
    assert "params_0_weight" in loss_fn.code


def test_backward_inside_a_compiled_function_is_refused_for_now():
    def step(x):
        loss = (x * x).sum()
        loss.backward()
        return loss
    x = Tensor(np.ones(3), requires_grad=True)
    with pytest.raises(NotImplementedError, match="backward"):
        fluxgrad.compile(step, fullgraph=True)(x)
    assert x.grad is None
    loss = (x * x).sum()
    loss.backward()  # the engine is itself again after the refused trace
    np.testing.assert_allclose(x.grad.numpy(), [2.0, 2.0, 2.0])


def test_a_compiled_function_inside_another_is_inlined_and_differentiable():
    inner = fluxgrad.compile(lambda x: x.sin() * x)
    outer = fluxgrad.compile(lambda x: inner(x).exp().sum())
    x0 = np.array([0.2, -0.4, 1.1])
    x = Tensor(x0, requires_grad=True)
    outer(x).backward()
    np.testing.assert_allclose(outer(Tensor(x0)).item(), np.exp(np.sin(x0) * x0).sum(),
                               rtol=1e-12)
    want = np.exp(np.sin(x0) * x0) * (np.cos(x0) * x0 + np.sin(x0))
    np.testing.assert_allclose(x.grad.numpy(), want, rtol=1e-12)
    assert inner.trace_count == 0  # staged inline, never traced on its own


def test_grad_mode_is_part_of_the_signature():
    w = Tensor(np.array([1.0, 2.0]), requires_grad=True)
    compiled = fluxgrad.compile(lambda x: (x * w).sum(), fullgraph=True)
    with fluxgrad.no_grad():
        np.testing.assert_allclose(compiled(Tensor(np.ones(2))).item(), 3.0)
    with pytest.raises(NotImplementedError, match="not an argument"):
        compiled(Tensor(np.ones(2)))  # would lose w's gradient


def test_check_compares_the_first_call_with_eager_mode():
    compiled = fluxgrad.compile(_f, check=True)
    x, w = Tensor(np.ones((2, 4))), Tensor(np.full((4, 2), 0.1))
    np.testing.assert_allclose(compiled(x, w).numpy(), _f(x, w).numpy(), rtol=1e-12)
    calls = []

    def stateful(x):  # eager gives a different value each call: the check must notice
        calls.append(1)
        return x * len(calls)
    with pytest.raises(RuntimeError, match="differs from eager"):
        fluxgrad.compile(stateful, check=True)(Tensor(np.ones(2)))


def test_traces_say_why_they_happened_and_what_the_passes_removed():
    compiled = fluxgrad.compile(lambda x, k: x * k * 1.0)
    compiled(Tensor(np.ones(3)), 2)
    compiled(Tensor(np.ones(4)), 2)
    compiled(Tensor(np.ones(4)), 3)
    reasons = [t.reason for t in compiled.traces]
    assert reasons == ["first call", "args[0] changed: float64[3] -> float64[4]",
                       "args[1] changed: 2 -> 3"]
    assert compiled.traces[0].equations_traced == 2  # x * k, then * 1.0
    assert compiled.traces[0].equations_after_passes == 1


def _mlp_losses(wrap, steps=4):
    fluxgrad.manual_seed(0)
    model = fluxgrad.nn.Sequential(fluxgrad.nn.Linear(4, 8), fluxgrad.nn.Tanh(),
                                   fluxgrad.nn.Linear(8, 3))
    net = wrap(model)
    opt = fluxgrad.optim.Adam(net.parameters(), lr=0.05)
    x, y = fluxgrad.randn(6, 4), fluxgrad.randint(0, 3, (6,))
    losses = []
    for _ in range(steps):
        opt.zero_grad()
        loss = fluxgrad.nn.functional.cross_entropy(net(x), y)
        loss.backward()
        opt.step()
        losses.append(loss.item())
    return losses, net


def test_a_compiled_module_is_a_module_whose_parameters_train_as_eager():
    import torch
    eager, _ = _mlp_losses(lambda m: m)
    compiled, net = _mlp_losses(fluxgrad.compile)
    np.testing.assert_allclose(compiled, eager, rtol=1e-6)
    assert isinstance(net, fluxgrad.nn.Module) and net.trace_count == 1 and "def " in net.code
    theirs = torch.compile(torch.nn.Sequential(torch.nn.Linear(4, 8), torch.nn.Tanh(),
                                               torch.nn.Linear(8, 3)))
    assert list(net.state_dict()) == list(theirs.state_dict())  # "_orig_mod." prefixed
    net.eval()
    assert not net.training and not net._orig_mod.training
    assert net._orig_mod[2].out_features == 3
    assert fluxgrad.compile(fluxgrad.nn.Linear(3, 2)).in_features == 3  # read through


def test_jit_script_and_trace_compile_as_torch_jit_spells_them():
    fluxgrad.manual_seed(0)
    model = fluxgrad.nn.Linear(3, 2)
    x = fluxgrad.randn(4, 3)
    traced = fluxgrad.jit.trace(model, fluxgrad.randn(4, 3))
    assert traced.trace_count == 1  # traced on the example already
    with fluxgrad.no_grad():
        np.testing.assert_allclose(traced(x).numpy(), model(x).numpy(), rtol=1e-6)
        scripted = fluxgrad.jit.script(lambda a: (a * 2).tanh())
        np.testing.assert_allclose(scripted(x).numpy(), (x * 2).tanh().numpy(), rtol=1e-6)
    assert isinstance(scripted, fluxgrad.jit.Compiled)


def test_torch_compiler_namespace_reset_is_compiling_and_disable():
    seen = []

    @fluxgrad.compile
    def f(x):
        seen.append(fluxgrad.compiler.is_compiling())
        return x.sin() * 2
    x = fluxgrad.ones(3)
    f(x)
    f(x)
    traces = f.trace_count
    assert seen and all(seen) and not fluxgrad.compiler.is_compiling()
    assert len(seen) == traces  # the second call ran the generated code
    fluxgrad._dynamo.reset()
    np.testing.assert_allclose(f(x).numpy(), 2 * np.sin(np.ones(3)))
    assert f.trace_count == traces + 1
    fluxgrad.compiler.reset()
    f(x)
    assert f.trace_count == traces + 2

    @fluxgrad.compiler.disable
    def g(x):
        return x + 1
    assert fluxgrad.compile(g) is g and fluxgrad.compile(fullgraph=True)(g) is g
    fluxgrad._dynamo.config.suppress_errors = True  # accepted, as scripts set it


def test_a_constant_the_passes_removed_is_not_kept_alive():
    import gc
    import weakref
    holder = [fluxgrad.zeros(1000)]  # read at trace time only; x + 0 simplifies to x
    kept = weakref.ref(holder[0]._data)
    compiled = fluxgrad.compile(lambda x: (x + holder[0]) * 2, fullgraph=True)
    np.testing.assert_array_equal(compiled(fluxgrad.ones(1000)).numpy(), np.full(1000, 2.0))
    holder.clear()
    gc.collect()
    assert kept() is None
    np.testing.assert_array_equal(compiled(fluxgrad.ones(1000)).numpy(), np.full(1000, 2.0))
