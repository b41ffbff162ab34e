"""Module.get_extra_state / set_extra_state: the `_extra_state` entry of a state_dict."""
import pytest

import fluxgrad as fg
import fluxgrad.nn as nn


class Tokenizer(nn.Module):
    def __init__(self, vocab):
        super().__init__()
        self.scale = nn.Parameter(fg.ones(1))
        self.vocab = vocab

    def get_extra_state(self):
        return {"vocab": list(self.vocab)}

    def set_extra_state(self, state):
        self.vocab = state["vocab"]


def test_extra_state_is_saved_after_buffers_and_loaded_through_set_extra_state():
    model = nn.Sequential(Tokenizer(["a", "b"]), nn.Linear(1, 1))
    state = model.state_dict()
    assert list(state) == ["0.scale", "0._extra_state", "1.weight", "1.bias"]
    other = nn.Sequential(Tokenizer([]), nn.Linear(1, 1))
    other.load_state_dict(state)
    assert other[0].vocab == ["a", "b"]


def test_missing_extra_state_is_a_missing_key():
    result = Tokenizer(["x"]).load_state_dict({"scale": fg.ones(1)}, strict=False)
    assert result.missing_keys == ["_extra_state"]
    with pytest.raises(RuntimeError, match='Missing key\\(s\\) in state_dict: "_extra_state"'):
        Tokenizer(["x"]).load_state_dict({"scale": fg.ones(1)})


def test_a_module_without_extra_state_has_no_entry_and_refuses_get_extra_state():
    assert list(nn.Linear(1, 1).state_dict()) == ["weight", "bias"]
    with pytest.raises(RuntimeError, match="Linear.get_extra_state"):
        nn.Linear(1, 1).get_extra_state()
