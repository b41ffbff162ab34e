"""Disagreements with PyTorch that round 7's random programs (indexing, views and in-place
writes, and the soak of every generator) found, each with the program that showed it, the
expected numbers from PyTorch's semantics worked out by hand."""
import numpy as np
import pytest

import fluxgrad as fg

torch = pytest.importorskip("torch")


@pytest.mark.parametrize("in_place", [True, False], ids=["index_put_", "index_put"])
def test_accumulating_put_broadcasts_a_value_of_lower_rank_over_repeated_indices(in_place):
    # every index is 0: x[0] gains the value broadcast to the index's (3, 2), each row once
    # (NumPy 2.4's add.at added the first row only, or read past the value's end)
    x = fg.tensor([1.0, 10.0])
    index = (fg.tensor([[0, 0], [0, 1], [0, 0]]),)
    value = fg.tensor([0.25, 0.5])
    out = x.index_put_(index, value, True) if in_place else x.index_put(index, value, True)
    np.testing.assert_array_equal(out.numpy(), [1.0 + 3 * 0.25 + 2 * 0.5, 10.0 + 0.5])


def test_accumulating_put_broadcasts_over_an_index_block_and_a_slice():
    x = fg.zeros(3, 4)
    x.index_put_((fg.tensor([[0, 1], [2, 0]]),), fg.arange(4.0), accumulate=True)
    np.testing.assert_array_equal(x.numpy(), [[0, 2, 4, 6], [0, 1, 2, 3], [0, 1, 2, 3]])
