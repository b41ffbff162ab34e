"""Random whole small training runs (tests/training_programs.py: a random nn.Sequential of
linear, recurrent-cell, convolution, norm, activation, dropout, pooling and embedding layers; a
random loss, optimizer and lr scheduler) for 5 steps in float32, from torch's initial weights:
each step's loss, learning rate, parameters and optimizer state against PyTorch, and the same
run with the step compiled (fullgraph=True) against eager fluxgrad (the optimizers whose step
doesn't compile are refused clearly)."""
import numpy as np
import pytest

import fluxgrad as fg
from training_programs import Run

torch = pytest.importorskip("torch")

SEEDS = range(16)
COMPILED_STEPS = ("SGD", "Adam", "AdamW", "RMSprop", "Adagrad")


def _compare(got, want, run, where, rtol, atol):
    for k, ((loss, lr, params, state), (w_loss, w_lr, w_params, w_state)) in enumerate(
            zip(got, want)):
        what = f"{where}step {k} of {run.describe()}"
        np.testing.assert_allclose(loss, w_loss, rtol=rtol, atol=atol, err_msg=f"loss, {what}")
        np.testing.assert_allclose(lr, w_lr, rtol=1e-12, err_msg=f"lr, {what}")
        for i, (p, w) in enumerate(zip(params, w_params)):
            assert p.dtype == w.dtype and p.shape == w.shape, f"parameter {i}, {what}"
            np.testing.assert_allclose(p, w, rtol=rtol, atol=atol,
                                       err_msg=f"parameter {i}, {what}")
        for i, (s, w) in enumerate(zip(state, w_state)):
            assert sorted(s) == sorted(w), f"state keys of parameter {i}, {what}"
            for key in w:
                np.testing.assert_allclose(s[key], w[key], rtol=rtol, atol=atol,
                                           err_msg=f"state {key!r} of parameter {i}, {what}")


@pytest.mark.parametrize("seed", SEEDS)
def test_training_run_matches_torch_step_by_step(seed):
    run = Run(seed)
    # (float32: a step of Adam-like optimizers divides by a gradient's size, which turns
    # rounding differences of near-zero gradients into 1e-4 of the lr)
    _compare(run.train(fg), run.train(torch), run, "", 2e-4, 2e-5)


@pytest.mark.parametrize("seed", SEEDS)
def test_compiled_training_run_matches_eager(seed):
    run = Run(seed)
    if run.name not in COMPILED_STEPS:
        with pytest.raises(NotImplementedError, match="not supported"):
            run.train(fg, compiled=True)
        return
    _compare(run.train(fg, compiled=True), run.train(fg), run, "compiled: ", 1e-5, 1e-6)
