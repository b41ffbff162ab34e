"""fluxgrad.amp: GradScaler step by step against torch.amp.GradScaler on the CPU; autocast
accepted and changing no dtype (the documented difference)."""
import warnings

import numpy as np
import pytest
import torch

import fluxgrad as fg


def _run(lib, scaler_cls, steps):
    lib.manual_seed(0)
    w = lib.nn.Parameter(lib.tensor([1.0, -2.0, 0.5]))
    opt = lib.optim.SGD([w], lr=0.1)
    scaler = scaler_cls("cpu", init_scale=8.0, growth_interval=2)
    scales, weights = [], []
    for poison in steps:
        opt.zero_grad()
        loss = (w * w).sum() * (float("inf") if poison else 1.0)
        scaler.scale(loss).backward()
        scaler.unscale_(opt)
        scaler.step(opt)
        scaler.update()
        scales.append(scaler.get_scale())
        weights.append(w.detach().numpy().copy())
    return scales, weights, scaler.state_dict()


def test_grad_scaler_matches_torch_through_overflow_skips_and_growth():
    steps = [False, False, True, False, False, False]
    got = _run(fg, fg.amp.GradScaler, steps)
    want = _run(torch, torch.amp.GradScaler, steps)
    assert got[0] == want[0]
    np.testing.assert_allclose(np.array(got[1]), np.array(want[1]), rtol=1e-6)
    assert got[2]["scale"] == want[2]["scale"]
    assert got[2]["_growth_tracker"] == want[2]["_growth_tracker"]


def test_grad_scaler_refuses_a_second_unscale_and_a_disabled_one_passes_through():
    w = fg.nn.Parameter(fg.tensor([1.0]))
    opt = fg.optim.SGD([w], lr=0.1)
    scaler = fg.cuda.amp.GradScaler()
    scaler.scale(w.sum()).backward()
    scaler.unscale_(opt)
    with pytest.raises(RuntimeError, match="already been called"):
        scaler.unscale_(opt)
    off = fg.amp.GradScaler(enabled=False)
    loss = w.sum()
    assert off.scale(loss) is loss and off.get_scale() == 1.0


def test_autocast_changes_no_dtype_and_works_as_a_decorator():
    x = fg.ones(2, 2)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        with fg.autocast("cpu", dtype=fg.float16):
            y = x @ x

        @fg.amp.autocast("cpu")
        def f(a):
            return a @ a
    assert y.dtype == fg.float32 and f(x).dtype == fg.float32
    with pytest.raises(TypeError, match="device_type must be a str"):
        fg.autocast(fg.float16)
