"""Focused tests of the small fixes the scripts of round 5 (tests/pytorch_scripts) brought in (the
new layers have their own files: tests/test_nn_lazy.py, tests/test_nn_sync_batchnorm.py)."""
import fluxgrad as fg


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
