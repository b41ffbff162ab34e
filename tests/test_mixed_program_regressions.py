"""Disagreements with PyTorch found by the mixed-dtype random programs (tests/mixed_programs.py),
one test each: the smallest program that showed it."""
import numpy as np
import pytest

import fluxgrad as fg
from fluxgrad import static
from static_programs import build_program

torch = pytest.importorskip("torch")


@pytest.mark.parametrize("cut", [lambda x: fg.split(x, 2, 0), lambda x: fg.chunk(x, 2),
                                 lambda x: fg.unbind(x), lambda x: fg.tensor_split(x, 3),
                                 lambda x: x.split(1)])
def test_cutting_a_dimension_of_unknown_size_is_refused_while_building(cut):
    # (the pieces were fixed for the stand-in size: chunk(2) of 4 rows gave all 4 and 0)
    def build():
        x = static.data("x", shape=[None, 4], dtype="float64")
        with pytest.raises(ValueError, match="unknown until the static program runs"):
            cut(x)
    build_program(build)


def test_cutting_a_known_dimension_beside_an_unknown_one_runs():
    def build():
        x = static.data("x", shape=[None, 4], dtype="float64")
        return fg.chunk(x, 2, 1)
    main, _, (a, b) = build_program(build)
    feed = np.arange(12.).reshape(3, 4)
    got = static.Executor().run(main, feed={"x": feed}, fetch_list=[a, b])
    want = torch.tensor(feed).chunk(2, 1)
    for g, w in zip(got, want):
        np.testing.assert_array_equal(g, w.numpy())


@pytest.mark.parametrize("value", [0.25, -0.5, 0.0, 2])
def test_masked_fill_of_a_bool_tensor_with_a_number_fills_its_truth(value):
    # (0.25 was truncated to the int 0 first: False where PyTorch gives True)
    x = np.array([True, False, False])
    mask = np.array([False, True, True])
    want = torch.tensor(x).masked_fill(torch.tensor(mask), value)
    got = fg.tensor(x).masked_fill(fg.tensor(mask), value)
    assert got.dtype == fg.bool
    np.testing.assert_array_equal(got.numpy(), want.numpy())
