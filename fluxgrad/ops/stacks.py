"""NumPy-style stacking composites: `atleast_*d`, `hstack`, `vstack`, `dstack`, `column_stack`.

Each is a reshape followed by `concat`, so it differentiates (to any order, in
every mode) through those ops' rules.
"""
from .._core.errors import ArgumentError
from .._core.tensor import Tensor
from ._family import as_tensor, tensor_input
from .shape import concat, reshape

__all__ = ["atleast_1d", "atleast_2d", "atleast_3d", "hstack", "vstack", "row_stack", "dstack",
           "column_stack"]


def _atleast(shapes, tensors, op):
    def lift(x):
        x = tensor_input(x, op)
        return x if x.ndim >= len(shapes) else reshape(x, shapes[x.ndim](x.shape))
    if len(tensors) == 1 and isinstance(tensors[0], (list, tuple)):
        tensors = tensors[0]
    lifted = tuple(lift(x) for x in tensors)
    return lifted[0] if len(lifted) == 1 else lifted


_TO_1D = (lambda s: (1,),)
_TO_2D = _TO_1D + (lambda s: (1, s[0]),)
_TO_3D = (lambda s: (1, 1, 1), lambda s: (1, s[0], 1), lambda s: (s[0], s[1], 1))


def atleast_1d(*tensors):
    return _atleast(_TO_1D, tensors, "atleast_1d")


def atleast_2d(*tensors):
    return _atleast((lambda s: (1, 1),) + _TO_2D[1:], tensors, "atleast_2d")


def atleast_3d(*tensors):
    return _atleast(_TO_3D, tensors, "atleast_3d")


def _list(tensors, op):
    if isinstance(tensors, Tensor) or not len(tensors):
        raise ArgumentError(f"{op}: expected a non-empty list of tensors")
    return list(tensors)


def hstack(tensors):
    """Join along dimension 1 (dimension 0 for 1-d tensors)."""
    tensors = [atleast_1d(t) for t in _list(tensors, "hstack")]
    return concat(tensors, 0 if tensors[0].ndim == 1 else 1)


def vstack(tensors):
    """Join along dimension 0, 1-d tensors taken as rows."""
    return concat([atleast_2d(t) for t in _list(tensors, "vstack")], 0)


row_stack = vstack


def dstack(tensors):
    """Join along dimension 2 (depth), lifting tensors to 3-d first."""
    return concat([atleast_3d(t) for t in _list(tensors, "dstack")], 2)


def column_stack(tensors):
    """Join along dimension 1, 0-d and 1-d tensors taken as columns."""
    tensors = [as_tensor(t) for t in _list(tensors, "column_stack")]
    return concat([reshape(t, (t.numel(), 1)) if t.ndim < 2 else t for t in tensors], 1)
