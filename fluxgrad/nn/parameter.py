"""`Parameter`: a leaf tensor a Module registers as learnable; requires grad by default.
`UninitializedParameter` / `UninitializedBuffer`: a lazy layer's before its first call."""
import numpy as np

from .._core import dtypes
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



_SHAPE_UNKNOWN = ("Can't access the shape of an uninitialized parameter or buffer. This error "
                  "usually happens in `load_state_dict` when trying to load an uninitialized "
                  "parameter into an initialized one. Call `forward` to initialize the "
                  "parameters before accessing their attributes.")


class UninitializedTensorMixin:
    """A lazy layer's parameter or buffer before its first call: no shape yet (reading it
    raises), printed as `<UninitializedParameter>` / `<UninitializedBuffer>`, as PyTorch's.
    `materialize(shape)` gives it one and makes it a plain `cls_to_become`."""
    __slots__ = ()
    cls_to_become = None

    def materialize(self, shape, device=None, dtype=None):
        """Take `shape` (zeros until initialized) and `dtype`, and become `cls_to_become`."""
        dtype = self._data.dtype if dtype is None else dtypes.as_dtype(dtype).np
        self._data = np.zeros(tuple(shape), dtype)
        self.__class__ = self.cls_to_become

    @property
    def shape(self):
        raise RuntimeError(_SHAPE_UNKNOWN)

    def size(self, dim=None):
        raise RuntimeError(_SHAPE_UNKNOWN)

    def detach(self):
        """Another uninitialized one (what a state_dict holds for it, as PyTorch's)."""
        return type(self)(requires_grad=False, dtype=self.dtype)

    def __repr__(self):
        return f"<{type(self).__name__}>"


def _empty(dtype):
    return np.empty(0, (dtypes.default_float if dtype is None else dtypes.as_dtype(dtype)).np)


class UninitializedParameter(UninitializedTensorMixin, Parameter):
    """A lazy layer's parameter before its first call (see UninitializedTensorMixin)."""
    __slots__ = ()
    cls_to_become = Parameter

    def __init__(self, requires_grad=True, device=None, dtype=None):
        Parameter.__init__(self, _empty(dtype), requires_grad)


class UninitializedBuffer(UninitializedTensorMixin, Tensor):
    """A lazy layer's buffer before its first call (see UninitializedTensorMixin)."""
    __slots__ = ()
    cls_to_become = Tensor

    def __init__(self, requires_grad=False, device=None, dtype=None):
        Tensor.__init__(self, _empty(dtype))
        if requires_grad:
            self.requires_grad = True


def is_lazy(param):
    """Whether `param` is a lazy layer's parameter or buffer not materialized yet."""
    return isinstance(param, UninitializedTensorMixin)
