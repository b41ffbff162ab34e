"""Exception types that PyTorch users catch by PyTorch's names.

PyTorch reports most misuse of an op (mismatched shapes, bad sizes, an index value out of
range) as RuntimeError, a few as IndexError; fluxgrad's own callers have caught ValueError,
IndexError, TypeError and ZeroDivisionError. Each class here is both, so either `except`
clause catches it. `refuse_python_value` is PyTorch's TypeError for a Python number or list
passed where a function wants a tensor.
"""


class ArgumentError(ValueError, RuntimeError):
    """Arguments an op can't work with (PyTorch: RuntimeError)."""


class ShapeError(ArgumentError):
    """Shapes, dimensions or sizes that don't fit the op (PyTorch: RuntimeError)."""


class ShapeIndexError(ShapeError, IndexError):
    """A shape that doesn't fit where PyTorch raises IndexError (a 2-d index for index_select,
    the argmax of an empty tensor)."""


class IndexOutOfRange(IndexError, RuntimeError):
    """Index values outside a dimension, where PyTorch raises RuntimeError (gather, narrow)."""


class DTypeError(TypeError, RuntimeError):
    """A tensor of the wrong dtype for the op (PyTorch: RuntimeError)."""


class DTypeNotImplemented(TypeError, NotImplementedError):
    """A dtype an op has no kernel for, where PyTorch raises TypeError from an operator
    (`~x`) and NotImplementedError from the function (`x.bitwise_not()`)."""


class IntegerDivisionByZero(ZeroDivisionError, RuntimeError):
    """An integer tensor divided (or taken modulo) by zero (PyTorch: RuntimeError)."""


_PYTHON_VALUES = (float, int, bool, complex, list, tuple)
_NEVER_TENSORS = (str, bytes, type(None), dict, set)


def refuse_python_value(x, op):
    """PyTorch's TypeError for a Python number or list (or a str, None, dict, ...) where `op`
    wants a tensor (torch.exp(2.0)); arrays pass, for rules that run on them."""
    if type(x) in _PYTHON_VALUES:
        raise TypeError(f"{op}(): argument 'input' must be Tensor, not {type(x).__name__}; "
                        f"wrap it: fluxgrad.{op}(fluxgrad.tensor({x!r})) (or use Python's math "
                        "module for a number)")
    if type(x) in _NEVER_TENSORS:
        raise TypeError(f"{op}(): argument 'input' must be Tensor, not {type(x).__name__}")


class UnknownDTypeName(TypeError, ValueError, RuntimeError):
    """A string that names no dtype fluxgrad knows: PyTorch raises RuntimeError from
    `Tensor.to('banana')` (read as a device), ValueError from `Tensor.type('banana')`,
    TypeError from a factory's dtype=."""


class AssertedArgument(ValueError, AssertionError):
    """A constructor argument PyTorch checks with `assert` (AssertionError): an Embedding's
    padding_idx out of range, a MultiheadAttention's embed_dim not divisible by num_heads."""


class MissingDirectory(FileNotFoundError, RuntimeError):
    """A file to write in a directory that does not exist (PyTorch's save: RuntimeError)."""


class InputDTypeMismatch(DTypeError, ValueError):
    """An input whose dtype differs from a module's weights, where PyTorch raises ValueError
    (an RNN's input)."""
