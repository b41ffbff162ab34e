"""`fluxgrad.set_strict_pytorch(True)`: where fluxgrad deliberately differs from PyTorch by
default (see docs/porting-from-pytorch.md), behave as PyTorch does instead.

Today that is one place: `backward()` / `grad()` of a tensor with more than one element and
no gradient given seeds ones (PaddlePaddle's behaviour) by default, and raises as PyTorch
does when strict. (`view` of a layout that needs a copy and `.numpy()` of a tensor that
requires grad already refuse as in PyTorch.)
"""


class _State:
    __slots__ = ("pytorch",)

    def __init__(self):
        self.pytorch = False


state = _State()


def set_strict_pytorch(flag=True):
    """Behave exactly as PyTorch where fluxgrad's default follows PaddlePaddle instead."""
    state.pytorch = bool(flag)


def is_strict_pytorch():
    return state.pytorch
