"""Arguments and results as (structure, leaves): what a compiled function's cache is keyed by.

`flatten_args(args, kwargs)` -> (key, tensors): `key` is hashable and holds the structure of
the arguments (tuples, lists, dicts), each Tensor's rank, dtype, requires_grad and memory
(`memory`: None when C-contiguous, else its strides and whether it is a view; not its sizes:
the caller keys by those as its symbolic dims allow), and the value (with its type) of every
Python scalar, string or None; `tensors` are the Tensor leaves in order. With
`layouts=False` every memory is None: the key of a trace that reads no argument's layout.
`unflatten(structure, leaves)` rebuilds a value from a structure made by `flatten_value`
(used for results, whose leaves may also be constants).
"""
import numbers

from .._core.tensor import Tensor

_SCALARS = (bool, int, float, complex, str, type(None))


def flatten_args(args, kwargs, layouts=True):
    tensors = []
    parts = []
    for i, x in enumerate(args):
        if isinstance(x, Tensor):  # the common case, kept short: a call's overhead is here
            data = x._data
            tensors.append(x)
            parts.append((data.ndim, data.dtype, x._requires_grad,
                          None if data.flags.c_contiguous or not layouts else memory(x)))
        else:
            parts.append(_key(x, tensors, f"args[{i}]", layouts))
    key = tuple(parts)
    if kwargs:
        key = (key, _key(kwargs, tensors, "kwargs", layouts))
    return key, tensors


def memory(x):
    """What a trace reads of a tensor's memory besides its shape (`view`, `stride`, ...)."""
    return x._data.strides, getattr(x, "_view", None) is not None


def _key(x, tensors, where, layouts):
    if isinstance(x, Tensor):
        tensors.append(x)
        data = x._data
        return ("T", data.ndim, data.dtype, x._requires_grad,
                None if data.flags.c_contiguous or not layouts else memory(x))
    if type(x) in _SCALARS or isinstance(x, numbers.Number):
        return ("C", type(x).__name__, x)
    if isinstance(x, (tuple, list)):
        return (type(x).__name__,) + tuple(_key(v, tensors, f"{where}[{i}]", layouts)
                                           for i, v in enumerate(x))
    if isinstance(x, dict):
        return ("dict",) + tuple((k, _key(v, tensors, f"{where}[{k!r}]", layouts))
                                 for k, v in x.items())
    raise TypeError(f"fluxgrad.compile: {where} is a {type(x).__name__}; a compiled function "
                    "takes Tensors, Python scalars, strings, None, and tuples, lists or dicts "
                    "of them. Pass other objects through a closure (they are then fixed at "
                    "trace time) or call the function without compile")


def substitute(x, leaves):
    """`x` with its Tensor leaves replaced, in order, by `leaves` (an iterator)."""
    if isinstance(x, Tensor):
        return next(leaves)
    if isinstance(x, tuple):
        return tuple(substitute(v, leaves) for v in x)
    if isinstance(x, list):
        return [substitute(v, leaves) for v in x]
    if isinstance(x, dict):
        return {k: substitute(v, leaves) for k, v in x.items()}
    return x


def flatten_value(x, leaves, where="the result"):
    """The structure of a result; its Tensor leaves are appended to `leaves`."""
    if isinstance(x, Tensor):
        leaves.append(x)
        return "T"
    if isinstance(x, (tuple, list)):
        return (type(x), tuple(flatten_value(v, leaves, f"{where}[{i}]")
                               for i, v in enumerate(x)))
    if isinstance(x, dict):
        return (dict, tuple((k, flatten_value(v, leaves, f"{where}[{k!r}]"))
                            for k, v in x.items()))
    if type(x) in _SCALARS:
        return ("C", x)
    raise TypeError(f"fluxgrad.compile: {where} is a {type(x).__name__}; a compiled function "
                    "returns Tensors, Python scalars, or tuples, lists or dicts of them")


def unflatten(structure, leaves):
    """Rebuild a result from `flatten_value`'s structure and an iterator of leaves."""
    if structure == "T":
        return next(leaves)
    kind, items = structure
    if kind == "C":
        return items
    if kind is dict:
        return {k: unflatten(s, leaves) for k, s in items}
    values = [unflatten(s, leaves) for s in items]
    return kind(*values) if hasattr(kind, "_fields") else kind(values)  # a namedtuple
