"""`vmap(compile(f))`: the batched function is traced and compiled (`jit.batched`), once per
pattern of batch dimensions, and gives vmap(f)'s values and gradients."""
import numpy as np
import pytest

import fluxgrad as fg

RNG = np.random.default_rng(0)


def layer(x, w):
    return (x @ w).tanh().sum() * x


def _close(got, want):
    np.testing.assert_allclose(got.detach().numpy(), want.detach().numpy(), rtol=1e-12,
                               atol=1e-14)


def test_vmap_of_a_compiled_function_runs_one_batched_program_traced_once():
    compiled = fg.compile(layer, fullgraph=True)
    x, w = fg.tensor(RNG.random((5, 3))), fg.tensor(RNG.random((3, 2)))
    want = fg.vmap(layer, in_dims=(0, None))(x, w)
    for _ in range(3):
        _close(fg.vmap(compiled, in_dims=(0, None))(x, w), want)
    assert compiled.trace_count == 1
    assert "def layer_batched(" in compiled.code and compiled.code.count("_matmul(") == 1


def test_each_pattern_of_in_dims_has_its_own_trace():
    compiled = fg.compile(layer, fullgraph=True)
    x, w = fg.tensor(RNG.random((3, 4))), fg.tensor(RNG.random((4, 3, 2)))
    for in_dims in [(1, None), (None, 0), (1, 0), (1, None)]:
        xs = x if in_dims[0] is not None else x[:, 0]
        ws = w if in_dims[1] is not None else w[0]
        _close(fg.vmap(compiled, in_dims=in_dims, out_dims=1)(xs, ws),
               fg.vmap(layer, in_dims=in_dims, out_dims=1)(xs, ws))
    assert compiled.trace_count == 3


def test_nested_vmap_of_a_compiled_function():
    compiled = fg.compile(layer, fullgraph=True)
    x, w = fg.tensor(RNG.random((4, 5, 3))), fg.tensor(RNG.random((5, 3, 2)))
    inner = (0, 0)
    for _ in range(2):
        got = fg.vmap(fg.vmap(compiled, in_dims=inner), in_dims=(0, None))(x, w)
        _close(got, fg.vmap(fg.vmap(layer, in_dims=inner), in_dims=(0, None))(x, w))
    assert compiled.trace_count == 1


def test_gradients_flow_through_a_compiled_vmapped_call():
    compiled = fg.compile(layer, fullgraph=True)
    x0, w0 = RNG.random((6, 3)), RNG.random((3, 2))
    grads = []
    for fn in (compiled, compiled, layer):
        x, w = fg.tensor(x0, requires_grad=True), fg.tensor(w0, requires_grad=True)
        (fg.vmap(fn, in_dims=(0, None))(x, w) ** 2).sum().backward()
        grads.append((x.grad, w.grad))
    for got in grads[:2]:
        for g, want in zip(got, grads[2]):
            _close(g, want)


def test_a_new_batch_size_gives_the_right_values():
    compiled = fg.compile(layer, fullgraph=True)
    w = fg.tensor(RNG.random((3, 2)))
    for n in (5, 7, 9, 7):
        x = fg.tensor(RNG.random((n, 3)))
        _close(fg.vmap(compiled, in_dims=(0, None))(x, w),
               fg.vmap(layer, in_dims=(0, None))(x, w))
    assert compiled.trace_count <= 2  # the size that changed is traced as unknown


def test_results_the_same_for_every_example_and_structured_results():
    def fn(x, w):
        return {"y": x * w.sum(), "w2": w * 2, "pair": [x.sin(), x[0]]}
    compiled = fg.compile(fn, fullgraph=True)
    x, w = fg.tensor(RNG.random((4, 3))), fg.tensor(RNG.random(3))
    for _ in range(2):
        got = fg.vmap(compiled, in_dims=(0, None))(x, w)
        want = fg.vmap(fn, in_dims=(0, None))(x, w)
        assert got.keys() == want.keys()
        for g, w_ in [(got["y"], want["y"]), (got["w2"], want["w2"])] + list(
                zip(got["pair"], want["pair"])):
            _close(g, w_)


def test_vmap_of_compile_inside_a_compiled_function_stages_inline():
    compiled = fg.compile(layer)
    outer = fg.compile(lambda x, w: fg.vmap(compiled, in_dims=(0, None))(x, w).sum(),
                       fullgraph=True)
    x, w = fg.tensor(RNG.random((5, 3))), fg.tensor(RNG.random((3, 2)))
    for _ in range(2):
        _close(outer(x, w), fg.vmap(layer, in_dims=(0, None))(x, w).sum())


def test_a_tensor_batched_by_an_outer_vmap_and_captured_is_read_at_every_call():
    captured = {}
    compiled = fg.compile(lambda x: x * 2 + captured["w"])
    x = fg.tensor(RNG.random(3))

    def outer(w):
        captured["w"] = w  # batched at the outer level, which no argument of compiled carries
        return fg.vmap(compiled)(fg.stack([x, x]))
    for scale in (1.0, 5.0):
        ws = fg.tensor(RNG.random((4, 3)) * scale)
        want = fg.vmap(lambda w: fg.vmap(lambda x: x * 2 + w)(fg.stack([x, x])))(ws)
        _close(fg.vmap(outer)(ws), want)
