"""state_dict records each module's version (PyTorch's `_metadata`); load_state_dict lets a
checkpoint without it lack the buffers BatchNorm/InstanceNorm gained in version 2, as PyTorch does."""
import fluxgrad as torch
import fluxgrad.nn as nn


def model():
    return nn.Sequential(nn.Linear(2, 3), nn.BatchNorm1d(3), nn.InstanceNorm1d(3, track_running_stats=True))


def test_state_dict_records_module_versions():
    metadata = model().state_dict()._metadata
    assert metadata[""] == {"version": 1}
    assert metadata["1"] == {"version": 2} and metadata["2"] == {"version": 2}


def test_plain_dict_without_num_batches_tracked_is_not_missing_it():
    m = model()
    with torch.no_grad():
        m[1].num_batches_tracked.fill_(7)
    plain = {k: v for k, v in m.state_dict().items() if "num_batches_tracked" not in k}
    result = m.load_state_dict(plain)
    assert result.missing_keys == [] and result.unexpected_keys == []
    assert m[1].num_batches_tracked.item() == 7


def test_state_dict_with_versions_still_reports_num_batches_tracked_missing():
    m = model()
    sd = m.state_dict()
    del sd["1.num_batches_tracked"]
    result = m.load_state_dict(sd, strict=False)
    assert result.missing_keys == ["1.num_batches_tracked"]


def test_other_missing_buffers_are_reported_from_a_plain_dict():
    m = model()
    plain = {k: v for k, v in m.state_dict().items() if k != "1.running_mean"}
    assert m.load_state_dict(plain, strict=False).missing_keys == ["1.running_mean"]
