"""Exception types that PyTorch users catch by PyTorch's names.

PyTorch reports shape and argument mismatches as RuntimeError, and integer division by zero
as a RuntimeError too; fluxgrad's own callers have caught ValueError and ZeroDivisionError.
These classes are both, so either `except` clause catches them.
"""


class ShapeError(ValueError, RuntimeError):
    """Shapes, dimensions or sizes that don't fit the op (PyTorch: RuntimeError)."""


class IntegerDivisionByZero(ZeroDivisionError, RuntimeError):
    """An integer tensor divided (or taken modulo) by zero (PyTorch: RuntimeError)."""
