"""In-place writes through views: the base's value and history change together, as in
PyTorch (gradients and tangents compared with torch's)."""
import numpy as np
import pytest

import fluxgrad as fg
from fluxgrad.autograd import forward_ad

torch = pytest.importorskip("torch")
X = np.array([[1.0, -2.0, 3.0], [0.5, 4.0, -1.5]])
W = np.array([[2.0, 3.0], [-1.0, 0.5]])

# each program writes through a view of y = x * 1 (lib is fluxgrad or torch)
PROGRAMS = {
    "slice": lambda y, w, lib: y[0, 1:].mul_(w[0]),
    "slice_of_slice": lambda y, w, lib: y[:, 1:][1].add_(w[1] * w[0]),
    "transpose_then_slice": lambda y, w, lib: y.t()[1:].mul_(w),
    "reshape": lambda y, w, lib: y.reshape(6)[2:4].sub_(w[1]),
    "zero": lambda y, w, lib: y[1].zero_(),
    "exp": lambda y, w, lib: y[:, 0].exp_(),
    "copy": lambda y, w, lib: y[0, :2].copy_(w[1] ** 2),
}


def run(program, lib):
    x = lib.tensor(X, requires_grad=True)
    w = lib.tensor(W, requires_grad=True)
    y = x * 1
    program(y, w, lib)
    ((y ** 2).sum() + (y * lib.tensor(X)).sum()).backward()
    w_grad = None if w.grad is None else w.grad.numpy()  # None where w is not used
    return y.detach().numpy(), x.grad.numpy(), w_grad


@pytest.mark.parametrize("name", PROGRAMS)
def test_gradients_through_a_view_written_in_place_match_torch(name):
    for ours, theirs in zip(run(PROGRAMS[name], fg), run(PROGRAMS[name], torch)):
        assert (ours is None) == (theirs is None)
        if ours is not None:
            np.testing.assert_allclose(ours, theirs, rtol=1e-12, atol=1e-14)


@pytest.mark.parametrize("name", PROGRAMS)
def test_tangents_through_a_view_written_in_place_match_torch(name):
    v = np.arange(6.0).reshape(2, 3) - 2
    with forward_ad.dual_level():
        y = forward_ad.make_dual(fg.tensor(X), fg.tensor(v)) * 1
        PROGRAMS[name](y, fg.tensor(W), fg)
        ours = forward_ad.unpack_dual(y)[1].numpy()
    import torch.autograd.forward_ad as tfw
    with tfw.dual_level():
        y = tfw.make_dual(torch.tensor(X), torch.tensor(v)) * 1
        PROGRAMS[name](y, torch.tensor(W), torch)
        theirs = tfw.unpack_dual(y).tangent.numpy()
    np.testing.assert_allclose(ours, theirs, rtol=1e-12, atol=1e-14)


def test_a_value_written_into_a_view_of_a_constant_gets_its_gradient():
    w = fg.tensor([2.0, 3.0], requires_grad=True)
    b = fg.zeros(3)
    b[1:].add_(w)
    (b * b).sum().backward()
    np.testing.assert_array_equal(w.grad.numpy(), [4.0, 6.0])


def test_writing_through_a_view_of_a_leaf_that_requires_grad_raises_and_writes_nothing():
    x = fg.tensor([1.0, 2.0], requires_grad=True)
    with pytest.raises(RuntimeError, match="a view of a leaf tensor of shape \\[2\\] that "
                                           "requires grad is being modified in place"):
        x[0:1].mul_(2)
    np.testing.assert_array_equal(x.detach().numpy(), [1.0, 2.0])
    with fg.no_grad():
        x[0:1].mul_(2)
    np.testing.assert_array_equal(x.detach().numpy(), [2.0, 2.0])


def test_writing_through_a_view_under_no_grad_keeps_the_base_history():
    leaf = fg.nn.Parameter(fg.ones(2, 2))
    with fg.no_grad():
        leaf[0].zero_()
    assert leaf.requires_grad and leaf.is_leaf
    x = fg.tensor([1.0, 2.0, 3.0], requires_grad=True)
    y = x * 2
    with fg.no_grad():
        y[1:].mul_(3)
    y.sum().backward()
    np.testing.assert_array_equal(y.detach().numpy(), [2.0, 12.0, 18.0])
    np.testing.assert_array_equal(x.grad.numpy(), [2.0, 2.0, 2.0])  # PyTorch: the write is unseen


def test_a_reshape_that_copies_is_not_a_view():
    y = fg.tensor(X, requires_grad=True) * 1
    copy = y.t().reshape(6)
    copy.mul_(0)
    np.testing.assert_array_equal(y.detach().numpy(), X)


def test_a_view_taken_before_its_base_is_written_carries_the_write_in_its_gradient():
    torch = pytest.importorskip("torch")
    data = np.arange(12.0).reshape(4, 3) / 10

    def run(m, write_view_first):
        a = m.tensor(data, requires_grad=True)
        b = a * 1.0
        v = b[1:]
        if write_view_first:
            v.fill_(0.5)
        b.add_(a.sum() * 0.1 + 1.0)  # v reads this write: its history must too
        total = (v * v).sum()
        return total.item(), m.autograd.grad(total, a)[0].numpy()
    for first in (False, True):
        (want, want_grad), (got, got_grad) = run(torch, first), run(fg, first)
        np.testing.assert_allclose(got, want, rtol=1e-12)
        np.testing.assert_allclose(got_grad, want_grad, rtol=1e-12)


def test_an_element_taken_by_integer_indices_is_a_view():
    b = fg.zeros(4)
    b[1].fill_(5.0)
    b.select(0, 2).add_(7.0)
    m = fg.zeros(2, 3)
    m[1, 2].fill_(3.0)
    assert b.tolist() == [0.0, 5.0, 7.0, 0.0] and m.tolist() == [[0, 0, 0], [0, 0, 3.0]]
