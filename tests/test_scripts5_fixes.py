"""Focused tests of the fixes the scripts of round 5 (tests/pytorch_scripts) brought in, outside
nn (whose fixes are tested in tests/test_nn_*.py)."""
import fluxgrad as fg


def test_repeat_returns_a_tensor_that_owns_its_memory():
    row = fg.tensor([[1, 2, 3]])
    tiled = row.repeat(3, 1)
    tiled[0, 0] = 9
    assert tiled.stride() == (3, 1) and tiled.tolist() == [[9, 2, 3], [1, 2, 3], [1, 2, 3]]
    same = row.repeat(1, 1)
    same[0, 1] = 7
    assert row.tolist() == [[1, 2, 3]]
