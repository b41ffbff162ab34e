"""median, nanmedian, mode, unique, unique_consecutive against PyTorch: ties, NaNs, the
returned indices, the gradient to the chosen element, and the errors."""
import numpy as np
import pytest
import torch

import fluxgrad as fg

NAN = float("nan")
ROWS = [[3.0, 1.0, NAN, 2.0, NAN], [1.0, 1.0, 2.0, 2.0, 0.0], [NAN] * 5, [4.0, 4.0, 1.0, 4.0, 1.0]]


def same(a, b):
    np.testing.assert_array_equal(np.asarray(a.numpy()), b.numpy())


@pytest.mark.parametrize("name", ["median", "nanmedian"])
@pytest.mark.parametrize("keepdim", [False, True])
def test_median_along_dim_matches_torch_with_ties_and_nans(name, keepdim):
    ours = getattr(fg, name)(fg.tensor(ROWS), 1, keepdim=keepdim)
    theirs = getattr(torch, name)(torch.tensor(ROWS), 1, keepdim=keepdim)
    same(ours.values, theirs.values)
    same(ours.indices, theirs.indices)


@pytest.mark.parametrize("name", ["median", "nanmedian"])
def test_global_median_is_the_lower_median(name):
    x = [[5.0, 1.0], [4.0, NAN], [2.0, 3.0]]
    same(getattr(fg, name)(fg.tensor(x)), getattr(torch, name)(torch.tensor(x)))
    same(getattr(fg.tensor([4.0, 1.0, 3.0, 2.0]), name)(), torch.tensor([4.0, 1.0, 3.0, 2.0]).median())


def test_median_gradient_goes_to_the_chosen_element():
    data = [[4.0, 1.0, 3.0, 2.0], [0.5, 0.7, 0.6, 0.1]]
    x, t = fg.tensor(data, requires_grad=True), torch.tensor(data, requires_grad=True)
    (fg.median(x, 1).values * fg.tensor([1.0, 2.0])).sum().backward()
    (torch.median(t, 1).values * torch.tensor([1.0, 2.0])).sum().backward()
    same(x.grad, t.grad)


def test_mode_takes_the_smallest_most_frequent_value_at_its_last_occurrence():
    x = [[1.0, 2.0, 2.0, 1.0, 3.0], [5.0, 5.0, 4.0, 4.0, 4.0]]
    for dim in (1, 0):
        ours, theirs = fg.mode(fg.tensor(x), dim), torch.mode(torch.tensor(x), dim)
        same(ours.values, theirs.values)
        same(ours.indices, theirs.indices)
    ours, theirs = fg.tensor([3, 1, 3, 1]).mode(), torch.tensor([3, 1, 3, 1]).mode()
    same(ours.values, theirs.values)
    same(ours.indices, theirs.indices)


@pytest.mark.parametrize("kwargs", [{}, {"return_inverse": True}, {"return_counts": True},
                                    {"return_inverse": True, "return_counts": True, "dim": 0},
                                    {"return_inverse": True, "return_counts": True, "dim": 1}])
def test_unique_matches_torch(kwargs):
    x = [[1, 2, 1], [1, 2, 1], [0, 5, 0]]
    ours, theirs = fg.unique(fg.tensor(x), **kwargs), torch.unique(torch.tensor(x), **kwargs)
    for a, b in zip(ours if isinstance(ours, tuple) else [ours],
                    theirs if isinstance(theirs, tuple) else [theirs]):
        same(a, b)


@pytest.mark.parametrize("dim", [None, 0, 1])
def test_unique_consecutive_matches_torch(dim):
    x = [[1, 1, 2, 2], [1, 1, 2, 2], [3, 1, 1, 2], [1, 1, 2, 2]]
    ours = fg.tensor(x).unique_consecutive(return_inverse=True, return_counts=True, dim=dim)
    theirs = torch.tensor(x).unique_consecutive(return_inverse=True, return_counts=True, dim=dim)
    for a, b in zip(ours, theirs):
        same(a, b)


def test_unique_has_no_gradient():
    assert not fg.unique(fg.tensor([2.0, 1.0, 2.0], requires_grad=True)).requires_grad


def test_median_of_an_empty_dim_raises_index_error():
    with pytest.raises(IndexError, match="median: dimension 1"):
        fg.median(fg.zeros((2, 0)), 1)
    with pytest.raises(IndexError, match="mode: dimension 0"):
        fg.mode(fg.zeros((0, 3)), 0)


def test_unique_of_a_parameter_works_and_under_vmap_raises_runtime_error():
    same(fg.nn.Parameter(fg.tensor([2.0, 1.0, 2.0])).unique(), torch.tensor([1.0, 2.0]))
    with pytest.raises(RuntimeError, match="vmap: unique"):
        fg.func.vmap(fg.unique)(fg.tensor([[1.0, 2.0], [3.0, 3.0]]))


def test_global_median_of_an_empty_float_tensor_is_nan():
    same(fg.median(fg.tensor([])), torch.median(torch.tensor([])))
    with pytest.raises(IndexError, match="empty"):
        fg.median(fg.tensor([], dtype=fg.int64))
