"""A training step with `optim.Lamb` compiled: the same losses, parameters and moments as the
eager step for 20 steps (with weight decay, a parameter excluded from it, and
`always_adapt`), and a change of what `exclude_from_weight_decay_fn` answers traces again."""
import numpy as np
import pytest

import fluxgrad
from fluxgrad import Tensor, nn, optim
from test_compile_training import _step

STEPS = 20


def _run(compiled, exclude=None, always_adapt=False, steps=STEPS):
    fluxgrad.manual_seed(0)
    model = nn.Sequential(nn.Linear(6, 16), nn.Tanh(), nn.Linear(16, 3))
    opt = optim.Lamb(parameters=model.parameters(), lr=0.01, lamb_weight_decay=0.1,
                     exclude_from_weight_decay_fn=exclude, always_adapt=always_adapt)
    step = _step(model, opt)
    fn = fluxgrad.compile(step, fullgraph=True) if compiled else step
    rng = np.random.default_rng(1)
    losses = [fn(Tensor(rng.standard_normal((5, 6)).astype(np.float32)),
                 Tensor(rng.integers(0, 3, 5))).item() for _ in range(steps)]
    moments = [opt.state[p]["moment2"]._data.copy() for p in model.parameters()]
    return losses, [p._data.copy() for p in model.parameters()], moments, fn


def _is_bias(p):
    return p.ndim == 1


@pytest.mark.parametrize("exclude, always_adapt", [(None, False), (_is_bias, False),
                                                   (_is_bias, True)])
def test_a_compiled_lamb_step_matches_eager_lamb_for_20_steps(exclude, always_adapt):
    losses, params, moments, _ = _run(False, exclude, always_adapt)
    got_losses, got_params, got_moments, compiled = _run(True, exclude, always_adapt)
    assert compiled.trace_count == 2  # the first step (no state yet), then every other one
    np.testing.assert_allclose(got_losses, losses, rtol=1e-5)
    for a, e in zip(got_params + got_moments, params + moments):
        np.testing.assert_allclose(a, e, rtol=1e-4, atol=1e-7)


def test_a_new_answer_of_the_exclusion_function_traces_again():
    excluded = {"bias": False}
    _, _, _, compiled = _run(True, lambda p: excluded["bias"] and p.ndim == 1, steps=3)
    before = compiled.trace_count
    excluded["bias"] = True
    x, y = Tensor(np.ones((5, 6), np.float32)), Tensor(np.zeros(5, np.int64))
    compiled(x, y)
    assert compiled.trace_count == before + 1
    assert "exclude_from_weight_decay_fn" in compiled.traces[-1].reason
