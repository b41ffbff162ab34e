"""A call that raises changes nothing: every in-place Tensor method, an optimizer's step,
a module's and an optimizer's load_state_dict (`save` over an existing file: test_bad_input.py).

In-place methods are called on fresh tensors (float, integer, bool) with arguments chosen to
fail (shapes that don't broadcast, strings, out-of-range indices, a dtype the result can't be
written in); whenever one raises, the tensor's values and version must be as before. An
optimizer step that raises (a gradient of the wrong shape, an option set to a
non-number after construction, an option turned on that needs state the first steps didn't
make, a state tensor of the wrong shape) leaves every parameter, the whole state and the
groups' options as they were.
"""
import copy

import numpy as np
import pytest

import fluxgrad as fg
from fluxgrad import nn, optim

INPLACE = sorted(n for n in dir(fg.Tensor) if n.endswith("_") and not n.startswith("_")
                 and callable(getattr(fg.Tensor, n)))

BASES = {
    "float": lambda: fg.tensor([1.0, 2.0, 3.0]),
    "int": lambda: fg.tensor([1, 2, 3]),
    "bool": lambda: fg.tensor([True, False, True]),
    "matrix": lambda: fg.tensor([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]]),
}

BAD_ARGUMENTS = [
    (),
    (fg.ones(4),),
    (fg.ones(4), fg.ones(4)),
    (fg.ones(4), fg.ones(4), fg.ones(4)),
    ("a",),
    ("a", "a"),
    (1.5,),
    (fg.ones(3),),
    (0, fg.tensor([0, 5]), fg.full((2,), 7.0)),
    (0, fg.tensor([0, 5]), 7.0),
    (0, fg.tensor([0.0]), fg.ones(1)),
    (5,),
    (0, 5),
    (fg.ones(3, dtype=fg.bool), fg.ones(2)),
]

# methods no argument above makes raise (they accept anything, or only change metadata)
NEVER_RAISE = {"requires_grad_", "share_memory_", "detach_", "zero_"}


def _snapshot(t):
    return t._data.copy(), t._data.dtype, t._data.shape, t._version


@pytest.mark.parametrize("name", INPLACE)
def test_an_inplace_method_that_raises_changes_nothing(name):
    raised = 0
    for make in BASES.values():
        for args in BAD_ARGUMENTS:
            t = make()
            values, dtype, shape, version = _snapshot(t)
            try:
                getattr(t, name)(*args)
            except Exception:  # noqa: BLE001 - any failure must leave t as it was
                raised += 1
                assert t._data.dtype == dtype and t._data.shape == shape, (name, args)
                np.testing.assert_array_equal(t._data, values, err_msg=f"{name}{args!r}")
                assert t._version == version, (name, args)
    if name not in NEVER_RAISE:
        assert raised, f"{name}: no bad argument made it raise; add one that does"


# --- optimizers ----------------------------------------------------------------------------

OPTIMIZERS = {
    "SGD": lambda groups: optim.SGD(groups, lr=0.1, momentum=0.9),
    "Adam": lambda groups: optim.Adam(groups, lr=0.1),
    "AdamW(amsgrad)": lambda groups: optim.AdamW(groups, lr=0.1, amsgrad=True),
    "RMSprop": lambda groups: optim.RMSprop(groups, lr=0.1, momentum=0.5, centered=True),
    "Adagrad": lambda groups: optim.Adagrad(groups, lr=0.1),
    "Adadelta": lambda groups: optim.Adadelta(groups, lr=0.1),
    "Adamax": lambda groups: optim.Adamax(groups, lr=0.1),
    "NAdam": lambda groups: optim.NAdam(groups, lr=0.1),
    "RAdam": lambda groups: optim.RAdam(groups, lr=0.1),
    "Rprop": lambda groups: optim.Rprop(groups, lr=0.1),
    "ASGD": lambda groups: optim.ASGD(groups, lr=0.1),
}


def _stepped(make):
    """An optimizer of two groups (two parameters each) after one good step, gradients set."""
    params = [fg.tensor(np.linspace(-1, 1, n), dtype=fg.float32, requires_grad=True)
              for n in (3, 4, 5, 6)]
    opt = make([{"params": params[:2]}, {"params": params[2:]}])
    for p in params:
        p.grad = fg.ones_like(p) * 0.5
    opt.step()
    return opt, params


def _everything(opt, params):
    state = {i: {k: (np.array(v._data) if isinstance(v, fg.Tensor) else copy.deepcopy(v))
                 for k, v in opt.state[p].items()} for i, p in enumerate(params)}
    groups = [{k: v for k, v in g.items() if k != "params"} for g in opt.param_groups]
    return [p._data.copy() for p in params], [p._version for p in params], state, \
        copy.deepcopy(groups)


def _assert_same(before, after):
    (values, versions, state, groups), (values2, versions2, state2, groups2) = before, after
    for a, b in zip(values, values2):
        np.testing.assert_array_equal(a, b)
    assert versions == versions2
    assert state.keys() == state2.keys()
    for i in state:
        assert state[i].keys() == state2[i].keys()
        for k in state[i]:
            np.testing.assert_array_equal(state[i][k], state2[i][k], err_msg=f"state {k}")
    assert groups == groups2


def _wrong_shape(opt, params):
    params[3].grad.data = fg.ones(2)  # (the .grad setter refuses it, as torch's)


def _lr_set_to_str(opt, params):
    opt.param_groups[1]["lr"] = "0.1"


def _option_set_to_str(opt, params):
    group = opt.param_groups[1]
    key = next(k for k in ("betas", "etas", "weight_decay") if k in group)
    group[key] = "0.1" if key == "weight_decay" else (0.9, "0.99")


def _state_of_wrong_shape(opt, params):
    entries = opt.state[params[3]]
    key = next(k for k, v in entries.items() if isinstance(v, fg.Tensor) and v.ndim)
    entries[key] = fg.zeros(2)


FAILURES = {"grad of the wrong shape": _wrong_shape,
            "lr set to a str": _lr_set_to_str, "an option set to a non-number": _option_set_to_str,
            "a state tensor of the wrong shape": _state_of_wrong_shape}


@pytest.mark.parametrize("failure", sorted(FAILURES))
@pytest.mark.parametrize("name", sorted(OPTIMIZERS))
def test_a_step_that_raises_changes_no_parameter_state_or_option(name, failure):
    opt, params = _stepped(OPTIMIZERS[name])
    FAILURES[failure](opt, params)
    before = _everything(opt, params)
    with pytest.raises((TypeError, ValueError, RuntimeError, KeyError)) as info:
        opt.step()
    assert "step" in str(info.value) or "gradient" in str(info.value)
    _assert_same(before, _everything(opt, params))


@pytest.mark.parametrize("make,option,value", [
    (lambda g: optim.Adam(g, lr=0.1), "amsgrad", True),
    (lambda g: optim.RMSprop(g, lr=0.1), "momentum", 0.9),
    (lambda g: optim.RMSprop(g, lr=0.1), "centered", True),
], ids=["Adam amsgrad", "RMSprop momentum", "RMSprop centered"])
def test_an_option_turned_on_after_steps_raises_before_any_update(make, option, value, torch):
    opt, params = _stepped(make)
    for group in opt.param_groups:
        group[option] = value
    before = _everything(opt, params)
    with pytest.raises(KeyError, match=f"{option}.*nothing was updated"):
        opt.step()
    _assert_same(before, _everything(opt, params))
    # torch refuses it too (its state lacks the buffer), with a KeyError
    p = torch.ones(3, requires_grad=True)
    t_opt = getattr(torch.optim, type(opt).__name__)([p], lr=0.1)
    p.grad = torch.ones(3)
    t_opt.step()
    t_opt.param_groups[0][option] = value
    with pytest.raises(KeyError):
        t_opt.step()


def test_a_negative_lr_set_after_construction_steps_as_in_torch(torch):
    """PyTorch checks option values when it makes an optimizer, not when it steps."""
    p = fg.ones(2, requires_grad=True)
    opt = optim.SGD([p], lr=0.1)
    opt.param_groups[0]["lr"] = -0.5
    p.grad = fg.ones(2)
    opt.step()
    assert p.tolist() == [1.5, 1.5]


@pytest.fixture
def torch():
    return pytest.importorskip("torch")


# --- load_state_dict -----------------------------------------------------------------------

def _model():
    fg.manual_seed(0)
    return nn.Sequential(nn.Linear(3, 4), nn.BatchNorm1d(4), nn.Linear(4, 2))


def _module_values(model):
    return {k: v.detach().numpy().copy() for k, v in model.state_dict().items()}


def _module_versions(model):
    return {k: v._version for k, v in model.state_dict(keep_vars=True).items()}


def _good_state():
    return {k: fg.full(tuple(v.shape), 0.25, dtype=v.dtype)
            for k, v in _model().state_dict().items()}


def _missing(sd):
    del sd["2.bias"]


def _unexpected(sd):
    sd["3.weight"] = fg.ones(2)


def _wrong_shape_last(sd):
    sd["2.bias"] = fg.ones(5)


def _not_numbers_last(sd):
    sd["2.bias"] = np.array(["a", "b"])


@pytest.mark.parametrize("spoil", [_missing, _unexpected, _wrong_shape_last, _not_numbers_last],
                         ids=["missing", "unexpected", "wrong shape", "not numbers"])
def test_module_load_state_dict_that_raises_changes_nothing(spoil):
    model = _model()
    before, versions = _module_values(model), _module_versions(model)
    sd = _good_state()
    spoil(sd)
    with pytest.raises(RuntimeError, match="Error\\(s\\) in loading state_dict"):
        model.load_state_dict(sd)
    after = _module_values(model)
    for k in before:
        np.testing.assert_array_equal(before[k], after[k], err_msg=k)
    assert _module_versions(model) == versions


def test_module_load_state_dict_not_strict_reports_keys_as_torch(torch):
    sd = _good_state()
    _missing(sd)
    _unexpected(sd)
    model = _model()
    result = model.load_state_dict(sd, strict=False)
    t_model = torch.nn.Sequential(torch.nn.Linear(3, 4), torch.nn.BatchNorm1d(4),
                                  torch.nn.Linear(4, 2))
    t_sd = {k: torch.tensor(v.numpy()) for k, v in sd.items()}
    t_result = t_model.load_state_dict(t_sd, strict=False)
    assert list(result.missing_keys) == list(t_result.missing_keys)
    assert list(result.unexpected_keys) == list(t_result.unexpected_keys)
    assert model[0].weight.tolist() == [[0.25] * 3] * 4  # the rest was loaded


def test_module_load_state_dict_not_strict_still_refuses_a_wrong_shape_and_changes_nothing():
    model = _model()
    before = _module_values(model)
    sd = _good_state()
    _wrong_shape_last(sd)
    with pytest.raises(RuntimeError, match="size mismatch for 2.bias"):
        model.load_state_dict(sd, strict=False)
    after = _module_values(model)
    for k in before:
        np.testing.assert_array_equal(before[k], after[k], err_msg=k)


@pytest.mark.parametrize("spoil", [
    lambda sd: sd["param_groups"][1].__setitem__("lr", -1.0),
    lambda sd: sd["param_groups"][1].__setitem__("params", [2]),
    lambda sd: sd["state"][3].__setitem__("exp_avg", fg.zeros(2)),
    lambda sd: sd["state"][3].__setitem__("step", "one"),
    lambda sd: sd["param_groups"].pop(),
], ids=["negative lr", "group size", "state shape", "step not a number", "a group missing"])
def test_optimizer_load_state_dict_that_raises_changes_nothing(spoil):
    opt, params = _stepped(lambda g: optim.Adam(g, lr=0.1))
    other, _ = _stepped(lambda g: optim.Adam(g, lr=0.2))
    sd = copy.deepcopy(other.state_dict())
    spoil(sd)
    before = _everything(opt, params)
    with pytest.raises((ValueError, TypeError, RuntimeError)):
        opt.load_state_dict(sd)
    _assert_same(before, _everything(opt, params))
