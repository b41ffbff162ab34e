"""PyTorch's remaining Tensor methods: in-place forms of existing ops, in-place shape changes
(squeeze_, unsqueeze_, t_, transpose_, resize_), fill_diagonal_, put/put_, apply_/map_ (a
Python function per entry), the random fills cauchy_/log_normal_/geometric_, and the memory
queries PyTorch code reads (stride, storage_offset, data_ptr, untyped_storage, _base,
element_size, itemsize, nbytes, layout, ...).

In-place value changes go through `inplace.apply_inplace` (versions bump, views and
autograd see the write). Ops whose result has no gradient (comparisons, logical and
bitwise ops, gcd, ...) write through `fill`, so that the tensor's history becomes a zero
gradient, as PyTorch's. In-place shape changes keep the memory and give the tensor the
history of the out-of-place view op.
"""
import math

import numpy as np

from .._core import dtypes
from .._core.errors import ArgumentError, DTypeError, ShapeError
from .._core.grad_mode import state as _grad_state
from .._core.tensor import Tensor, tensor_method
from ..settings import strided
from . import (activation, elementwise, index_extras, indexing, linalg, linalg_extras,
               math_extras, reduce, shape, special_functions)
from .inplace import apply_inplace, fill, inplace_method
from ._conj import conj_rule

__all__ = []


def _inplace_method(name, op, *, differentiable=True):
    def write(x, *args, **kwargs):  # a result without gradient: written as a fill of values
        return fill(x, op(x, *args, **kwargs))
    setattr(Tensor, name, inplace_method(name, op if differentiable else write))


_DIFFERENTIABLE = {
    "acos_": elementwise.acos, "acosh_": elementwise.acosh, "asin_": elementwise.asin,
    "asinh_": elementwise.asinh, "atan_": elementwise.atan, "atanh_": elementwise.atanh,
    "arccos_": elementwise.acos, "arccosh_": elementwise.acosh, "arcsin_": elementwise.asin,
    "arcsinh_": elementwise.asinh, "arctan_": elementwise.atan, "arctanh_": elementwise.atanh,
    "atan2_": elementwise.atan2, "arctan2_": elementwise.atan2, "cosh_": elementwise.cosh,
    "sinh_": elementwise.sinh, "tan_": elementwise.tan, "erf_": elementwise.erf,
    "erfc_": elementwise.erfc, "exp2_": elementwise.exp2, "log2_": elementwise.log2,
    "log10_": elementwise.log10, "fix_": elementwise.trunc, "frac_": elementwise.frac,
    "copysign_": elementwise.copysign, "deg2rad_": elementwise.deg2rad,
    "rad2deg_": elementwise.rad2deg, "sinc_": elementwise.sinc, "absolute_": elementwise.abs,
    "sgn_": elementwise.sign, "nan_to_num_": elementwise.nan_to_num,
    "digamma_": special_functions.digamma, "lgamma_": special_functions.lgamma,
    "erfinv_": special_functions.erfinv, "i0_": special_functions.i0,
    "polygamma_": lambda x, n: special_functions.polygamma(n, x),
    "mvlgamma_": math_extras.mvlgamma, "hypot_": math_extras.hypot,
    "ldexp_": math_extras.ldexp, "xlogy_": math_extras.xlogy, "renorm_": linalg_extras.renorm,
    "addmm_": linalg_extras.addmm, "addmv_": linalg_extras.addmv, "addr_": linalg_extras.addr,
    "addbmm_": linalg_extras.addbmm, "baddbmm_": linalg_extras.baddbmm,
    "tril_": linalg.tril, "triu_": linalg.triu, "cumsum_": reduce.cumsum,
    "cumprod_": reduce.cumprod, "index_fill_": index_extras.index_fill,
    "index_copy_": index_extras.index_copy, "index_reduce_": index_extras.index_reduce,
    "masked_scatter_": index_extras.masked_scatter, "scatter_reduce_": indexing.scatter_reduce,
    "hardtanh_": activation.hardtanh,
}
_NO_GRADIENT = {
    "eq_": elementwise.eq, "ne_": elementwise.not_equal, "not_equal_": elementwise.not_equal,
    "lt_": elementwise.less, "less_": elementwise.less, "le_": elementwise.less_equal,
    "less_equal_": elementwise.less_equal, "gt_": elementwise.greater,
    "greater_": elementwise.greater, "ge_": elementwise.greater_equal,
    "greater_equal_": elementwise.greater_equal, "logical_not_": elementwise.logical_not,
    "logical_and_": elementwise.logical_and, "logical_or_": elementwise.logical_or,
    "logical_xor_": elementwise.logical_xor, "bitwise_and_": elementwise.bitwise_and,
    "bitwise_or_": elementwise.bitwise_or, "bitwise_xor_": elementwise.bitwise_xor,
    "bitwise_not_": elementwise.bitwise_not,
    "bitwise_left_shift_": elementwise.bitwise_left_shift,
    "bitwise_right_shift_": elementwise.bitwise_right_shift,
    "floor_divide_": elementwise.floor_divide, "gcd_": math_extras.gcd, "lcm_": math_extras.lcm,
    "heaviside_": math_extras.heaviside, "nextafter_": math_extras.nextafter,
}
for _name, _op in _DIFFERENTIABLE.items():
    if not hasattr(Tensor, _name):
        _inplace_method(_name, _op)
for _name, _op in _NO_GRADIENT.items():
    _inplace_method(_name, _op, differentiable=False)


def _float_power_(x, exponent):
    if x._data.dtype != np.float64:
        raise DTypeError(f"the base given to float_power_ has dtype {x.dtype} but the "
                         "operation's result requires dtype float64; convert it with .double()")
    return apply_inplace(x, math_extras.float_power, exponent)


Tensor.float_power_ = _float_power_


# --- in-place shape changes ----------------------------------------------------------------
def _reshaped_inplace(x, op, *args):
    """x made `op(x, *args)`, a view op: same memory, the view's shape and history."""
    if x._grad_fn is None and x._requires_grad and _grad_state.enabled:
        raise RuntimeError("a leaf Variable that requires grad is being used in an in-place "
                           "operation; do it under fluxgrad.no_grad(), or on a copy")
    old = x._shallow_copy()
    old._view = getattr(x, "_view", None)
    if old._view is not None:
        old._view_version = x._view_version
    old._tangent = x._tangent
    result = op(old, *args)
    x._data = result._data
    x._grad_fn, x._out_index = result._grad_fn, result._out_index
    x._requires_grad = result._requires_grad
    x._tangent = result._tangent
    x._view = getattr(result, "_view", None)
    x._bump_version()
    if x._view is not None:
        x._view_version = x._version_counter[0]
    return x


def _shape_method(name, op):
    def method(self, *args):
        return _reshaped_inplace(self, op, *args)
    method.__name__ = name
    method.__doc__ = f"In place `{name[:-1]}`: this tensor takes the new shape (same memory)."
    setattr(Tensor, name, method)


for _name, _op in (("squeeze_", shape.squeeze), ("unsqueeze_", shape.unsqueeze),
                   ("t_", shape.t), ("transpose_", shape.transpose),
                   ("swapaxes_", shape.swapaxes), ("swapdims_", shape.swapaxes)):
    _shape_method(_name, _op)


@tensor_method("resize_")
def resize_(x, *sizes, memory_format=None):
    """x viewed with shape `sizes` of the same number of elements (fluxgrad never grows or
    shrinks a tensor's memory)."""
    sizes = tuple(sizes[0]) if len(sizes) == 1 and isinstance(sizes[0], (tuple, list)) else (
        sizes)
    if int(np.prod(sizes)) != x.numel():
        raise RuntimeError(f"resize_: fluxgrad resizes only to the same number of elements: "
                           f"{list(x.shape)} ({x.numel()}) can't become {list(sizes)} "
                           f"({int(np.prod(sizes))}); make a new tensor (fluxgrad.empty) "
                           "instead")
    return _reshaped_inplace(x, shape.reshape, sizes)


# --- writes at positions ---------------------------------------------------------------------
def _diagonal_mask(shape_, wrap):
    if len(shape_) < 2:
        raise ShapeError(f"fill_diagonal_: dimensions must larger than 1, got shape "
                         f"{list(shape_)}")
    if len(shape_) > 2 and len(set(shape_)) != 1:
        raise ShapeError(f"fill_diagonal_: all dimensions of input must be of equal length, "
                         f"got shape {list(shape_)}")
    mask = np.zeros(shape_, dtype=bool)
    if len(shape_) > 2:
        idx = np.arange(shape_[0])
        mask[(idx,) * len(shape_)] = True
        return mask
    rows, cols = shape_
    flat = mask.reshape(-1)
    stop = rows * cols if wrap else min(rows, cols) * cols
    flat[0:stop:cols + 1] = True
    return mask


@tensor_method("fill_diagonal_")
def fill_diagonal_(x, fill_value, wrap=False):
    """Set the main diagonal to `fill_value`; a tall matrix with wrap=True restarts the
    diagonal every (columns + 1) rows."""
    mask = Tensor._make(_diagonal_mask(tuple(x.shape), wrap))
    return apply_inplace(x, indexing.masked_fill, mask, fill_value)


@tensor_method("put")
def put(x, index, source, accumulate=False):
    """x with the entries of its flattened form at `index` set to (or, with accumulate,
    increased by) `source`."""
    index = math_extras.as_operand(index)
    math_extras.refuse_value_reads("put", index)
    source = math_extras.as_operand(source)
    if index.numel() != source.numel():
        raise IndexError(f"put_(): Expected source and index to have the same number of "
                           f"elements, but got source.numel() = {source.numel()}, "
                           f"index.numel() = {index.numel()}")
    n = x.numel()
    data = index._data
    if data.size and (data.min() < -n or data.max() >= n):
        raise IndexError(f"put_(): index out of range for a tensor of {n} elements")
    flat = shape.reshape(x, (-1,))
    out = indexing.index_put(flat, (shape.reshape(index, (-1,)),),
                             elementwise.cast(shape.reshape(source, (-1,)), x.dtype),
                             accumulate)
    return shape.reshape(out, x.shape)


Tensor.put_ = lambda self, index, source, accumulate=False: apply_inplace(
    self, put, index, source, accumulate)


def _python_map(fn, x, *others):
    """fn called on the entries of x (and the matching entries of `others`, broadcast to x's
    shape) as Python numbers, the results in x's dtype."""
    arrays = [x._data] + [np.broadcast_to(o._data, x.shape) for o in others]
    out = np.empty(x.shape, x._data.dtype)
    for index in np.ndindex(*x.shape):
        out[index] = fn(*(a[index].item() for a in arrays))
    return Tensor._make(out)


@tensor_method("apply_")
def apply_(x, callable):
    """Replace each entry by callable(entry), called on Python numbers (slow: for small
    tensors, as PyTorch's CPU-only apply_); no gradient flows through it."""
    return apply_inplace(x, fill, _python_map(callable, x))


@tensor_method("map_")
def map_(x, tensor, callable):
    """Replace each entry by callable(entry, other), `other` the matching entry of `tensor`
    (broadcast to this tensor's shape); no gradient flows through it."""
    other = math_extras.as_operand(tensor)
    try:
        np.broadcast_to(other._data, x.shape)
    except ValueError:
        raise RuntimeError(f"map_: the tensor of shape {list(other.shape)} does not broadcast "
                           f"to this tensor's shape {list(x.shape)}") from None
    return apply_inplace(x, fill, _python_map(callable, x, other))


# --- random fills: transforms of the uniform and normal draws (which stage in programs) ----
def _random_fill(x, draw, generator, op):
    from .. import random_ops
    from ..random import _fill, _generator
    generator = _generator(generator)
    return _fill(x, lambda: draw(random_ops, generator), op)


@tensor_method("cauchy_")
def cauchy_(x, median=0.0, sigma=1.0, *, generator=None):
    """Fill with samples of the Cauchy distribution."""
    if not sigma > 0:
        raise ArgumentError(f"cauchy_ expects sigma > 0.0, but found sigma={sigma}")
    return _random_fill(x, lambda ops, g: elementwise.tan(
        (ops.uniform(x.shape, np.float64, generator=g) - 0.5) * math.pi) * sigma + median,
        generator, "cauchy_")


@tensor_method("log_normal_")
def log_normal_(x, mean=1.0, std=2.0, *, generator=None):
    """Fill with samples whose log is normal(mean, std)."""
    if not std > 0:
        raise ArgumentError(f"log_normal_ expects std > 0.0, but found std={std}")
    return _random_fill(x, lambda ops, g: elementwise.exp(
        ops.normal(float(mean), float(std), x.shape, np.float64, g)), generator, "log_normal_")


@tensor_method("geometric_")
def geometric_(x, p, *, generator=None):
    """Fill with the number of Bernoulli(p) trials up to the first success (1, 2, ...)."""
    if not 0 < p < 1:
        raise RuntimeError(f"geometric_ expects p to be in (0, 1), but got p={p}")
    # floor(log V / log(1 - p)) + 1 for V uniform on (0, 1]
    return _random_fill(x, lambda ops, g: elementwise.floor(elementwise.log(
        1 - ops.uniform(x.shape, np.float64, generator=g)) / math.log1p(-p)) + 1,
        generator, "geometric_")


# --- memory and type queries -------------------------------------------------------------------
def _matrix_adjoint(self):
    if self.ndim not in (0, 2):
        raise RuntimeError(f"tensor.H is only supported on matrices (2-D tensors). Got "
                           f"{self.ndim}-D tensor." + (" For batches of matrices, consider "
                                                        "using tensor.mH" if self.ndim > 2
                                                        else ""))
    return conj_rule(shape.t(self) if self.ndim == 2 else self)


def _root_array(data):
    while isinstance(data.base, np.ndarray):
        data = data.base
    return data


def _address(data):
    return data.__array_interface__["data"][0]


def _storage_offset(self):
    root = _root_array(self._data)
    return (_address(self._data) - _address(root)) // max(self._data.itemsize, 1)


def _view_base(self):
    """PyTorch's `_base`: the tensor a view was taken of, followed back through views of
    views (None for a tensor that owns its memory)."""
    base = None
    view = getattr(self, "_view", None)
    while view is not None:
        base = view[0]
        view = getattr(base, "_view", None)
    return base


class UntypedStorage:
    """The memory a tensor and its views share, as PyTorch's `untyped_storage()` shows it:
    its address and its size in bytes."""
    __slots__ = ("_root",)

    def __init__(self, root):
        self._root = root

    def data_ptr(self):
        return _address(self._root)

    def nbytes(self):
        return self._root.nbytes

    size = nbytes
    __len__ = nbytes

    def __repr__(self):
        return f"UntypedStorage of {self.nbytes()} bytes at 0x{self.data_ptr():x}"


def _stride(self, dim=None):
    strides = tuple(s // self._data.itemsize for s in self._data.strides)
    return strides if dim is None else strides[dim]


def _sum_to_size(self, *size):
    size = tuple(size[0]) if len(size) == 1 and isinstance(size[0], (tuple, list)) else size
    try:
        fits = np.broadcast_shapes(size, self._data.shape) == self._data.shape
    except ValueError:
        fits = False
    if not fits:
        raise RuntimeError(f"size {list(size)} is not expandable to size {list(self.shape)}.")
    if self._data.dtype == np.bool_ and (tuple(size) != self._data.shape or self.ndim == 0):
        self = elementwise.cast(self, dtypes.int64)  # summed as int64, as torch's sum of bools
    return shape.sum_to(self, size)


def _is_nonzero(self):
    from ..settings import is_nonzero
    return is_nonzero(self)


def _imag(self):
    raise RuntimeError("imag is not implemented for tensors with non-complex dtypes.")


Tensor.real = property(lambda self: self, doc="The real part: the tensor itself (no complex "
                                                "dtypes).")
Tensor.imag = property(_imag)
Tensor.resolve_neg = lambda self: self
Tensor.is_conj = Tensor.is_neg = lambda self: False
Tensor.is_same_size = lambda self, other: self._data.shape == other._data.shape
Tensor.split_with_sizes = lambda self, split_sizes, dim=0: shape.split(self, list(split_sizes),
                                                                       dim)
Tensor.H = property(_matrix_adjoint, doc="The conjugate transpose of a matrix (real: .T).")
Tensor.mH = property(lambda self: conj_rule(self.mT),
                     doc="The conjugate transpose of batched matrices.")
Tensor.adjoint = lambda self: conj_rule(self.mT)
Tensor.data_ptr = lambda self: _address(self._data)
Tensor.element_size = lambda self: self._data.itemsize
Tensor.itemsize = property(lambda self: self._data.itemsize)
Tensor.nbytes = property(lambda self: self._data.nbytes)
Tensor.ndimension = Tensor.dim
Tensor.nelement = Tensor.numel
Tensor.stride = _stride
Tensor.storage_offset = _storage_offset
Tensor._base = property(_view_base)
Tensor.untyped_storage = lambda self: UntypedStorage(_root_array(self._data))
Tensor.sum_to_size = _sum_to_size
Tensor.is_nonzero = _is_nonzero
Tensor.is_signed = lambda self: self.dtype.is_signed
Tensor.pin_memory = lambda self, device=None: self
Tensor.is_pinned = lambda self, device=None: False
Tensor.share_memory_ = lambda self: self
Tensor.is_shared = lambda self: False
Tensor.is_sparse = False
Tensor.is_quantized = False
Tensor.is_meta = False
Tensor.is_cpu = True
Tensor.layout = strided
Tensor.output_nr = property(lambda self: self._out_index if self._grad_fn is not None else 0)
