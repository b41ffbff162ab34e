"""fill_ and zero_ write into a view that broadcasts (expand: stride 0) as PyTorch does,
outside a graph, by writing the memory the view reads; the other in-place writes into such
a view stay refused, as PyTorch's."""
import numpy as np
import pytest
import torch

import fluxgrad as fg


def _expanded_slice(lib):
    base = lib.arange(6.0).reshape(2, 3)
    return base, base[:, 1:].unsqueeze(0).expand(2, 2, 2)


@pytest.mark.parametrize("write", [lambda y: y.fill_(5.0), lambda y: y.zero_(),
                                   lambda y: y.fill_(value=-1)], ids=["fill", "zero", "kw"])
def test_fill_of_an_expanded_view_writes_its_base_as_torch(write):
    (t_base, t_view), (f_base, f_view) = _expanded_slice(torch), _expanded_slice(fg)
    assert write(f_view) is f_view
    write(t_view)
    np.testing.assert_array_equal(f_base.numpy(), t_base.numpy())
    np.testing.assert_array_equal(f_view.numpy(), t_view.numpy())
    np.testing.assert_array_equal((f_view + 1).numpy(), (t_view + 1).numpy())


def test_top_level_fill_of_an_expanded_view_as_torch():
    t, f = torch.arange(3.0), fg.arange(3.0)
    torch.fill_(t.expand(2, 3), 4.0)
    fg.fill_(f.expand(2, 3), 4.0)
    np.testing.assert_array_equal(f.numpy(), t.numpy())


@pytest.mark.parametrize("write", [lambda lib, y: y.add_(1), lambda lib, y: y.copy_(lib.ones(2, 3)),
                                   lambda lib, y: y.fill_(lib.tensor(5.0)),
                                   lambda lib, y: y.mul_(2)],
                         ids=["add_", "copy_", "fill_tensor", "mul_"])
def test_other_writes_into_an_expanded_view_stay_refused_and_change_nothing(write):
    for lib in (torch, fg):
        x = lib.arange(3.0)
        with pytest.raises(RuntimeError):
            write(lib, x.expand(2, 3))
        np.testing.assert_array_equal(x.numpy(), [0.0, 1.0, 2.0])


def test_fill_of_an_expanded_view_in_a_graph_is_refused():
    a = fg.arange(3.0, requires_grad=True)
    view = (a * 2).expand(2, 3)
    with pytest.raises(RuntimeError, match="share memory"):
        view.fill_(1.0)
    np.testing.assert_array_equal(view.detach().numpy(), [[0.0, 2.0, 4.0]] * 2)
