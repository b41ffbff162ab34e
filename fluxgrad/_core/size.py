"""`Size`: a shape, as PyTorch's `torch.Size` — a tuple of ints that prints as `Size([2, 3])`."""


class Size(tuple):
    """The shape of a tensor: a tuple (compares equal to one), with `numel()`."""
    __slots__ = ()

    def __new__(cls, sizes=()):
        return tuple.__new__(cls, (int(s) for s in sizes))

    def __repr__(self):
        return f"fluxgrad.Size({list(self)})"

    __str__ = __repr__

    def __getitem__(self, index):
        item = tuple.__getitem__(self, index)
        return Size(item) if isinstance(index, slice) else item

    def __add__(self, other):
        return Size(tuple.__add__(self, tuple(other)))

    def __radd__(self, other):
        return Size(tuple(other) + tuple(self))

    def numel(self):
        n = 1
        for s in self:
            n *= s
        return n
