"""Exception types that PyTorch users catch by PyTorch's names.

PyTorch reports most misuse of an op (mismatched shapes, bad sizes, an index value out of
range) as RuntimeError, a few as IndexError; fluxgrad's own callers have caught ValueError,
IndexError, TypeError and ZeroDivisionError. Each class here is both, so either `except`
clause catches it.
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
