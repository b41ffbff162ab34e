"""`nn.modules.utils`: PyTorch's helpers that turn an int or a sequence into an n-tuple
(`_pair(3) == (3, 3)`), which custom layers copied from PyTorch's call."""
import collections.abc
import itertools


def _ntuple(n, name="parse"):
    def parse(x):
        if isinstance(x, collections.abc.Iterable):
            return tuple(x)
        return tuple(itertools.repeat(x, n))
    parse.__name__ = name
    return parse


_single = _ntuple(1, "_single")
_pair = _ntuple(2, "_pair")
_triple = _ntuple(3, "_triple")
_quadruple = _ntuple(4, "_quadruple")
