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
SAMPLES = [s for s in all_samples() if repr(s) not in WRITES_INTO_CONSTANT]
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
