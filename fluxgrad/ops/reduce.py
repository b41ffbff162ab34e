"""Reductions and scans: sums, products, extrema, statistics, norms, cumulative sums and products.

Every reduction takes `axis`/`dim` as an int, a tuple or None (all axes) and
`keepdim`/`keepdims`. Most primitives here are built by `_reduction`, which
needs only the partials d out / d x: the VJP is the cotangent broadcast back
over the reduced axes times the partials, the JVP sums the partials times the
tangent. Ops without a derivative (argmax, all, ...) are primitives with no VJP.
`decayed_cumsum` (y_i = a_i y_{i-1} + t_i along an axis, linear in t) has no public
function: it is the scan logcumsumexp's JVP runs on its tangent.
"""
import builtins
import functools
import math
from collections import namedtuple

import numpy as np

from .._core import dtypes
from .._core.dispatch import apply
from .._core.errors import ArgumentError, DTypeError, ShapeError, ShapeIndexError
from .._core.primitive import REGISTRY, Primitive
from .._core.tensor import Tensor, tensor_method
from ..creation import arange, ones_like, zeros_like
from ._batch import along_axes, broadcasting, front, shifted_axes
from ._family import (dtype_of, float_result, linear, ndim_of, normalize_axis, promote_all,
                      refuse_python_value)
from ._conj import conj_rule, refuse_complex
from .elementwise import (abs, cast, eq, exp, isnan, log, logical_and, logical_or, maximum,
                          minimum, sign, sqrt, where)
from .shape import broadcast_to, expand_reduced, pad_p, reshape

__all__ = ["sum", "mean", "prod", "max", "min", "amax", "amin", "argmax", "argmin", "var",
           "std", "logsumexp", "norm", "cumsum", "cumprod", "all", "any", "add_n",
           "count_nonzero", "std_mean", "var_mean", "cummax", "cummin", "logcumsumexp"]

ValuesIndices = namedtuple("ValuesIndices", ["values", "indices"])
ValuesIndices.__doc__ = "What max/min along a dim return, as torch: `(values, indices)`."


def _axis_args(x, axis, dim, keepdim, keepdims, op):
    if dim is not None:
        if axis is not None:
            raise TypeError(f"{op}: got both axis={axis!r} and dim={dim!r}; pass one of them")
        axis = dim
    ndim = ndim_of(x, op)
    axis = normalize_axis(axis, ndim, op)
    if ndim == 0 or axis == ():
        axis = None  # a 0-d tensor reduces to itself; an empty axis list means all, as torch
    return axis, bool(keepdim or keepdims)


def _count(x, axis):
    return x.numel() if axis is None else int(np.prod([x.shape[a] for a in axis]))


def _reduction_batch(name):
    """The batching rule of a reduction over `axis` (a tuple of axes, or None for all)."""
    def rule(bdims, x, *, axis, keepdims, **params):
        x = front(x, bdims[0])
        if x.ndim == 1:
            # 0-d examples reduce over a size-1 axis: an empty axis tuple would mean every
            # axis to the public reductions that the rules call
            x, axis, keepdims = reshape(x, x.shape + (1,)), (1,), False
        else:
            axis = shifted_axes(axis, x.ndim - 1)
        return apply(REGISTRY[name], x, axis=axis, keepdims=keepdims, **params), 0
    return rule


def _reduction(name, impl, partials):
    """A reduction stated by `partials(x, out, axis, **params)`: d out / d x, where `out`
    arrives broadcast back over the reduced axes (for complex x, the VJP multiplies by its
    conjugate, PyTorch's convention)."""
    def vjp(out_bar, out, x, *, axis, keepdims, **params):
        out = expand_reduced(out, x.ndim, axis, keepdims)
        return expand_reduced(out_bar, x.ndim, axis, keepdims) * conj_rule(
            partials(x, out, axis, **params))

    def jvp(tangents, out, x, *, axis, keepdims, **params):
        out = expand_reduced(out, x.ndim, axis, keepdims)
        return sum(tangents[0] * partials(x, out, axis, **params), axis, keepdims)
    return Primitive(name, impl, vjp=(vjp,), jvp=jvp, saves_out=True,
                     batch=_reduction_batch(name))


def _no_derivative(name, impl, batch):
    """An op whose outputs are integers or bools: no VJP, and no tangent in forward mode."""
    return Primitive(name, impl, jvp=lambda tangents, out, *xs, **params: None, batch=batch)


# --- sum and mean ------------------------------------------------------------------------
sum_p = Primitive(
    # (positional: NumPy parses keyword arguments to a ufunc method slowly)
    "sum", lambda x, *, axis, keepdims: np.add.reduce(x, axis, None, None, keepdims),
    vjp=(lambda out_bar, out, x, *, axis, keepdims:
         broadcast_to(expand_reduced(out_bar, x.ndim, axis, keepdims), x.shape),),
    jvp=lambda tangents, out, x, *, axis, keepdims: sum(tangents[0], axis, keepdims),
    saves_inputs=False, linear="all", batch=_reduction_batch("sum"))


def _accumulating(x, dtype):
    """`x` in the dtype a sum or product accumulates in: `dtype`, else int64 for bools/ints."""
    if dtype is not None:
        return cast(x, dtype)
    kind = dtype_of(x, "cumsum").kind
    return cast(x, dtypes.int64) if kind in "biu" else x


@tensor_method("sum")
def sum(x, axis=None, keepdim=False, *, dim=None, keepdims=False, dtype=None):
    """Sum over `axis` (an int, a tuple, or None for all); bool and int sum as int64.
    PaddlePaddle's `sum(x, axis, dtype)` (a dtype third) works too."""
    if isinstance(keepdim, (str, dtypes.DType)):
        keepdim, dtype = False, keepdim
    axis, keepdims = _axis_args(x, axis, dim, keepdim, keepdims, "sum")
    return apply(sum_p, _accumulating(x, dtype), axis=axis, keepdims=keepdims)


@tensor_method("mean")
def mean(x, axis=None, keepdim=False, *, dim=None, keepdims=False, dtype=None):
    """Arithmetic mean over `axis`; an integer or bool tensor needs a floating `dtype`, as in
    PyTorch."""
    if dtype is None and isinstance(x, Tensor) and x._data.dtype.kind not in "fc":
        raise DTypeError(f"mean(): could not infer output dtype. Input dtype must be either a "
                         f"floating point or complex dtype. Got: "
                         f"{dtypes.scalar_type_name(x.dtype)}; convert it first (x.float()) or "
                         "pass dtype=")
    if dtype is not None and dtypes.as_dtype(dtype).category != 2:
        raise DTypeError(f"mean(): could not infer output dtype. Optional dtype must be either a "
                         f"floating point or complex dtype. Got: {dtypes.scalar_type_name(dtype)}")
    x = float_result(x if dtype is None else cast(x, dtype))
    axis, keepdims = _axis_args(x, axis, dim, keepdim, keepdims, "mean")
    if x._data.dtype == np.float16:  # summed in float32, as PyTorch, so it doesn't overflow
        return cast(sum(cast(x, dtypes.float32), axis, keepdims) / _count(x, axis),
                    dtypes.float16)
    return sum(x, axis, keepdims) / _count(x, axis)


# --- product -----------------------------------------------------------------------------
def _prod_partials(x, out, axis):
    # d out / d x_i is the product of the other elements, built without dividing by a zero:
    # p, the product of the nonzero elements, times what the zeros contribute, written as
    # functions of the zeros so that the derivative of this rule is right too. With k zeros
    # in the slice, for x_i nonzero / x_i a zero:
    #   k = 0: p / x_i;   k = 1: p * (the zero) / x_i  /  p;   k = 2: 0  /  p * (the other zero);
    #   k > 2: 0, a product of two or more zeros, whose derivative is 0 as well.
    if _count(x, axis) == 1:
        return ones_like(x)
    zero = eq(x, 0)
    k = sum(zero, axis, True)
    x_nonzero = where(zero, 1.0, x)
    p = prod(x_nonzero, axis, True)
    zeros_sum = sum(where(zero, x, 0.0), axis, True)
    z = where(eq(k, 0), 1.0, where(eq(k, 1), zeros_sum, 0.0))
    z_without_i = where(eq(k, 1), 1.0, where(eq(k, 2), zeros_sum - x, 0.0))
    return p * where(zero, z_without_i, z / x_nonzero)


def _prod_impl(x, *, axis, keepdims):
    # in x's dtype (a bool product stays bool); float16 is accumulated in float32, as PyTorch
    accumulator = np.float32 if x.dtype == np.float16 else x.dtype
    return np.prod(x, axis=axis, keepdims=keepdims, dtype=accumulator).astype(x.dtype,
                                                                             copy=False)


prod_p = _reduction("prod", _prod_impl, _prod_partials)


@tensor_method("prod")
def prod(x, axis=None, keepdim=False, *, dim=None, keepdims=False, dtype=None):
    """Product over `axis`; exact gradients where the slice holds zeros."""
    axis, keepdims = _axis_args(x, axis, dim, keepdim, keepdims, "prod")
    return apply(prod_p, _accumulating(x, dtype), axis=axis, keepdims=keepdims)


# --- extrema -----------------------------------------------------------------------------
def _tie_partials(x, out, axis):
    # ties split the gradient evenly, as torch.amax
    hit = cast(eq(x, out), x.dtype)
    return hit / sum(hit, axis, True)


amax_p = _reduction("amax", lambda x, *, axis, keepdims: np.max(x, axis=axis, keepdims=keepdims),
                    _tie_partials)
amin_p = _reduction("amin", lambda x, *, axis, keepdims: np.min(x, axis=axis, keepdims=keepdims),
                    _tie_partials)


def evenly_distributed(x, out, axis):
    # the gradient split evenly among the elements equal to the result, or among the NaNs when
    # the result is NaN: torch's rule for max(), min(), median() and nanmedian() of all elements
    hit = cast(logical_or(eq(x, out), logical_and(isnan(x), isnan(out))), x.dtype)
    return hit / sum(hit, axis, True)


max_all_p = _reduction("max_all", lambda x, *, axis, keepdims:
                       np.max(x, axis=axis, keepdims=keepdims), evenly_distributed)
min_all_p = _reduction("min_all", lambda x, *, axis, keepdims:
                       np.min(x, axis=axis, keepdims=keepdims), evenly_distributed)


def _check_nonempty(x, axis, op):
    try:
        numel = x.numel()
    except AttributeError:
        refuse_python_value(x, op)
        raise
    if numel == 0 and (axis is None or builtins.any(x.shape[a] == 0 for a in axis)):
        # PyTorch: IndexError along an empty dim (and from a full argmax / argmin),
        # RuntimeError from the other full reductions
        error = ShapeIndexError if axis is not None or op in ("argmax", "argmin") else ShapeError
        raise error(f"{op}: can't reduce a tensor of shape {list(x.shape)} over an empty "
                    f"{'tensor' if axis is None else f'dimension (axis {axis})'}: "
                    "the result has no identity; give a dim whose size is not 0")


def _check_floating(x, op, hint):
    kind = dtype_of(x, op).kind
    if kind != "f":
        raise DTypeError(f"{op}: expected a floating point tensor, got {x.dtype}; convert it "
                         f"first (x.float()){hint}")


@tensor_method("amax")
def amax(x, axis=None, keepdim=False, *, dim=None, keepdims=False):
    """Largest value over `axis`; tied maxima share the gradient evenly."""
    refuse_complex(x, "amax")
    axis, keepdims = _axis_args(x, axis, dim, keepdim, keepdims, "amax")
    _check_nonempty(x, axis, "amax")
    return apply(amax_p, x, axis=axis, keepdims=keepdims)


@tensor_method("amin")
def amin(x, axis=None, keepdim=False, *, dim=None, keepdims=False):
    """Smallest value over `axis`; tied minima share the gradient evenly."""
    refuse_complex(x, "amin")
    axis, keepdims = _axis_args(x, axis, dim, keepdim, keepdims, "amin")
    _check_nonempty(x, axis, "amin")
    return apply(amin_p, x, axis=axis, keepdims=keepdims)


def _arg_batch(name):
    def rule(bdims, x, *, axis, keepdims, dtype):
        x = front(x, bdims[0])
        prim = REGISTRY[name]
        if axis is not None:
            return apply(prim, x, axis=axis + 1, keepdims=keepdims, dtype=dtype), 0
        # None: the index into each flattened example
        index = apply(prim, reshape(x, (x.shape[0], -1)), axis=1, keepdims=False, dtype=dtype)
        return reshape(index, x.shape[:1] + ((1,) * (x.ndim - 1) if keepdims else ())), 0
    return rule


def _arg_primitive(name, np_fn):
    return _no_derivative(name, lambda x, *, axis, keepdims, dtype:
                          np.asarray(np_fn(x, axis=axis, keepdims=keepdims), dtype=dtype),
                          _arg_batch(name))


argmax_p = _arg_primitive("argmax", np.argmax)
argmin_p = _arg_primitive("argmin", np.argmin)


def _arg_extremum(prim, x, axis, keepdim, dim, keepdims, dtype, op):
    refuse_complex(x, op, DTypeError)
    axis, keepdims = _axis_args(x, axis, dim, keepdim, keepdims, op)
    if axis is not None and len(axis) > 1:
        raise TypeError(f"{op} takes one int axis or None, got {axis}")
    _check_nonempty(x, axis, op)
    return apply(prim, x, axis=None if axis is None else axis[0], keepdims=keepdims,
                 dtype=dtypes.as_dtype(dtype).np)


def _refuse_bool(x, op):
    dtype = dtype_of(x, op)
    if dtype == np.bool_:
        raise DTypeError(f"{op}(): does not support bool input, as in PyTorch; convert it "
                         "first (x.long())")


def _position_of(prim, op):
    """argmax / argmin for max(x, dim) / min(x, dim), which take bool tensors."""
    return lambda x, axis, keepdims: _arg_extremum(prim, x, axis, False, None, keepdims,
                                                   "int64", op)


@tensor_method("argmax")
def argmax(x, axis=None, keepdim=False, *, dim=None, keepdims=False, dtype="int64"):
    """Index of the largest value along `axis` (of the flattened tensor if None); the first
    one on ties. No gradient."""
    _refuse_bool(x, "argmax")
    return _arg_extremum(argmax_p, x, axis, keepdim, dim, keepdims, dtype, "argmax")


@tensor_method("argmin")
def argmin(x, axis=None, keepdim=False, *, dim=None, keepdims=False, dtype="int64"):
    """Index of the smallest value along `axis`; the first one on ties. No gradient."""
    _refuse_bool(x, "argmin")
    return _arg_extremum(argmin_p, x, axis, keepdim, dim, keepdims, dtype, "argmin")


def _index_partials(arg):
    # the gradient goes only to the element whose index is returned, as torch.max(dim)
    def partials(x, out, axis):
        a = axis[0]
        # each element's index along the axis, by an op (a static program stages an unknown size)
        positions = arange(x.shape[a]).reshape([-1 if i == a else 1 for i in range(x.ndim)])
        return cast(eq(positions, arg(x, a, True)), x.dtype)
    return partials


max_dim_p = _reduction("max_dim", lambda x, *, axis, keepdims:
                       np.max(x, axis=axis, keepdims=keepdims), _index_partials(argmax))
min_dim_p = _reduction("min_dim", lambda x, *, axis, keepdims:
                       np.min(x, axis=axis, keepdims=keepdims), _index_partials(argmin))


def _extremum(x, dim, keepdim, axis, keepdims, op, prim, full, arg, pairwise):
    refuse_complex(x, op)
    if axis is not None:
        if dim is not None:
            raise TypeError(f"{op}: got both axis={axis!r} and dim={dim!r}; pass one of them")
        dim = axis
    if isinstance(dim, Tensor):
        return pairwise(x, dim)
    if dim is None:
        _check_nonempty(x, None, op)
        return apply(max_all_p if op == "max" else min_all_p, x, axis=None,
                     keepdims=bool(keepdim or keepdims))
    if not isinstance(dim, (int, np.integer)):
        raise TypeError(f"{op}(x, dim) takes one int dim (got {dim!r}); for several axes use "
                        f"a{op}(x, dim), which returns the values only")
    axis, keepdims = _axis_args(x, dim, None, keepdim, keepdims, op)
    _check_nonempty(x, axis, op)
    if axis is None:
        return ValuesIndices(full(x, None, keepdims), Tensor._make(np.zeros((), np.int64)))
    return ValuesIndices(apply(prim, x, axis=axis, keepdims=keepdims), arg(x, axis[0], keepdims))


@tensor_method("max")
def max(x, dim=None, keepdim=False, *, axis=None, keepdims=False):
    """Largest value.

    `max(x)`: over all elements, tied maxima sharing the gradient evenly (the NaNs, when the
    result is NaN), as torch. `max(x, dim)` (or `axis=`, the same call): `(values,
    indices)` along one dim, the gradient going to the returned index, as torch; for the
    values over several axes use `amax`. `max(x, y)` with a tensor `y`: the elementwise
    `maximum`.
    """
    return _extremum(x, dim, keepdim, axis, keepdims, "max", max_dim_p, amax,
                     _position_of(argmax_p, "max"), maximum)


@tensor_method("min")
def min(x, dim=None, keepdim=False, *, axis=None, keepdims=False):
    """Smallest value; the same forms as `max`."""
    return _extremum(x, dim, keepdim, axis, keepdims, "min", min_dim_p, amin,
                     _position_of(argmin_p, "min"), minimum)


# --- statistics --------------------------------------------------------------------------
def _centered(x, axis, unbiased, keepdim, dim, correction, keepdims, op):
    if isinstance(axis, bool):  # torch's legacy var(x, unbiased)
        axis, unbiased = None, axis
    if unbiased is not None and correction is not None:
        raise TypeError(f"{op}: pass either unbiased or correction, not both")
    if correction is None:
        correction = 0 if unbiased is False else 1
    _check_floating(x, op, " (std and var, as in PyTorch, only support floating dtypes)")
    axis, keepdims = _axis_args(x, axis, dim, keepdim, keepdims, op)
    dof = count_minus(x, axis, keepdims, correction)
    return x - mean(x, axis, keepdims=True), axis, keepdims, dof


def count_minus(x, axis, keepdims, correction):
    """N - correction, floored at 0, for a reduction over `axis`. For a static Variable whose
    reduced size is unknown until its program runs, a staged count: an int derived from the
    stand-in size other than by multiplication (N - 1, or std's sqrt(N)) could not be
    re-bound."""
    n = _count(x, axis)
    if getattr(x, "program", None) is not None:
        from ..static import dims
        if dims.mentions_symbol(n):
            return maximum(sum(ones_like(x), axis, keepdims) - correction, 0.0)
    return builtins.max(n - correction, 0)


@tensor_method("var")
def var(x, axis=None, unbiased=None, keepdim=False, *, dim=None, correction=None,
        keepdims=False):
    """Variance over `axis`, dividing by N - correction: unbiased (correction=1) by default;
    `unbiased=False` or `correction=0` for the population variance."""
    centered, axis, keepdims, dof = _centered(x, axis, unbiased, keepdim, dim, correction,
                                              keepdims, "var")
    return sum(centered * centered, axis, keepdims) / dof


@tensor_method("std")
def std(x, axis=None, unbiased=None, keepdim=False, *, dim=None, correction=None,
        keepdims=False):
    """Standard deviation over `axis` (see `var`); its gradient is 0 where it is 0, as torch."""
    centered, axis, keepdims, dof = _centered(x, axis, unbiased, keepdim, dim, correction,
                                              keepdims, "std")
    return norm(centered, 2, axis, keepdims) / (math.sqrt(dof) if isinstance(dof, int) else
                                                 sqrt(dof))


def _with_mean(stat, x, axis, unbiased, keepdim, dim, correction, keepdims):
    if isinstance(axis, bool):  # torch's legacy std_mean(x, unbiased)
        axis, unbiased = None, axis
    return (stat(x, axis, unbiased, keepdim, dim=dim, correction=correction, keepdims=keepdims),
            mean(float_result(x), axis, keepdim, dim=dim, keepdims=keepdims))


def std_mean(x, axis=None, unbiased=None, keepdim=False, *, dim=None, correction=None,
             keepdims=False):
    """(std, mean) over `axis`, as torch.std_mean; the arguments are those of `std`."""
    return _with_mean(std, x, axis, unbiased, keepdim, dim, correction, keepdims)


def var_mean(x, axis=None, unbiased=None, keepdim=False, *, dim=None, correction=None,
             keepdims=False):
    """(var, mean) over `axis`, as torch.var_mean; the arguments are those of `var`."""
    return _with_mean(var, x, axis, unbiased, keepdim, dim, correction, keepdims)


# --- logsumexp and norms -----------------------------------------------------------------
def _logsumexp_impl(x, *, axis, keepdims):
    # shifting by the max keeps exp from overflowing; an infinite max shifts by 0
    m = np.max(x, axis=axis, keepdims=True, initial=-np.inf)
    m = np.where(np.isfinite(m), m, 0)
    with np.errstate(divide="ignore"):
        out = np.log(np.sum(np.exp(x - m), axis=axis, keepdims=True)) + m
    return out if keepdims else np.squeeze(out, axis=axis)


logsumexp_p = _reduction("logsumexp", _logsumexp_impl, lambda x, out, axis: exp(x - out))


@tensor_method("logsumexp")
def logsumexp(x, axis=None, keepdim=False, *, dim=None, keepdims=False):
    """log(sum(exp(x))) over `axis`, computed without overflow."""
    x = float_result(x)
    axis, keepdims = _axis_args(x, axis, dim, keepdim, keepdims, "logsumexp")
    return apply(logsumexp_p, x, axis=axis, keepdims=keepdims)


def _norm_impl(x, *, p, axis, keepdims):
    a = np.abs(x)
    if p == np.inf:
        return np.max(a, axis=axis, keepdims=keepdims, initial=0)
    if p == -np.inf:
        return np.min(a, axis=axis, keepdims=keepdims)
    if p == 0:
        return np.sum(a != 0, axis=axis, keepdims=keepdims).astype(x.dtype)
    if p == 1:
        return np.sum(a, axis=axis, keepdims=keepdims)
    # scaled by the largest |x| so that |x|**p neither overflows nor underflows
    m = np.max(a, axis=axis, keepdims=True, initial=0)
    m = np.where((m == 0) | ~np.isfinite(m), 1, m)
    with np.errstate(divide="ignore"):
        out = np.sum((a / m) ** p, axis=axis, keepdims=True) ** (1 / p) * m
    return out if keepdims else np.squeeze(out, axis=axis)


def _norm_partials(x, out, axis, *, p):
    # d|x|_p / dx = sign(x) (|x| / out)**(p - 1), taken as 0 where out == 0 (a subgradient,
    # as torch) and, for p < 1, where x == 0
    if p == 0:
        return zeros_like(x)
    if p == 1:
        return sign(x)
    if p in (np.inf, -np.inf):
        hit = cast(eq(abs(x), out), x.dtype)
        return sign(x) * hit / sum(hit, axis, True)
    out = where(eq(out, 0), 1.0, out)
    if p == 2:
        return x / out
    ratio = abs(x) / out
    if p < 1:
        ratio = where(eq(x, 0), 1.0, ratio)
    return sign(x) * ratio ** (p - 1)


norm_p = _reduction("norm", _norm_impl, _norm_partials)


@tensor_method("norm")
def norm(x, p="fro", axis=None, keepdim=False, *, dim=None, keepdims=False, dtype=None):
    """The vector p-norm over `axis` (all elements if None): (sum |x|**p)**(1/p).

    `p`: any number (inf: max |x|, -inf: min |x|, 0: the count of nonzeros), or 'fro' (and
    None, Paddle's default) for 2; 'nuc': the nuclear norm of the matrices in the last two
    dims. The gradient at 0 is 0.
    """
    if p is None or p == "fro":
        p = 2.0
    elif p == "nuc":  # of the matrices in the last two dims (or dim=), as torch.norm
        from .matrix_functions import matrix_norm
        dims = dim if dim is not None else axis
        return matrix_norm(x, "nuc", (-2, -1) if dims is None else dims,
                           bool(keepdim or keepdims), dtype=dtype)
    elif isinstance(p, str):
        raise ArgumentError(f"norm: p={p!r} is not a norm fluxgrad knows; use p='fro', 'nuc' or "
                         "a number")
    if dtype is None:
        _check_floating(x, "norm", " or pass a floating dtype=")
    else:
        x = cast(x, dtype)
    axis, keepdims = _axis_args(x, axis, dim, keepdim, keepdims, "norm")
    if p < 0 or p == math.inf:  # (no identity: torch refuses these over an empty dim)
        _check_nonempty(x, axis, f"norm(p={p})")
    return apply(norm_p, x, p=float(p), axis=axis, keepdims=keepdims)


# --- cumulative sums and products --------------------------------------------------------
def _scan(np_fn, x, axis, reverse):
    # in x's dtype (NumPy would widen int8 to int64); float16 is accumulated in float32
    accumulator = np.float32 if x.dtype == np.float16 else x.dtype
    if reverse:
        x = np.flip(x, axis)
    out = np_fn(x, axis=axis, dtype=accumulator).astype(x.dtype, copy=False)
    return np.flip(out, axis) if reverse else out


# the transpose of a cumulative sum is the cumulative sum in the other direction
cumsum_p = linear("cumsum", lambda x, *, axis, reverse: _scan(np.cumsum, x, axis, reverse),
                  lambda out_bar, x, *, axis, reverse:
                  apply(cumsum_p, out_bar, axis=axis, reverse=not reverse),
                  batch=along_axes("cumsum", "axis"))


def _cumprod_parts(x, axis, reverse):
    """The pieces of prod_{j<=k, j!=i} x_j that keep cumprod's rules exact where x has zeros.

    That product is c_k, the running product with the zeros taken as 1, times what the
    zeros up to k other than x_i contribute: 1 if there are none, the zero itself if there
    is one, 0 if two or more (a product of two vanishing factors: its derivative is 0 too).
    Returns the zero mask, the masks of the first and second zero, x with its zeros as 1,
    c, and the zeros' contribution when x_i is nonzero, the first zero, the second zero.
    """
    zero = eq(x, 0)
    seen = apply(cumsum_p, cast(zero, dtypes.int64), axis=axis, reverse=reverse)
    none, one, two = eq(seen, 0), eq(seen, 1), eq(seen, 2)
    first, second = logical_and(zero, one), logical_and(zero, two)
    z1 = sum(where(first, x, 0.0), axis, True)
    z2 = sum(where(second, x, 0.0), axis, True)
    x_nonzero = where(zero, 1.0, x)
    c = apply(cumprod_p, x_nonzero, axis=axis, reverse=reverse)
    zeros_part = (where(none, 1.0, where(one, z1, 0.0)),
                  where(one, 1.0, where(two, z2, 0.0)),
                  where(two, z1, 0.0))
    return zero, first, second, x_nonzero, c, zeros_part


def _cumprod_vjp(out_bar, out, x, *, axis, reverse):
    # (for complex x, the conjugate of the real formula applied to the conjugate of out_bar:
    # the conjugate Jacobian's transpose, PyTorch's convention)
    zero, first, second, x_nonzero, c, (k0, k1, k2) = _cumprod_parts(x, axis, reverse)
    back = functools.partial(apply, cumsum_p, axis=axis, reverse=not reverse)
    g = conj_rule(out_bar) * c
    return conj_rule(where(zero, where(first, back(g * k1), where(second, back(g * k2), 0.0)),
                           back(g * k0) / x_nonzero))


def _cumprod_jvp(tangents, out, x, *, axis, reverse):
    zero, first, second, x_nonzero, c, (k0, k1, k2) = _cumprod_parts(x, axis, reverse)
    x_dot = tangents[0]
    d1 = sum(where(first, x_dot, 0.0), axis, True)
    d2 = sum(where(second, x_dot, 0.0), axis, True)
    ahead = apply(cumsum_p, where(zero, 0.0, x_dot / x_nonzero), axis=axis, reverse=reverse)
    return c * (k0 * ahead + d1 * k1 + d2 * k2)


cumprod_p = Primitive(
    "cumprod", lambda x, *, axis, reverse: _scan(np.cumprod, x, axis, reverse),
    vjp=(_cumprod_vjp,), jvp=_cumprod_jvp, batch=along_axes("cumprod", "axis"))


def _cumulative(prim, x, axis, dtype, op):
    x = _accumulating(x, dtype)
    if axis is None:
        return apply(prim, reshape(x, -1), axis=0, reverse=False)
    if not isinstance(axis, (int, np.integer)):
        raise TypeError(f"{op} takes one int axis (or None to scan the flattened tensor), "
                        f"got {axis!r}")
    (axis,) = normalize_axis(axis, x.ndim, op)
    if x.ndim == 0:
        return reshape(apply(prim, reshape(x, 1), axis=0, reverse=False), ())
    return apply(prim, x, axis=axis, reverse=False)


@tensor_method("cumsum")
def cumsum(x, dim=None, dtype=None, *, axis=None):
    """Running sum along `dim` (over the flattened tensor if None)."""
    return _cumulative(cumsum_p, x, axis if dim is None else dim, dtype, "cumsum")


@tensor_method("cumprod")
def cumprod(x, dim=None, dtype=None, *, axis=None):
    """Running product along `dim` (over the flattened tensor if None); exact gradients
    where the input holds zeros."""
    return _cumulative(cumprod_p, x, axis if dim is None else dim, dtype, "cumprod")


# --- decayed cumulative sums: y_i = a_i y_{i-1} + t_i in scan order ----------------------
def _previous(x, axis, reverse, fill):
    """The entry one step earlier in scan order along `axis`, `fill` before the first."""
    axis %= x.ndim
    n = x.shape[axis]
    if n == 0:
        return x
    kept = slice(1, n) if reverse else slice(0, n - 1)
    widths = [(0, 0)] * x.ndim
    widths[axis] = (0, 1) if reverse else (1, 0)
    return apply(pad_p, x[(slice(None),) * axis + (kept,)], widths=tuple(widths), value=fill)


def _decayed_cumsum_impl(t, a, *, axis, reverse):
    t, a = np.moveaxis(t, axis, 0), np.moveaxis(a, axis, 0)
    if reverse:
        t, a = t[::-1], a[::-1]
    y = np.empty(t.shape, np.result_type(t, a))
    if len(y):
        y[0] = t[0]  # a_0 multiplies the y before the first, 0: it is never read
    for i in range(1, len(y)):
        y[i] = a[i] * y[i - 1] + t[i]
    if reverse:
        y = y[::-1]
    return np.ascontiguousarray(np.moveaxis(y, 0, axis))


def _decayed_cumsum_t_vjp(out_bar, out, t, a, *, axis, reverse):
    # t_bar_j = out_bar_j + a_{j+1} t_bar_{j+1}: the same recurrence run backwards, each step
    # decayed by the next entry's a (the a that carried y_j into y_{j+1})
    return apply(decayed_cumsum_p, out_bar, _previous(a, axis, not reverse, 0.0), axis=axis,
                 reverse=not reverse)


def _decayed_cumsum_a_vjp(out_bar, out, t, a, *, axis, reverse):
    t_bar = _decayed_cumsum_t_vjp(out_bar, out, t, a, axis=axis, reverse=reverse)
    return t_bar * _previous(out, axis, reverse, 0.0)


def _decayed_cumsum_jvp(tangents, out, t, a, *, axis, reverse):
    t_dot, a_dot = tangents
    if a_dot is not None:
        carried = a_dot * _previous(out, axis, reverse, 0.0)
        t_dot = carried if t_dot is None else t_dot + carried
    return apply(decayed_cumsum_p, t_dot, a, axis=axis, reverse=reverse)


def _decayed_cumsum_batch(bdims, t, a, *, axis, reverse):
    size = next(x.shape[b] for x, b in zip((t, a), bdims) if b is not None)
    t, a = (front(x, b) if b is not None else broadcast_to(x, (size,) + x.shape)
            for x, b in zip((t, a), bdims))
    return apply(decayed_cumsum_p, t, a, axis=shifted_axes(axis, t.ndim - 1),
                 reverse=reverse), 0


# linear in t; logcumsumexp's JVP is this scan of its tangent
decayed_cumsum_p = Primitive(
    "decayed_cumsum", _decayed_cumsum_impl,
    vjp=(_decayed_cumsum_t_vjp, _decayed_cumsum_a_vjp), jvp=_decayed_cumsum_jvp,
    saves_out=(False, True), saves_inputs=((1,), (1,)), linear=(0,),
    batch=_decayed_cumsum_batch)


# --- running extrema and logcumsumexp ------------------------------------------------------
def _running_arg(better_or_equal):
    """The index of the running extremum along `axis` (the latest on ties, as PyTorch)."""
    def impl(x, *, axis):
        x = np.moveaxis(x, axis, -1)
        best = better_or_equal.accumulate(x, axis=-1)
        found = x == best
        if x.dtype.kind == "f":  # a nan is the extremum from where it appears on, as PyTorch
            found |= np.isnan(x)
        positions = np.where(found, np.arange(x.shape[-1]), 0)
        return np.moveaxis(np.maximum.accumulate(positions, axis=-1), -1, axis).astype(np.int64)
    return impl


cummax_index_p = _no_derivative("cummax_index", _running_arg(np.maximum),
                                along_axes("cummax_index", "axis"))
cummin_index_p = _no_derivative("cummin_index", _running_arg(np.minimum),
                                along_axes("cummin_index", "axis"))


def _running_extremum(prim, x, dim, op):
    from .indexing import take_along_dim
    (axis,) = normalize_axis(dim, x.ndim, op)
    if x.ndim == 0:
        return ValuesIndices(x, Tensor._make(np.zeros((), np.int64)))
    indices = apply(prim, x, axis=axis)
    return ValuesIndices(take_along_dim(x, indices, axis), indices)


@tensor_method("cummax")
def cummax(x, dim, *, axis=None):
    """(values, indices) of the running maximum along `dim`; the gradient goes to the index."""
    return _running_extremum(cummax_index_p, x, dim if axis is None else axis, "cummax")


@tensor_method("cummin")
def cummin(x, dim, *, axis=None):
    """(values, indices) of the running minimum along `dim`; the gradient goes to the index."""
    return _running_extremum(cummin_index_p, x, dim if axis is None else axis, "cummin")


def _signed_scan(t, sign, shift, axis, reverse):
    """logcumsumexp(log(sign * t) + shift) over the entries of t of that sign (the others
    count as log 0 = -inf): sums of t exp(shift) by sign, in log space, so none overflows."""
    keep = t > 0 if sign > 0 else t < 0
    log_t = where(keep, log(where(keep, t * sign, 1.0)), -math.inf)
    return apply(logcumsumexp_p, log_t + shift, axis=axis, reverse=reverse)


def _finite_or_zero(out):
    """out where it is finite, else 0; and where it is -inf (a scan of log 0s so far, as
    inside these rules' own rules), whose terms are taken as 0 rather than inf - inf."""
    empty = out == -math.inf
    return where(empty, 0.0, out), empty


def _logcumsumexp_vjp(out_bar, out, x, *, axis, reverse):
    # x_bar_j = sum over the outputs i from j on (in scan order) of out_bar_i exp(x_j - out_i)
    out, empty = _finite_or_zero(out)
    out_bar = where(empty, 0.0, out_bar)
    return (exp(_signed_scan(out_bar, 1, -out, axis, not reverse) + x)
            - exp(_signed_scan(out_bar, -1, -out, axis, not reverse) + x))


def _logcumsumexp_jvp(tangents, out, x, *, axis, reverse):
    # out_dot_i = exp(out_{i-1} - out_i) out_dot_{i-1} + exp(x_i - out_i) x_dot_i (in scan
    # order): linear in x_dot, both factors in [0, 1]; where out is -inf (every x so far is
    # -inf) the terms are 0
    finite_out, empty = _finite_or_zero(out)
    before, none_before = _finite_or_zero(_previous(out, axis, reverse, -math.inf))
    decay = where(none_before, 0.0, exp(before - finite_out))
    weight = where(empty, 0.0, exp(x - finite_out))
    return apply(decayed_cumsum_p, weight * tangents[0], decay, axis=axis, reverse=reverse)


logcumsumexp_p = Primitive(
    "logcumsumexp",
    lambda x, *, axis, reverse: _scan(np.logaddexp.accumulate, x, axis, reverse),
    vjp=(_logcumsumexp_vjp,), jvp=_logcumsumexp_jvp, saves_out=True,
    batch=along_axes("logcumsumexp", "axis"))


@tensor_method("logcumsumexp")
def logcumsumexp(x, dim, *, axis=None):
    """log(cumsum(exp(x))) along `dim`, computed without overflow."""
    if x._data.dtype.kind != "f":
        raise NotImplementedError(f"logcumsumexp is defined for floating tensors, not "
                                  f"{x.dtype} (as in PyTorch); convert with .float()")
    return _cumulative(logcumsumexp_p, x, dim if axis is None else axis, None, "logcumsumexp")
# --- sums of several tensors -------------------------------------------------------------
def _add_n_jvp(tangents, out, *xs):
    present = [t for t in tangents if t is not None]
    return functools.reduce(lambda a, b: a + b, present)


add_n_p = Primitive("add_n", lambda *xs: functools.reduce(np.add, xs),
                    vjp=lambda out_bar, out, *xs: [out_bar] * len(xs), jvp=_add_n_jvp,
                    saves_inputs=False, linear="all", batch=broadcasting("add_n"))


def add_n(inputs):
    """The elementwise sum of a list of tensors (Paddle's add_n), broadcast together."""
    if isinstance(inputs, Tensor):
        return inputs
    inputs = list(inputs)
    if not inputs:
        raise ValueError("add_n: needs at least one tensor")
    try:
        np.broadcast_shapes(*(np.shape(x) for x in inputs))
    except ValueError:
        raise ShapeError("add_n: the shapes " + ", ".join(str(list(np.shape(x)))
                                                           for x in inputs)
                         + " don't broadcast together") from None
    return apply(add_n_p, *promote_all(*inputs))


# --- logical reductions and counts: no gradient ------------------------------------------
def _plain_reduction(np_fn, name, doc):
    prim = _no_derivative(name, lambda x, *, axis, keepdims:
                          np.asarray(np_fn(x, axis=axis, keepdims=keepdims)),
                          _reduction_batch(name))

    def op(x, axis=None, keepdim=False, *, dim=None, keepdims=False):
        axis, keepdims = _axis_args(x, axis, dim, keepdim, keepdims, name)
        return apply(prim, x, axis=axis, keepdims=keepdims)
    op.__name__ = op.__qualname__ = name
    op.__doc__ = doc
    return tensor_method(name)(op)


def _truth(np_fn):
    # bool, except for a uint8 tensor, whose answer is a uint8 0 or 1, as PyTorch
    def impl(a, axis, keepdims):
        out = np_fn(a, axis=axis, keepdims=keepdims)
        return out.astype(np.uint8) if a.dtype == np.uint8 else out
    return impl


all = _plain_reduction(_truth(np.all), "all",
                       "Whether every element over `axis` is nonzero (bool; uint8 for uint8).")
any = _plain_reduction(_truth(np.any), "any",
                       "Whether some element over `axis` is nonzero (bool; uint8 for uint8).")
count_nonzero = _plain_reduction(
    lambda a, axis, keepdims: np.count_nonzero(a, axis=axis, keepdims=keepdims).astype(np.int64),
    "count_nonzero", "How many elements over `axis` are nonzero (int64).")
