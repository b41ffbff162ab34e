"""The learning-rate schedulers step by step against PyTorch's, on the same optimizer setup
(two parameter groups with different learning rates)."""
import numpy as np
import pytest
import torch

import fluxgrad as fg

CASES = {
    "ConstantLR": lambda L, o: L.optim.lr_scheduler.ConstantLR(o, factor=0.25, total_iters=4),
    "PolynomialLR": lambda L, o: L.optim.lr_scheduler.PolynomialLR(o, total_iters=10, power=2.0),
    "MultiplicativeLR": lambda L, o: L.optim.lr_scheduler.MultiplicativeLR(
        o, lambda e: 0.9 if e % 2 else 0.95),
    "WarmRestarts": lambda L, o: L.optim.lr_scheduler.CosineAnnealingWarmRestarts(
        o, T_0=3, T_mult=1, eta_min=0.001),
    "WarmRestarts_mult": lambda L, o: L.optim.lr_scheduler.CosineAnnealingWarmRestarts(
        o, T_0=2, T_mult=2, eta_min=0.01),
    "CyclicLR": lambda L, o: L.optim.lr_scheduler.CyclicLR(
        o, base_lr=0.01, max_lr=0.1, step_size_up=3, step_size_down=5),
    "CyclicLR_tri2": lambda L, o: L.optim.lr_scheduler.CyclicLR(
        o, base_lr=[0.01, 0.02], max_lr=0.2, step_size_up=2, mode="triangular2"),
    "CyclicLR_exp": lambda L, o: L.optim.lr_scheduler.CyclicLR(
        o, base_lr=0.01, max_lr=0.1, step_size_up=2, mode="exp_range", gamma=0.9),
    "SequentialLR": lambda L, o: L.optim.lr_scheduler.SequentialLR(
        o, [L.optim.lr_scheduler.LinearLR(o, start_factor=0.1, total_iters=4),
            L.optim.lr_scheduler.ExponentialLR(o, gamma=0.8)], milestones=[5]),
    "ChainedScheduler": lambda L, o: L.optim.lr_scheduler.ChainedScheduler(
        [L.optim.lr_scheduler.ConstantLR(o, factor=0.5, total_iters=3),
         L.optim.lr_scheduler.ExponentialLR(o, gamma=0.9)]),
}


def _trajectory(lib, make, steps=20):
    w1, w2 = lib.zeros(2, requires_grad=True), lib.zeros(3, requires_grad=True)
    opt = lib.optim.SGD([{"params": [w1]}, {"params": [w2], "lr": 0.05}], lr=0.1, momentum=0.9)
    scheduler = make(lib, opt)
    lrs, momenta = [], []
    for _ in range(steps):
        opt.step()
        scheduler.step()
        lrs.append([g["lr"] for g in opt.param_groups])
        momenta.append([g["momentum"] for g in opt.param_groups])
    return np.array(lrs), np.array(momenta)


@pytest.mark.parametrize("name", list(CASES))
def test_scheduler_matches_torch_step_by_step(name):
    ours, our_momenta = _trajectory(fg, CASES[name])
    theirs, their_momenta = _trajectory(torch, CASES[name])
    np.testing.assert_allclose(ours, theirs, rtol=1e-12, atol=1e-15)
    np.testing.assert_allclose(our_momenta, their_momenta, rtol=1e-12)


def test_misuse_raises_as_in_torch():
    w = fg.zeros(2, requires_grad=True)
    with pytest.raises(ValueError, match="one more"):
        fg.optim.lr_scheduler.SequentialLR(fg.optim.SGD([w], lr=0.1), [], milestones=[1])
    with pytest.raises(ValueError, match="momentum"):
        fg.optim.lr_scheduler.CyclicLR(fg.optim.Adagrad([w]), 0.01, 0.1)
