"""`fluxgrad.masked`, PyTorch's `torch.masked` on dense tensors: reductions and normalizations
that ignore the elements where a boolean `mask` is False.

Every function is a composite of existing ops: the masked-out elements are replaced by the
operation's identity (0 for sum/cumsum/norm, 1 for prod/cumprod, -inf or the dtype's minimum for
amax/argmax/logsumexp/logaddexp/softmax, +inf or the maximum for amin/argmin/softmin, NaN for
median) and the ordinary op runs on the result, exactly as torch.masked does; gradients are those
of that composite. `mask` broadcasts to the input's shape (a mask of more dimensions raises
IndexError) and is read as bool; `mask=None` masks nothing. A row with every element masked out
gives the identity (sum, prod, amax, ...), NaN (mean, median, var, std, softmax) or -inf
(log_softmax, logsumexp).

    sum prod cumsum cumprod amax amin argmax argmin mean median logsumexp logaddexp
    norm var std softmax log_softmax softmin normalize

Dtypes follow torch: sum and prod of integers or bools give int64; argmax/argmin return their
indices in the input's dtype; mean and median want floating-point input (median of integers
computes in float32 and refuses fully masked rows); var and std of integers give float32.
Sparse layouts and MaskedTensor inputs are not built.
"""
import math

from ._core import dtypes
from .creation import ones, tensor
from .linalg import vector_norm
from .nn import functional as F
from .ops.elementwise import isnan, logaddexp as _logaddexp, maximum, sqrt, where
from .ops.reduce import (amax as _amax, amin as _amin, argmax as _argmax, argmin as _argmin,
                         cumprod as _cumprod, cumsum as _cumsum, logsumexp as _logsumexp,
                         sum as _sum)
from .ops.sorting import nanmedian

__all__ = ["sum", "prod", "cumsum", "cumprod", "amax", "amin", "argmax", "argmin", "mean",
           "median", "logsumexp", "logaddexp", "norm", "var", "std", "softmax", "log_softmax",
           "softmin", "normalize"]

def _dims(dim, ndim):
    """torch.masked's canonical dims: a sorted tuple; None or () means every dimension."""
    if dim is None or dim == ():
        return tuple(range(ndim))
    span = max(ndim, 1)
    dims = []
    for d in ((dim,) if isinstance(dim, int) else dim):
        if d in dims:
            raise RuntimeError(f"dim={d} appears multiple times in the list of dims")
        if not -span <= d < span:
            raise IndexError(f"Dimension out of range (expected to be in range of "
                             f"[{-span}, {span - 1}], but got {d})")
        dims.append(d % span)
    return tuple(sorted(dims))


def _input_mask(x, mask):
    """The mask as a bool tensor of x's shape."""
    if tuple(mask.shape) != tuple(x.shape):
        if mask.ndim > x.ndim:
            raise IndexError(f"masked: a mask of shape {list(mask.shape)} has more dimensions "
                             f"than the input of shape {list(x.shape)}; give a mask that "
                             "broadcasts to the input")
        mask = mask.broadcast_to(tuple(x.shape))
    return mask.to(dtypes.bool_)


def _identity(op, x, ord=2.0):
    floating = x.dtype.is_floating_point
    if op in ("sum", "norm"):
        return math.inf if op == "norm" and ord == -math.inf else 0
    if op == "prod":
        return 1
    if op == "median":
        return math.nan
    if x.dtype == dtypes.bool_:
        raise NotImplementedError(f"masked {op}: no identity on bool input; cast the input "
                                  "to a numeric dtype first")
    if op == "max":
        return -math.inf if floating else int(dtypes.iinfo(x.dtype).min)
    return math.inf if floating else int(dtypes.iinfo(x.dtype).max)


def _fill(op, x, mask, ord=2.0):
    """x with its masked-out elements replaced by the identity of `op`."""
    if mask is None:
        return x
    return where(_input_mask(x, mask), x, tensor(_identity(op, x, ord), dtype=x.dtype))


def _dtype(dtype, default):
    return default if dtype is None else dtypes.as_dtype(dtype)


def _sum_dtype(x, dtype):
    if dtype is None:
        return dtypes.int64 if not x.dtype.is_floating_point else x.dtype
    return dtypes.as_dtype(dtype)


def sum(input, dim=None, *, keepdim=False, dtype=None, mask=None):  # noqa: A001
    """The sum over `dim` (all dimensions when None) of the elements where `mask` is True."""
    dtype = _sum_dtype(input, dtype)
    dims = _dims(dim, input.ndim)
    return _sum(_fill("sum", input, mask), dims, bool(keepdim), dtype=dtype)


def prod(input, dim=None, *, keepdim=False, dtype=None, mask=None):
    """The product over `dim` of the elements where `mask` is True (1 where none is)."""
    dtype = _sum_dtype(input, dtype)
    dims = _dims(dim, input.ndim)
    out = _fill("prod", input, mask).to(dtype)
    for d in reversed(dims):
        out = out.prod(d, bool(keepdim))
    return out


def cumsum(input, dim, *, dtype=None, mask=None):
    """The cumulative sum along `dim`, masked-out elements counting as 0."""
    dtype = _dtype(dtype, input.dtype)
    return _cumsum(_fill("sum", input, mask), _dims(dim, input.ndim)[0], dtype=dtype)


def cumprod(input, dim, *, dtype=None, mask=None):
    """The cumulative product along `dim`, masked-out elements counting as 1."""
    dtype = _dtype(dtype, input.dtype)
    return _cumprod(_fill("prod", input, mask), _dims(dim, input.ndim)[0], dtype=dtype)


def amax(input, dim=None, *, keepdim=False, dtype=None, mask=None):
    """The largest element where `mask` is True (-inf, or the dtype's minimum, where none is)."""
    dtype = _dtype(dtype, input.dtype)
    return _amax(_fill("max", input, mask), _dims(dim, input.ndim), bool(keepdim)).to(dtype)


def amin(input, dim=None, *, keepdim=False, dtype=None, mask=None):
    """The smallest element where `mask` is True (+inf, or the dtype's maximum, where none is)."""
    dtype = _dtype(dtype, input.dtype)
    return _amin(_fill("min", input, mask), _dims(dim, input.ndim), bool(keepdim)).to(dtype)


def argmax(input, dim=None, *, keepdim=False, dtype=None, mask=None):
    """The index of the largest element where `mask` is True, in the input's dtype (as torch)."""
    dtype = _dtype(dtype, input.dtype)
    return _argmax(_fill("max", input, mask), dim, bool(keepdim)).to(dtype)


def argmin(input, dim=None, *, keepdim=False, dtype=None, mask=None):
    """The index of the smallest element where `mask` is True, in the input's dtype."""
    dtype = _dtype(dtype, input.dtype)
    return _argmin(_fill("min", input, mask), dim, bool(keepdim)).to(dtype)


def _float_dtype(name, dtype, x):
    source = "Input" if dtype is None else "Optional"
    dtype = _dtype(dtype, x.dtype)
    if not dtype.is_floating_point:
        raise ValueError(f"{name}(): Could not infer output dtype. {source} dtype must be either "
                         f"a floating point or complex dtype. Got: {dtype}")
    return dtype


def _count(x, dim, mask, keepdim):
    """How many elements of x the reduction over `dim` sees (int64)."""
    seen = ones(tuple(x.shape), dtype=dtypes.int64) if mask is None else mask
    return _sum(seen, _dims(dim, x.ndim), keepdim, dtype=dtypes.int64)


def mean(input, dim=None, *, keepdim=False, dtype=None, mask=None):
    """The mean over `dim` of the elements where `mask` is True (NaN where none is)."""
    dtype = _float_dtype("mean", dtype, input)
    inmask = None if mask is None else _input_mask(input, mask)
    total = sum(input, dim, keepdim=keepdim, dtype=dtype, mask=inmask)
    return total / _count(input, dim, inmask, bool(keepdim))


def median(input, dim=-1, *, keepdim=False, dtype=None, mask=None):
    """The median along `dim` of the elements where `mask` is True (NaN where none is)."""
    dtype = _dtype(dtype, input.dtype)
    d = _dims(dim, input.ndim)[0]
    floating = input.dtype.is_floating_point
    if not floating:
        input = input.to(dtypes.float32)
    out = nanmedian(_fill("median", input, mask), d, bool(keepdim)).values
    if floating:
        return out
    if bool(isnan(out).any()):
        raise ValueError("masked median expects no fully masked out rows if dtype is not "
                         "floating point")
    return out.to(dtype)


def logsumexp(input, dim=None, *, keepdim=False, dtype=None, mask=None):
    """log(sum(exp(x))) over `dim` of the elements where `mask` is True (-inf where none is)."""
    dtype = _dtype(dtype, input.dtype)
    return _logsumexp(_fill("max", input, mask), _dims(dim, input.ndim), bool(keepdim)).to(dtype)


def logaddexp(input, other, *, dtype=None, input_mask=None, other_mask=None):
    """log(exp(input) + exp(other)) with each operand's masked-out elements as -inf."""
    dtype = _dtype(dtype, input.dtype)
    return _logaddexp(_fill("max", input, input_mask), _fill("max", other, other_mask)).to(dtype)


def norm(input, ord=2.0, dim=None, *, keepdim=False, dtype=None, mask=None):
    """The vector `ord`-norm over `dim` of the elements where `mask` is True."""
    dtype = _dtype(dtype, input.dtype)
    filled = _fill("norm", input, mask, ord)
    return vector_norm(filled, ord, _dims(dim, input.ndim), bool(keepdim), dtype=dtype)


def _std_var(input, dim, unbiased, correction, keepdim, dtype, mask, take_sqrt):
    if unbiased is not None and correction is not None:
        raise ValueError("masked var/std: give unbiased or correction, not both")
    correction = (1.0 if unbiased is None or unbiased else 0.0) if correction is None \
        else float(correction)
    dtype = _dtype(dtype, input.dtype if input.dtype.is_floating_point else dtypes.float32)
    compute = dtype if dtype.is_floating_point else dtypes.float32
    inmask = None if mask is None else _input_mask(input, mask)
    count = _count(input, dim, inmask, True)
    sample_mean = sum(input, dim, keepdim=True, dtype=dtype, mask=inmask) / count
    x = input - sample_mean
    total = sum(x * x, dim, keepdim=keepdim, dtype=compute, mask=inmask)
    if not keepdim:
        count = count.reshape(tuple(total.shape))
    if correction != 0:
        count = maximum(count.to(compute) - correction, tensor(0.0, dtype=compute))
    out = (total / count).to(dtype)
    return sqrt(out) if take_sqrt else out


def var(input, dim=None, unbiased=None, *, correction=None, keepdim=False, dtype=None,
        mask=None):
    """The variance over `dim` of the elements where `mask` is True (correction 1 by default)."""
    return _std_var(input, dim, unbiased, correction, keepdim, dtype, mask, False)


def std(input, dim=None, unbiased=None, *, correction=None, keepdim=False, dtype=None,
        mask=None):
    """The standard deviation over `dim` of the elements where `mask` is True."""
    return _std_var(input, dim, unbiased, correction, keepdim, dtype, mask, True)


def softmax(input, dim, *, dtype=None, mask=None):
    """softmax along `dim` with the masked-out elements as -inf (they get probability 0)."""
    dtype = _dtype(dtype, input.dtype)
    return F.softmax(_fill("max", input, mask), _dims(dim, input.ndim)[0], dtype=dtype)


def log_softmax(input, dim, *, dtype=None, mask=None):
    """log_softmax along `dim` with the masked-out elements as -inf."""
    dtype = _dtype(dtype, input.dtype)
    return F.log_softmax(_fill("max", input, mask), _dims(dim, input.ndim)[0], dtype=dtype)


def softmin(input, dim, *, dtype=None, mask=None):
    """softmin along `dim` with the masked-out elements as +inf (they get probability 0)."""
    dtype = _dtype(dtype, input.dtype)
    return F.softmin(_fill("min", input, mask), _dims(dim, input.ndim)[0], dtype=dtype)


def normalize(input, ord, dim, *, eps=1e-12, dtype=None, mask=None):
    """input divided by its masked `ord`-norm along `dim` (at least eps); masked-out elements
    become 0."""
    dtype = _dtype(dtype, input.dtype)
    nrm = norm(input, ord, dim, keepdim=True, dtype=dtype, mask=mask)
    return _fill("sum", input, mask) / maximum(nrm, tensor(eps, dtype=nrm.dtype))
