"""nn.DataParallel behaves as PyTorch's does without GPUs: it calls the wrapped module, and its
state_dict names carry the 'module.' prefix."""
import pytest

import fluxgrad
import fluxgrad.nn as nn


def test_data_parallel_runs_the_module_and_prefixes_state_dict():
    fluxgrad.manual_seed(0)
    model = nn.Linear(3, 2)
    wrapped = nn.DataParallel(model)
    x = fluxgrad.ones(4, 3)
    assert fluxgrad.equal(wrapped(x), model(x))
    assert list(wrapped.state_dict()) == ["module.weight", "module.bias"]
    assert wrapped.module is model and wrapped.device_ids == []


def test_data_parallel_state_dict_keys_match_pytorch():
    torch = pytest.importorskip("torch")
    ours = nn.DataParallel(nn.Sequential(nn.Linear(2, 2), nn.BatchNorm1d(2)))
    theirs = torch.nn.DataParallel(torch.nn.Sequential(torch.nn.Linear(2, 2),
                                                       torch.nn.BatchNorm1d(2)))
    assert list(ours.state_dict()) == list(theirs.state_dict())


def test_data_parallel_refuses_a_non_module():
    with pytest.raises(TypeError, match="wraps a Module"):
        nn.DataParallel(lambda x: x)
