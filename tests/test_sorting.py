"""sort, argsort, topk, kthvalue against PyTorch: values, indices, and gradients."""
import numpy as np
import pytest

import fluxgrad as fg

torch = pytest.importorskip("torch")
rng = np.random.default_rng(11)


def _both(x):
    return fg.tensor(x, requires_grad=True), torch.tensor(x, requires_grad=True)


@pytest.mark.parametrize("shape, dim", [((7,), 0), ((3, 5), 1), ((3, 5), 0), ((2, 3, 4), -1)])
@pytest.mark.parametrize("descending", [False, True])
def test_sort_matches_torch_with_gradients(shape, dim, descending):
    x = rng.standard_normal(shape)
    ours, theirs = _both(x)
    (v, i), (tv, ti) = fg.sort(ours, dim, descending), torch.sort(theirs, dim, descending)
    np.testing.assert_array_equal(i.numpy(), ti.numpy())
    np.testing.assert_allclose(v.detach().numpy(), tv.detach().numpy())
    weights = rng.standard_normal(v.shape)
    g, = fg.grad((v * fg.tensor(weights)).sum(), ours)
    tg, = torch.autograd.grad((tv * torch.tensor(weights)).sum(), theirs)
    np.testing.assert_allclose(g.numpy(), tg.numpy())


def test_sort_keeps_ties_in_order_both_ways():
    x = fg.tensor([2.0, 1.0, 2.0, 1.0])
    assert fg.argsort(x).tolist() == [1, 3, 0, 2]
    assert fg.argsort(x, descending=True).tolist() == [0, 2, 1, 3]


@pytest.mark.parametrize("largest", [True, False])
def test_topk_matches_torch_with_gradients(largest):
    x = rng.standard_normal((4, 6))
    ours, theirs = _both(x)
    (v, i), (tv, ti) = fg.topk(ours, 3, 1, largest), torch.topk(theirs, 3, 1, largest)
    np.testing.assert_array_equal(i.numpy(), ti.numpy())
    g, = fg.grad((v ** 2).sum(), ours)
    tg, = torch.autograd.grad((tv ** 2).sum(), theirs)
    np.testing.assert_allclose(g.numpy(), tg.numpy())


def test_topk_with_k_too_large_raises():
    with pytest.raises(ValueError, match="k=4 is out of range"):
        fg.topk(fg.ones(3), 4)


def test_kthvalue_matches_torch():
    x = rng.standard_normal((3, 5))
    v, i = fg.kthvalue(fg.tensor(x), 2, 1)
    tv, ti = torch.kthvalue(torch.tensor(x), 2, 1)
    np.testing.assert_allclose(v.numpy(), tv.numpy())
    np.testing.assert_array_equal(i.numpy(), ti.numpy())


def test_sort_second_derivative_flows_through_the_permutation():
    x = fg.tensor([3.0, -1.0, 2.0], dtype="float64", requires_grad=True)
    values, _ = fg.sort(x)
    g, = fg.grad((values ** 3 * fg.tensor([1.0, 2.0, 3.0], dtype="float64")).sum(), x,
                 create_graph=True)
    h, = fg.grad(g.sum(), x)
    # values = [-1, 2, 3] weighted 1, 2, 3: d2/dx2 of w * x**3 is 6 w x, at each source position
    np.testing.assert_allclose(h.numpy(), [6 * 3 * 3.0, 6 * 1 * -1.0, 6 * 2 * 2.0])
