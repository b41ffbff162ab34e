"""`alias`: the identity op, a new tensor on the same data that stays in the graph."""
from .._core.dispatch import apply
from ._batch import broadcasting
from ._family import linear

__all__ = []

alias_p = linear("alias", lambda x: x, lambda out_bar, x: out_bar,
                 view=lambda base, value: value,
                 batch=broadcasting("alias"))


def alias(x):
    return apply(alias_p, x)
