"""Random training loops (tests/optim_programs.py: every optimizer with randomly drawn options,
parameter groups with their own lr, an lr scheduler) against torch.optim, step by step: the
loss, every group's learning rate and the parameters after each step, in eager mode and with
the training step compiled (fullgraph=True; the optimizers whose step compiles, the others
refused clearly). A loop torch refuses to build is refused by
fluxgrad with the same exception type."""
import numpy as np
import pytest

import fluxgrad as fg
from optim_programs import Loop

torch = pytest.importorskip("torch")

SEEDS = range(100)
COMPILED_STEPS = ("SGD", "Adam", "AdamW", "RMSprop", "Adagrad")


def _compare(got, want, loop):
    for k, ((loss, lrs, w, b), (t_loss, t_lrs, t_w, t_b)) in enumerate(zip(got, want)):
        what = f"step {k} of {loop.describe()}"
        np.testing.assert_allclose(loss, t_loss, rtol=1e-9, err_msg=f"loss, {what}")
        np.testing.assert_allclose(lrs, t_lrs, rtol=1e-9, atol=1e-15, err_msg=f"lr, {what}")
        # (Adam-like steps divide by a gradient's size: last-bit differences grow to 1e-9)
        np.testing.assert_allclose(w, t_w, rtol=1e-8, atol=1e-9, err_msg=f"weight, {what}")
        np.testing.assert_allclose(b, t_b, rtol=1e-8, atol=1e-9, err_msg=f"bias, {what}")


@pytest.mark.parametrize("compiled", [False, True], ids=["eager", "compiled"])
@pytest.mark.parametrize("seed", SEEDS)
def test_random_training_loop_matches_torch_step_by_step(seed, compiled):
    loop = Loop(seed)
    try:
        want = loop.run(torch)
    except ValueError as err:
        with pytest.raises(type(err)):
            loop.run(fg, compiled)
        return
    if compiled and loop.name not in COMPILED_STEPS:
        with pytest.raises(NotImplementedError, match="not supported"):
            loop.run(fg, compiled)
        return
    _compare(loop.run(fg, compiled), want, loop)
