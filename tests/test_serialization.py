"""save / load: round trips of tensors, state dicts and optimizer state in a pickle-free file."""
import pickle
import zipfile

import numpy as np
import pytest

import fluxgrad as fg
from fluxgrad import nn


def test_tensor_round_trip_keeps_values_dtype_and_requires_grad(tmp_path):
    path = tmp_path / "t.fg"
    t = fg.tensor([[1.5, 2.0]], dtype=fg.float64, requires_grad=True)
    fg.save(t, path)
    back = fg.load(path)
    assert back.dtype == fg.float64 and back.requires_grad
    np.testing.assert_array_equal(back.detach().numpy(), t.detach().numpy())


def test_nested_structures_round_trip(tmp_path):
    obj = {"a": [fg.tensor([1, 2]), (3, "x", None)], 5: {"b": 2.5, "c": True},
           "arr": np.arange(3, dtype=np.int32)}
    fg.save(obj, tmp_path / "o.fg")
    back = fg.load(tmp_path / "o.fg")
    assert back["a"][0].tolist() == [1, 2] and back["a"][1] == (3, "x", None)
    assert back[5] == {"b": 2.5, "c": True}
    assert back["arr"].dtype == np.int32


def test_model_and_optimizer_checkpoint_round_trip(tmp_path):
    fg.manual_seed(0)
    model = nn.Sequential(nn.Linear(3, 4), nn.BatchNorm1d(4), nn.Linear(4, 2))
    opt = fg.optim.Adam(model.parameters(), lr=0.01)
    model(fg.randn(5, 3)).sum().backward()
    opt.step()
    fg.save({"model": model.state_dict(), "optim": opt.state_dict()}, tmp_path / "ck.fg")
    ck = fg.load(tmp_path / "ck.fg")
    fresh = nn.Sequential(nn.Linear(3, 4), nn.BatchNorm1d(4), nn.Linear(4, 2))
    fresh.load_state_dict(ck["model"])
    for (k, v), (_, w) in zip(model.state_dict().items(), fresh.state_dict().items()):
        np.testing.assert_array_equal(v.numpy(), w.numpy(), err_msg=k)
    opt2 = fg.optim.Adam(fresh.parameters(), lr=0.01)
    opt2.load_state_dict(ck["optim"])
    assert opt2.state_dict()["state"][0]["step"] == 1


def test_file_is_a_plain_npz_without_pickles(tmp_path):
    fg.save({"w": fg.ones(2)}, tmp_path / "f.fg")
    with zipfile.ZipFile(tmp_path / "f.fg") as z:
        assert sorted(z.namelist()) == ["__structure__.npy", "a0.npy"]
    with np.load(tmp_path / "f.fg", allow_pickle=False) as archive:
        assert archive["a0"].tolist() == [1.0, 1.0]


def test_whole_model_round_trips_pickled_only_with_weights_only_false(tmp_path):
    fg.manual_seed(0)
    model = fg.nn.Sequential(fg.nn.Linear(3, 4), fg.nn.Tanh(), fg.nn.Linear(4, 1))
    fg.save(model, tmp_path / "model.pt")
    with pytest.raises(pickle.UnpicklingError, match="weights_only=False"):
        fg.load(tmp_path / "model.pt")
    back = fg.load(tmp_path / "model.pt", weights_only=False)
    x = fg.randn(2, 3)
    np.testing.assert_array_equal(back(x).detach().numpy(), model(x).detach().numpy())
    assert [p.requires_grad for p in back.parameters()] == [True] * 4


def test_unsupported_objects_and_foreign_files_raise(tmp_path):
    with pytest.raises(TypeError, match="can't be pickled"):
        fg.save({"x": lambda: 0}, tmp_path / "bad.fg")
    np.savez(tmp_path / "other.npz", x=np.zeros(2))
    with pytest.raises(ValueError, match="not a valid fluxgrad checkpoint"):
        fg.load(tmp_path / "other.npz")
