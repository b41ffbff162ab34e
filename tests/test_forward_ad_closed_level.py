"""A dual tensor's tangent is gone once its dual level has closed, as in PyTorch."""
import fluxgrad
import fluxgrad.autograd.forward_ad as fwAD


def test_unpack_dual_after_the_level_closes_has_no_tangent():
    x = fluxgrad.tensor([1.0, 2.0])
    with fwAD.dual_level():
        dual = fwAD.make_dual(x, fluxgrad.tensor([1.0, 0.0]))
        y = dual * 3
        assert fwAD.unpack_dual(y).tangent.tolist() == [3.0, 0.0]
    primal, tangent = fwAD.unpack_dual(y)
    assert tangent is None
    assert primal.tolist() == [3.0, 6.0]
