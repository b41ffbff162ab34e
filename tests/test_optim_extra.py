"""Adadelta, Adamax, NAdam, RAdam against torch.optim, step by step on the same gradients."""
import numpy as np
import pytest
import torch

import fluxgrad as fg
from fluxgrad import optim

CONFIGS = [
    ("Adadelta", {}), ("Adadelta", {"lr": 0.5, "rho": 0.8, "weight_decay": 0.1}),
    ("Adamax", {}), ("Adamax", {"lr": 0.01, "betas": (0.8, 0.99), "weight_decay": 0.05}),
    ("NAdam", {}), ("NAdam", {"lr": 0.01, "momentum_decay": 0.01, "weight_decay": 0.1}),
    ("NAdam", {"weight_decay": 0.1, "decoupled_weight_decay": True}),
    ("RAdam", {}), ("RAdam", {"lr": 0.01, "weight_decay": 0.1}),
    ("RAdam", {"weight_decay": 0.1, "decoupled_weight_decay": True}),
    ("RAdam", {"betas": (0.9, 0.5)}),  # rho_t > 5 from the first steps: the rectified branch
    ("Adamax", {"maximize": True}),
    ("Rprop", {}), ("Rprop", {"lr": 0.05, "etas": (0.3, 1.5), "step_sizes": (1e-3, 0.2)}),
    ("Rprop", {"maximize": True}),
    ("ASGD", {}), ("ASGD", {"lr": 0.05, "lambd": 0.01, "alpha": 0.5, "t0": 3,
                           "weight_decay": 0.1}),
]


@pytest.mark.parametrize("name, options", CONFIGS, ids=[f"{n}-{i}" for i, (n, _) in
                                                        enumerate(CONFIGS)])
def test_steps_match_torch(name, options):
    # both keep scalar state (step, NAdam's mu_product, ASGD's eta) in the default dtype:
    # float64 here, so that the comparison can be to rounding
    previous = torch.get_default_dtype(), fg.get_default_dtype()
    torch.set_default_dtype(torch.float64)
    fg.set_default_dtype(fg.float64)
    try:
        _compare(name, options)
    finally:
        torch.set_default_dtype(previous[0])
        fg.set_default_dtype(previous[1])


@pytest.mark.parametrize("name, options", [("NAdam", {}), ("ASGD", {}), ("Adam", {})])
def test_steps_match_torch_with_float32_scalar_state(name, options):
    # with the default dtype float32, torch rounds mu_product and eta to float32 each step;
    # fluxgrad keeps them as torch does, so float64 parameters still agree to rounding
    _compare(name, options)


def _compare(name, options):
    rng = np.random.default_rng(0)
    start = rng.standard_normal((3, 4))
    ours = fg.tensor(start, requires_grad=True)
    theirs = torch.tensor(start, requires_grad=True)
    opt_ours = getattr(optim, name)([ours], **options)
    opt_theirs = getattr(torch.optim, name)([theirs], **options)
    for step in range(12):
        target = rng.standard_normal((3, 4))
        ((ours - fg.tensor(target)) ** 2 * (step + 1)).sum().backward()
        ((theirs - torch.tensor(target)) ** 2 * (step + 1)).sum().backward()
        opt_ours.step()
        opt_theirs.step()
        opt_ours.zero_grad()
        opt_theirs.zero_grad()
        np.testing.assert_allclose(ours.detach().numpy(), theirs.detach().numpy(), rtol=1e-10,
                                   atol=1e-12, err_msg=f"step {step}")


def test_paddle_spellings():
    p = fg.zeros(2, requires_grad=True)
    opt = optim.Adamax(learning_rate=0.1, parameters=[p], beta1=0.5, epsilon=1e-6)
    assert opt.param_groups[0]["betas"] == (0.5, 0.999) and opt.get_lr() == 0.1
    assert optim.RAdam(parameters=[p], learning_rate=0.2).param_groups[0]["lr"] == 0.2


@pytest.mark.parametrize("make, message", [
    (lambda p: optim.Adadelta([p], rho=1.5), "rho"),
    (lambda p: optim.NAdam([p], betas=(1.0, 0.9)), "betas"),
    (lambda p: optim.NAdam([p], momentum_decay=-1), "momentum_decay"),
    (lambda p: optim.RAdam([p], lr=-1.0), "lr"),
    (lambda p: optim.Adamax([p], eps=-1.0), "eps"),
])
def test_bad_options_are_refused(make, message):
    with pytest.raises(ValueError, match=message):
        make(fg.zeros(2, requires_grad=True))


def test_state_dict_round_trip_continues_identically():
    def run(reload):
        p = fg.tensor([1.0, -2.0], requires_grad=True)
        opt = optim.NAdam([p], lr=0.1)
        for i in range(6):
            if reload and i == 3:
                state = opt.state_dict()
                opt = optim.NAdam([p], lr=0.1)
                opt.load_state_dict(state)
            (p * p).sum().backward()
            opt.step()
            opt.zero_grad()
        return p.detach().numpy().copy()
    np.testing.assert_array_equal(run(False), run(True))


@pytest.mark.parametrize("name", ["Adadelta", "Adamax", "NAdam", "RAdam", "Rprop", "ASGD"])
def test_pytorch_implementation_switches_are_taken_and_kept_as_torch(name):
    ours = getattr(optim, name)([fg.zeros(2, requires_grad=True)], foreach=False,
                                capturable=False)
    theirs = getattr(torch.optim, name)([torch.zeros(2, requires_grad=True)], foreach=False,
                                        capturable=False)
    assert {k: v for k, v in ours.param_groups[0].items() if k != "params"} == {
        k: v for k, v in theirs.param_groups[0].items() if k != "params"}


@pytest.mark.parametrize("name", ["SGD", "Adam", "AdamW", "Adamax", "NAdam", "RAdam", "Adagrad",
                                  "Adadelta", "RMSprop", "Rprop", "ASGD"])
def test_defaults_and_a_state_dicts_param_groups_list_their_keys_in_pytorchs_order(name):
    ours = getattr(fg.optim, name)([fg.nn.Parameter(fg.ones(2))], lr=0.1)
    theirs = getattr(torch.optim, name)([torch.nn.Parameter(torch.ones(2))], lr=0.1)
    assert list(ours.defaults) == list(theirs.defaults)
    assert list(ours.state_dict()["param_groups"][0]) == \
        list(theirs.state_dict()["param_groups"][0])
