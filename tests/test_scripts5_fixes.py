"""Focused tests of the small fixes the scripts of round 5 (tests/pytorch_scripts) brought in (the
new layers have their own files: tests/test_nn_lazy.py, tests/test_nn_sync_batchnorm.py)."""
import io

import numpy as np
import pytest

import fluxgrad as fg
from fluxgrad.serialization import CheckpointError


def test_repeat_returns_a_tensor_that_owns_its_memory():
    row = fg.tensor([[1, 2, 3]])
    tiled = row.repeat(3, 1)
    tiled[0, 0] = 9
    assert tiled.stride() == (3, 1) and tiled.tolist() == [[9, 2, 3], [1, 2, 3], [1, 2, 3]]
    same = row.repeat(1, 1)
    same[0, 1] = 7
    assert row.tolist() == [[1, 2, 3]]


def test_int_scalar_out_of_the_tensor_dtype_range_wraps_around_as_torch():
    u8 = fg.tensor([44, 200], dtype=fg.uint8)
    assert (u8 + 300).tolist() == [88, 244] and (u8 + 300).dtype == fg.uint8
    assert (u8 == 300).tolist() == [True, False]
    i8 = fg.tensor([1, 100], dtype=fg.int8)
    assert (i8 + 300).tolist() == [45, -112] and (i8 * -300).tolist() == [-44, -48]


def test_repr_leaves_out_the_default_float_dtype_whichever_it_is():
    fg.set_default_dtype(fg.float64)
    try:
        assert repr(fg.ones(2)) == "tensor([1., 1.])"
        assert repr(fg.ones(2, dtype=fg.float32)) == "tensor([1., 1.], dtype=fluxgrad.float32)"
        assert repr(fg.tensor([])) == "tensor([])"
    finally:
        fg.set_default_dtype(fg.float32)
    assert repr(fg.ones(1, dtype=fg.float64)) == "tensor([1.], dtype=fluxgrad.float64)"


def test_nn_utils_exports_the_fusion_helpers_as_torch():
    from fluxgrad.nn.utils import fusion
    assert fg.nn.utils.fuse_conv_bn_eval is fusion.fuse_conv_bn_eval
    assert fg.nn.utils.fuse_linear_bn_weights is fusion.fuse_linear_bn_weights


def _round_trip(obj):
    buffer = io.BytesIO()
    fg.save(obj, buffer)
    return fg.load(io.BytesIO(buffer.getvalue()))


def test_save_keeps_views_sharing_memory_with_their_strides():
    base = fg.arange(12.0).view(3, 4)
    loaded = _round_trip({"base": base, "row": base[1], "t": base.t(), "rev": base.flip(0)})
    assert loaded["t"].stride() == (1, 4) and fg.equal(loaded["t"], base.t())
    assert fg.equal(loaded["rev"], base.flip(0))
    loaded["row"][0] = -1.0
    assert loaded["base"][1, 0].item() == -1.0 and loaded["t"][0, 1].item() == -1.0
    assert base[1, 0].item() == 4.0


def test_save_keeps_a_tied_weight_tied_and_a_size_a_size():
    shared = fg.nn.Parameter(fg.ones(2))
    loaded = _round_trip({"a": shared, "b": shared, "shape": fg.Size([3, 4])})
    loaded["a"].data.mul_(3)
    assert loaded["b"].tolist() == [3.0, 3.0] and isinstance(loaded["b"], fg.nn.Parameter)
    assert type(loaded["shape"]) is fg.Size and loaded["shape"] == (3, 4)


def test_load_refuses_a_view_reaching_outside_its_array():
    structure = ('{"format": "fluxgrad-1", "root": {"tensor": "x", "view": '
                 '{"offset": 2, "shape": [3], "strides": [1]}}}')
    out = io.BytesIO()
    np.savez(out, x=np.zeros(4, np.float32),
             __structure__=np.frombuffer(structure.encode(), np.uint8))
    with pytest.raises(CheckpointError, match="reaching elements 2 to 4 of an array of 4"):
        fg.load(io.BytesIO(out.getvalue()))


def test_skip_init_builds_the_module_without_drawing_random_numbers():
    fg.manual_seed(3)
    expected = fg.rand(2)
    fg.manual_seed(3)
    layer = fg.nn.utils.skip_init(fg.nn.Linear, 4, 2, bias=False)
    assert fg.equal(fg.rand(2), expected)
    assert layer.weight.shape == (2, 4) and layer.bias is None
