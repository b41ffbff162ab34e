"""Eager forward mode with dual tensors, like `torch.autograd.forward_ad`.

    with forward_ad.dual_level():
        x = forward_ad.make_dual(x, v)
        y = f(x)
        y_primal, y_tangent = forward_ad.unpack_dual(y)   # y_tangent = J v

Tangents flow through every op's JVP rule in the same forward pass.
"""
import collections

from .._core import batching, open_levels
from .._core.forward_mode import state
from .._core.tensor import Tensor
from ..ops.alias import alias

__all__ = ["dual_level", "make_dual", "unpack_dual", "UnpackedDualTensor", "enter_dual_level",
           "exit_dual_level"]


class dual_level:
    """Open a level in which dual tensors carry tangents (`with dual_level() as level:`)."""
    __slots__ = ()

    def __enter__(self):
        return enter_dual_level()

    def __exit__(self, *exc):
        exit_dual_level()


def enter_dual_level():
    """Open a dual level (what `with dual_level():` does on entry); returns its index."""
    state.level += 1
    open_levels.opened()
    return state.level


def exit_dual_level(*, level=None):
    """Close the innermost dual level (`level`, if given, must be it)."""
    if not state.level:
        raise RuntimeError("exit_dual_level(): no dual level is open")
    if level is not None and level != state.level:
        raise RuntimeError(f"exit_dual_level(level={level}): the innermost open level is "
                           f"{state.level}; close the levels innermost first")
    state.level -= 1
    open_levels.closed()


def make_dual(tensor, tangent):
    """A tensor with `tensor`'s value and history, carrying `tangent`."""
    if not state.level:
        raise RuntimeError("make_dual() must be called inside `with forward_ad.dual_level():`")
    if not isinstance(tangent, Tensor):
        tangent = Tensor(tangent, dtype=tensor.dtype)
    if tangent.shape != tensor.shape:
        raise ValueError(f"make_dual: the tangent has shape {list(tangent.shape)} but the tensor "
                         f"has shape {list(tensor.shape)}; they must match")
    if not (tensor.is_floating_point() or tensor.is_complex()):
        raise TypeError(f"make_dual: only floating and complex tensors carry tangents, got {tensor.dtype}")
    return batching.with_tangent(alias(tensor) if tensor.requires_grad else tensor, tangent)


UnpackedDualTensor = collections.namedtuple("UnpackedDualTensor", ["primal", "tangent"])


def unpack_dual(tensor):
    """(primal, tangent) of a dual tensor, also as `.primal` and `.tangent`; tangent is None
    if it carries none (as every tensor does once its dual level has closed)."""
    tangent = batching.tangent_of(tensor) if state.level else None
    if tangent is None:
        return UnpackedDualTensor(tensor, None)
    return UnpackedDualTensor(batching.without_tangent(tensor), tangent)
