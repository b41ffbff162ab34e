"""`Parameter`: a leaf tensor a Module registers as learnable; requires grad by default."""
from .._core.tensor import Tensor


class Parameter(Tensor):
    """A tensor that a Module owns as a learnable weight (a leaf that requires grad)."""
    __slots__ = ()

    def __init__(self, data=None, requires_grad=True):
        if data is None:
            data = []
        super().__init__(data)
        if requires_grad:
            self.requires_grad = True

    @property
    def trainable(self):
        return self._requires_grad

    @trainable.setter
    def trainable(self, flag):
        self.requires_grad = flag

    def __repr__(self):
        return "Parameter containing:\n" + super().__repr__()

