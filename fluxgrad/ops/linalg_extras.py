"""PyTorch's remaining products, matrix builders, statistics and integrals, as composites of
fluxgrad ops: the addmm family (beta * input + alpha * product), inner/vdot/chain_matmul,
logdet, dist, pdist, renorm, block_diag, cartesian_prod, combinations, vander, diagflat,
cov, corrcoef and the trapezoid rule.
"""
import itertools
import warnings

import numpy as np

from .._core.errors import DTypeError, DTypeNotImplemented, ShapeError
from .._core.tensor import Tensor, tensor_method
from ._family import ndim_of, promote_all, refuse_kinds, refuse_python_value
from .math_extras import as_operand, refuse_value_reads
from .elementwise import cast, clamp, logical_and, logical_or, sqrt, where
from .indexing import index_select
from .linalg import bmm, diag, mm, mv, outer, slogdet, tensordot
from .matrix_functions import vector_norm
from .reduce import count_minus, cumsum, sum as _sum
from .shape import _dim, concat, flatten, meshgrid, narrow, reshape, stack, transpose, unsqueeze

__all__ = ["addmm", "addmv", "addr", "baddbmm", "addbmm", "chain_matmul", "ger", "inner", "vdot",
           "logdet", "dist", "pdist", "renorm", "block_diag", "cartesian_prod", "combinations",
           "vander", "diagflat", "cov", "corrcoef", "trapezoid", "trapz", "cumulative_trapezoid"]


def _scaled_sum(x, product, beta, alpha, op):
    """beta * x + alpha * product, x broadcast to the product's shape; beta == 0 ignores x
    (NaN in x does not propagate)."""
    x = as_operand(x)
    try:
        fits = np.broadcast_shapes(x.shape, product.shape) == product.shape
    except ValueError:
        fits = False
    if not fits:
        raise ShapeError(f"{op}: the input of shape {list(x.shape)} doesn't broadcast to the "
                         f"product's shape {list(product.shape)}")
    if not product.dtype.is_floating_point:  # integers scale by integers, as PyTorch
        alpha, beta = int(alpha), int(beta)
    if alpha != 1:
        product = product * alpha
    if beta == 0:
        return product
    return (x if beta == 1 else x * beta) + product


@tensor_method("addmm")
def addmm(x, mat1, mat2, *, beta=1, alpha=1):
    """beta * x + alpha * (mat1 @ mat2), mat1 and mat2 2-D, x broadcast to the product."""
    return _scaled_sum(x, mm(mat1, mat2), beta, alpha, "addmm")


@tensor_method("addmv")
def addmv(x, mat, vec, *, beta=1, alpha=1):
    """beta * x + alpha * (mat @ vec)."""
    return _scaled_sum(x, mv(mat, vec), beta, alpha, "addmv")


@tensor_method("addr")
def addr(x, vec1, vec2, *, beta=1, alpha=1):
    """beta * x + alpha * outer(vec1, vec2) (of bools: (beta and x) or (alpha and outer))."""
    if all(isinstance(t, Tensor) and t._data.dtype == np.bool_ for t in (x, vec1, vec2)):
        product = logical_and(unsqueeze(vec1, 1), vec2)
        return logical_or(logical_and(x, bool(beta)), logical_and(product, bool(alpha)))
    return _scaled_sum(x, outer(vec1, vec2), beta, alpha, "addr")


@tensor_method("baddbmm")
def baddbmm(x, batch1, batch2, *, beta=1, alpha=1):
    """beta * x + alpha * bmm(batch1, batch2)."""
    return _scaled_sum(x, bmm(batch1, batch2), beta, alpha, "baddbmm")


@tensor_method("addbmm")
def addbmm(x, batch1, batch2, *, beta=1, alpha=1):
    """beta * x + alpha * sum_b batch1[b] @ batch2[b]."""
    products = bmm(batch1, batch2)
    return _scaled_sum(x, _sum(products, 0).to(products.dtype), beta, alpha, "addbmm")


def chain_matmul(*matrices, out=None):
    """The product of 2-D matrices, left to right (deprecated in PyTorch: linalg.multi_dot)."""
    if not matrices:
        raise RuntimeError("chain_matmul(): Expected one or more matrices")
    for m in matrices:
        refuse_python_value(m, "chain_matmul")
        if m.ndim != 2:
            raise ShapeError(f"chain_matmul(): expected 2-D matrices, got shape {list(m.shape)}")
    result = matrices[0]
    for m in matrices[1:]:
        result = mm(result, m)
    return result if len(matrices) > 1 else result.clone()


ger = outer


@tensor_method("inner")
def inner(x, y):
    """The sum over the last dimension of x times y (x.shape[:-1] + y.shape[:-1]); a 0-d
    argument scales the other."""
    x, y = as_operand(x), as_operand(y)
    if x.ndim == 0 or y.ndim == 0:
        return x * y
    if x.shape[-1] != y.shape[-1]:
        raise ShapeError(f"inner() the last dimension must match on both input tensors but got "
                         f"shapes {list(x.shape)} and {list(y.shape)}")
    return tensordot(x, y, ([-1], [-1]))


@tensor_method("vdot")
def vdot(x, y):
    """The dot product of two 1-D tensors of one dtype."""
    refuse_kinds(x, "b", "vdot")
    if x._data.dtype != y._data.dtype:
        raise DTypeError(f"vdot: expected both vectors to have same dtype, but found {x.dtype} "
                         f"and {y.dtype}")
    if x.ndim != 1 or y.ndim != 1 or x.shape != y.shape:
        raise ShapeError(f"vdot: expected two 1-D tensors of one size, got {list(x.shape)} and "
                         f"{list(y.shape)}")
    return _sum(x * y).to(x.dtype)  # integers stay in their dtype (wrapping), as PyTorch


@tensor_method("logdet")
def logdet(x):
    """log det(x): NaN where the determinant is negative, -inf where it is 0."""
    sign, logabsdet = slogdet(x)
    return where(sign < 0, float("nan"), where(sign == 0, float("-inf"), logabsdet))


@tensor_method("dist")
def dist(x, y, p=2):
    """The p-norm of x - y (broadcast), over all elements."""
    return vector_norm(x - y, p)


def pdist(x, p=2):
    """The p-norm distances between the rows of a 2-D x, pairs i < j in row order."""
    refuse_python_value(x, "pdist")
    if x.ndim != 2:
        raise ShapeError(f"pdist only supports 2D tensors, got: {x.ndim}D")
    if x._data.dtype.kind != "f":
        raise DTypeError(f"pdist only supports floating-point dtypes, got {x.dtype}")
    if x._data.dtype == np.float16:
        raise DTypeNotImplemented('"pdist" not implemented for float16 tensors, as in PyTorch; '
                                  "compute in float32: pdist(x.float())")
    n = x.shape[0]
    rows, cols = np.triu_indices(n, 1)
    pairs = index_select(x, 0, Tensor._make(rows)) - index_select(x, 0, Tensor._make(cols))
    return vector_norm(pairs, p, dim=1)


@tensor_method("renorm")
def renorm(x, p, dim, maxnorm):
    """x with each sub-tensor along `dim` whose p-norm exceeds maxnorm scaled to norm maxnorm."""
    if x._data.dtype.kind != "f":
        raise DTypeError(f"renorm: expected a floating tensor, got {x.dtype}")
    if maxnorm < 0:
        raise RuntimeError(f"renorm: expected maxnorm to be >= 0 but got {maxnorm}")
    if x.ndim < 2:
        raise ShapeError(f"renorm: input needs at least 2 dimensions, got shape "
                         f"{list(x.shape)}")
    dim = _dim(dim, x.ndim, "renorm")
    others = tuple(d for d in range(x.ndim) if d != dim)
    norms = vector_norm(x, p, dim=others, keepdim=True)
    factor = where(norms > maxnorm, maxnorm / (norms + 1e-7), 1.0)
    return x * factor


def block_diag(*tensors):
    """The tensors (0-d, 1-d as a row, or 2-d) as blocks along the diagonal of a matrix."""
    blocks = []
    for t in tensors:
        refuse_python_value(t, "block_diag")
    for t in promote_all(*tensors) if tensors else ():
        if t.ndim > 2:
            raise ShapeError(f"torch.block_diag: Input tensors must have 2 or fewer dimensions. "
                             f"Input has {t.ndim} dimensions")
        blocks.append(reshape(t, (1, -1)) if t.ndim < 2 else t)
    if not blocks:
        return Tensor._make(np.zeros((0, 0), np.float32))
    width = sum(b.shape[1] for b in blocks)
    rows, left = [], 0
    for b in blocks:
        r, c = b.shape
        parts = [Tensor._make(np.zeros((r, left), b._data.dtype)), b,
                 Tensor._make(np.zeros((r, width - left - c), b._data.dtype))]
        rows.append(concat([p for p in parts if p.shape[1]] or [b], 1))
        left += c
    return concat(rows, 0)


def cartesian_prod(*tensors):
    """Every combination of one element from each 1-D tensor, as rows (a single tensor: itself)."""
    for t in tensors:
        refuse_python_value(t, "cartesian_prod")
        if t.ndim != 1:
            raise ShapeError(f"cartesian_prod: expected 1-D tensors, got shape {list(t.shape)}")
    if len(tensors) == 1:
        return tensors[0]
    grids = meshgrid(*promote_all(*tensors), indexing="ij")
    return stack([flatten(g) for g in grids], 1)


def combinations(x, r=2, with_replacement=False):
    """The r-element combinations of a 1-D tensor's elements, as rows (itertools' order)."""
    refuse_python_value(x, "combinations")
    if x.ndim != 1:
        raise ShapeError(f"Expect a 1D vector, but got shape {list(x.shape)}")
    if r < 0:
        raise RuntimeError(f"Expect a non-negative number, but got {r}")
    if r == 0:
        return Tensor._make(np.zeros((0,), x._data.dtype))
    choose = itertools.combinations_with_replacement if with_replacement else (
        itertools.combinations)
    index = np.array(list(choose(range(x.shape[0]), r)), dtype=np.int64).reshape(-1, r)
    if not index.size:
        return Tensor._make(np.zeros((0, r), x._data.dtype))
    return reshape(index_select(x, 0, Tensor._make(index.reshape(-1))), (-1, r))


def vander(x, N=None, increasing=False):
    """The Vandermonde matrix of a 1-D x: columns x**0 ... x**(N-1) (decreasing by default)."""
    refuse_python_value(x, "vander")
    if x.ndim != 1:
        raise ShapeError(f"x must be a one-dimensional tensor, got shape {list(x.shape)}")
    n = x.shape[0] if N is None else N
    if n < 0:
        raise RuntimeError("N must be non-negative.")
    if x._data.dtype.kind in "bu" or x._data.dtype.itemsize < 8 and x._data.dtype.kind == "i":
        x = cast(x, "int64")
    powers = range(n) if increasing else range(n - 1, -1, -1)
    if n == 0:
        return Tensor._make(np.zeros((x.shape[0], 0), x._data.dtype))
    return stack([x ** k for k in powers], 1)


@tensor_method("diagflat")
def diagflat(x, offset=0):
    """The flattened x on diagonal `offset` of a square matrix."""
    return diag(flatten(x), offset)


@tensor_method("cov")
def cov(x, *, correction=1, fweights=None, aweights=None):
    """The covariance of the rows (variables) of x over its columns (observations), with
    optional integer frequency weights and floating observation weights."""
    refuse_python_value(x, "cov")
    if x.ndim > 2:
        raise ShapeError(f"cov(): expected input to have two or fewer dimensions but got an "
                         f"input with {x.ndim} dimensions")
    data = reshape(x, (1, -1)) if x.ndim < 2 else x
    if data._data.dtype.kind != "f":
        data = cast(data, "float32")
    n = data.shape[1]
    refuse_value_reads("cov (its weights)", fweights, aweights)
    w = None
    if fweights is not None:
        if fweights._data.dtype.kind not in "iu":
            raise DTypeError(f"cov(): expected fweights to have integral dtype but got "
                             f"fweights with {fweights.dtype} dtype")
        w = fweights
    if aweights is not None:
        if aweights._data.dtype.kind != "f":
            raise DTypeError(f"cov(): expected aweights to have floating point dtype but got "
                             f"aweights with {aweights.dtype} dtype")
        w = aweights if w is None else w * aweights
    for name, weights in (("fweights", fweights), ("aweights", aweights)):
        if weights is not None and (weights.ndim > 1 or weights.numel() != n):
            raise ShapeError(f"cov(): expected {name} to have one dimension and {n} elements, "
                             f"got shape {list(weights.shape)}")
        if weights is not None and bool((weights._data < 0).any()):
            raise RuntimeError(f"cov(): {name} cannot be negative")
    if w is None:
        w_sum = n
        avg = _sum(data, 1) / n
    else:
        w = cast(w, data.dtype)
        w_sum = _sum(w)
        avg = _sum(data * w, 1) / w_sum
    if w is None:  # N - correction, staged for a static Variable of unknown size
        norm = count_minus(data[0], None, False, correction)
    elif aweights is None:
        norm = w_sum - correction
    else:
        norm = w_sum - correction * _sum(w * aweights) / w_sum
    if getattr(norm, "program", None) is None and \
            float(norm.item() if isinstance(norm, Tensor) else norm) <= 0:
        warnings.warn("cov(): degrees of freedom is <= 0. Correction should be strictly less "
                      "than the number of observations.")
        norm = norm * 0 if isinstance(norm, Tensor) else 0.0
    centered = data - unsqueeze(avg, 1)
    weighted = centered if w is None else centered * w
    c = mm(weighted, transpose(centered, 0, 1)) / norm
    return reshape(c, ()) if data.shape[0] == 1 else c


@tensor_method("corrcoef")
def corrcoef(x):
    """Pearson's correlation coefficients of the rows of x (clamped to [-1, 1])."""
    refuse_python_value(x, "corrcoef")
    c = cov(x)
    if c.ndim == 0:
        return c / c
    d = sqrt(diag(c))
    c = c / unsqueeze(d, 1) / unsqueeze(d, 0)
    return clamp(c, -1, 1)


def _along(y, dim):
    ndim = ndim_of(y, "trapezoid")
    dim = _dim(dim, ndim, "trapezoid")
    n = y.shape[dim]
    return dim, n


def _pair_means(y, dim, n):
    return (narrow(y, dim, 1, n - 1) + narrow(y, dim, 0, n - 1)) / 2


def _spacing(x, y, dim, n):
    """The widths of the intervals (a scalar, or a tensor along y's `dim`)."""
    if not isinstance(x, Tensor):
        return x
    if x.ndim == 1:
        steps = narrow(x, 0, 1, n - 1) - narrow(x, 0, 0, n - 1)
        return reshape(steps, (n - 1,) + (1,) * (y.ndim - 1 - dim))
    d = dim - y.ndim + x.ndim if dim - y.ndim + x.ndim >= 0 else dim
    return narrow(x, d, 1, n - 1) - narrow(x, d, 0, n - 1)


def trapezoid(y, x=None, *, dx=None, dim=-1):
    """The trapezoid rule of y along `dim`, at points x (a tensor) or spacing dx (default 1)."""
    refuse_kinds(y, "b", "trapezoid", DTypeError)
    if x is not None and dx is not None:
        raise RuntimeError("trapezoid: pass the sample points x or the spacing dx, not both")
    if x is not None and not isinstance(x, Tensor):
        dx, x = x, None
    dim, n = _along(y, dim)
    if n == 0:
        return _sum(y, dim)
    if x is None:
        # PyTorch's form for equal spacing (its infinities and NaN follow): the sum less half
        # the two ends
        ends = narrow(y, dim, 0, 1) + narrow(y, dim, n - 1, 1)
        return (_sum(y, dim) - _sum(ends, dim) / 2) * (1 if dx is None else dx)
    return _sum(_pair_means(y, dim, n) * _spacing(x, y, dim, n), dim)


def trapz(y, x=None, *, dx=None, dim=-1):
    """trapezoid (PyTorch's older name)."""
    return trapezoid(y, x, dx=dx, dim=dim)


def cumulative_trapezoid(y, x=None, *, dx=None, dim=-1):
    """The running trapezoid rule of y along `dim` (one element fewer than y there)."""
    refuse_kinds(y, "b", "cumulative_trapezoid", DTypeError)
    if x is not None and not isinstance(x, Tensor):
        dx, x = x, None
    dim, n = _along(y, dim)
    if n == 0:
        return y
    spacing = _spacing(x, y, dim, n) if x is not None else (1 if dx is None else dx)
    return cumsum(_pair_means(y, dim, n) * spacing, dim)
