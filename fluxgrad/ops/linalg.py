"""Linear algebra: matmul and its spellings, einsum, diagonals and triangles, inverse,
determinants, solve and Cholesky.

Matrix ops work on the last two axes and broadcast (or batch over) the leading
ones, as PyTorch. The rules are written in fluxgrad ops, so they differentiate
again; a cotangent of a broadcast batch operand is summed back by the engine.
"""
import collections
import functools
import math
import string

import numpy as np

from .._core.batching import move_dim
from .._core.dispatch import apply
from .._core.errors import (ArgumentError, DTypeError, DTypeNotImplemented, ShapeError,
                            ShapeIndexError, refuse_python_value)
from .._core.primitive import REGISTRY, Primitive
from .._core.tensor import Tensor, tensor_method
from ._batch import aligned, along_axes, front
from ._conj import conj_rule
from ._family import (float_result, linear, promote, promote_all, refuse_kinds,
                      refuse_python_value)
from .elementwise import where
from .linalg_errors import (INVERSE_SINGULAR, NOT_POSITIVE_DEFINITE, SOLVE_SINGULAR,
                            blame, cholesky_info, guarded, lu_info)
from .reduce import norm
from .reduce import sum as _sum
from .shape import (broadcast_tensors, broadcast_to, permute_p, reshape, select, squeeze,
                    stack, unsqueeze)

__all__ = ["matmul", "dot", "outer", "mm", "mv", "bmm", "einsum", "trace", "diag", "diagonal",
           "diag_embed", "tril", "triu", "inverse", "det", "slogdet", "solve", "cholesky",
           "tensordot", "cross", "kron", "cdist"]



def _mT(x):
    """The last two axes swapped (a batch of transposed matrices)."""
    n = x._data.ndim
    return apply(permute_p, x, perm=(*range(n - 2), n - 1, n - 2))


def _mH(x):
    """The conjugate transpose of the last two axes (the transpose of a real batch)."""
    return conj_rule(_mT(x))


# --- matmul -----------------------------------------------------------------------------
def require_same_float_dtype(op, x, y, names=("mat1", "mat2")):
    """Refuse two tensors of different dtypes when one is floating, as PyTorch does for matmul,
    linear and conv (a float64 batch into a float32 model would otherwise run silently in
    float64, an integer batch silently promoted)."""
    if not (isinstance(x, Tensor) and isinstance(y, Tensor)):
        return
    a, b = x._data.dtype, y._data.dtype
    if a != b and (a.kind in "fc" or b.kind in "fc"):
        raise DTypeError(f"{op}: {names[0]} and {names[1]} must have the same dtype, but got "
                         f"{x.dtype} and {y.dtype}; convert one first, e.g. with .float(), "
                         ".double() or .to(dtype) (a model: model.to(dtype))")


def _matmul_x_bar(out_bar, out, x, y):
    y = conj_rule(y)  # (complex: the product with the conjugate, as every holomorphic VJP)
    if y.ndim == 1:
        # out = x y with y a vector: x_bar is the outer product out_bar y^T (a scalar if x is
        # a vector too)
        return out_bar * y if x.ndim == 1 else unsqueeze(out_bar, -1) * y
    if x.ndim == 1:
        # out = x^T y: x_bar = y out_bar, summed over y's batch by the engine
        if y.ndim == 2:
            return matmul(y, out_bar)
        return matmul(unsqueeze(out_bar, -2), _mT(y))
    return matmul(out_bar, _mT(y))


def _matmul_y_bar(out_bar, out, x, y):
    x = conj_rule(x)
    if x.ndim == 1:
        return out_bar * x if y.ndim == 1 else unsqueeze(x, -1) * unsqueeze(out_bar, -2)
    if y.ndim == 1:
        if x.ndim == 2:
            return matmul(out_bar, x)
        return matmul(unsqueeze(out_bar, -2), x)
    if y.ndim == 2 and x.ndim > 2:
        # fold x's batch into its rows: one (k, B*n) @ (B*n, m) product, no batch to sum
        k, m = y.shape
        rows = -1 if k and m else math.prod(x.shape[:-1])  # -1 can't be read from 0 entries
        x, out_bar = reshape(x, (rows, k)), reshape(out_bar, (rows, m))
    if y.ndim == 2 and x.ndim == 2 and _is_transposed(y._data):
        # y is a transposed view (x @ W.T in a linear layer): build its cotangent transposed
        # too, so that W's gradient comes out contiguous
        return _mT(matmul(_mT(out_bar), x))
    return matmul(_mT(x), out_bar)


def _is_transposed(a):
    return a.flags.f_contiguous and not a.flags.c_contiguous


def _matmul_jvp(tangents, out, x, y):
    x_dot, y_dot = tangents
    if y_dot is None:
        return matmul(x_dot, y)
    if x_dot is None:
        return matmul(x, y_dot)
    return matmul(x_dot, y) + matmul(x, y_dot)


def _matmul_impl(x, y):
    if y.ndim == 2 and x.ndim > 2:
        # a batch times one matrix is one (B*n, k) @ (k, m) product: a single BLAS call,
        # fast for a transposed y too (NumPy's batched loop is up to 2x slower there)
        rows = np.matmul(x.reshape(math.prod(x.shape[:-1]), x.shape[-1]), y)
        return rows.reshape(x.shape[:-1] + y.shape[-1:])
    return np.matmul(x, y)


def _matmul_batch(bdims, x, y):
    bx, by = bdims
    x_vector = x.ndim - (bx is not None) == 1
    y_vector = y.ndim - (by is not None) == 1
    if x_vector or y_vector:
        # vectors as matrices (a row on the left, a column on the right), that dimension
        # dropped again from the product
        if bx is not None:
            x = move_dim(x, bx, 0)
        if by is not None:
            y = move_dim(y, by, 0)
        if x_vector:
            x = unsqueeze(x, -2)
        if y_vector:
            y = unsqueeze(y, -1)
        out, out_bdim = _matmul_batch((None if bx is None else 0, None if by is None else 0),
                                      x, y)
        out = move_dim(out, out_bdim, 0)
        if y_vector:
            out = squeeze(out, -1)
        if x_vector:
            out = squeeze(out, -1 if y_vector else -2)
        return out, 0
    if by is None and y.ndim == 2 and bx != x.ndim - 1:
        return apply(matmul_p, x, y), bx  # x's batch is more rows: one product with y
    if bx is None:
        return _from_columns(apply(matmul_p, x, _into_columns(y, by)), y.shape[by])
    return apply(matmul_p, *aligned((x, y), bdims)), 0


def _into_columns(y, b):
    """A batch of [..., n, m] matrices (batch at `b`) as one batch of [..., n, m * B]: for an
    unbatched left operand, one product (one factorisation in `solve`) serves every example."""
    y = move_dim(y, b, y.ndim - 1)
    return reshape(y, y.shape[:-2] + (-1,))


def _from_columns(out, size):
    return reshape(out, out.shape[:-1] + (-1, size)), out.ndim


# operands follow NumPy's matmul: a 1-D operand is a vector, its dimension dropped from the
# product
matmul_p = Primitive("matmul", _matmul_impl, vjp=(_matmul_x_bar, _matmul_y_bar),
                     jvp=_matmul_jvp, saves_inputs="others", linear="each", batch=_matmul_batch)


@tensor_method("matmul", "__matmul__")
def matmul(x, y, transpose_x=False, transpose_y=False):
    """Matrix product with NumPy's rules: batch dimensions broadcast; a 1-D operand is a
    vector (a row on the left, a column on the right) whose dimension is dropped again.

    `transpose_x` / `transpose_y` (PaddlePaddle) transpose the last two axes first.
    """
    if not (isinstance(x, Tensor) and isinstance(y, Tensor)
            and x._data.dtype == y._data.dtype):
        require_same_float_dtype("matmul", x, y)
        if isinstance(x, Tensor) and isinstance(y, Tensor):
            raise DTypeError(f"matmul: expected both operands to have the same dtype, as "
                             f"PyTorch, but got {x.dtype} and {y.dtype}; convert one first "
                             "(.to(dtype))")
        x, y = promote(_as_tensor(x), _as_tensor(y))
    if x._data.dtype.kind == "b":  # (checked inline: matmul is on every layer's hot path)
        refuse_kinds(x, "b", "matmul")
    if transpose_x and x._data.ndim >= 2:
        x = _mT(x)
    if transpose_y and y._data.ndim >= 2:
        y = _mT(y)
    if x._data.ndim >= 2 and y._data.ndim >= 2:
        try:
            return apply(matmul_p, x, y)
        except ValueError as err:
            _raise_mismatch("matmul", x.shape, y.shape, err)
    return _matmul_vectors(x, y)


Tensor.__rmatmul__ = lambda self, other: matmul(other, self)


def _matmul_vectors(x, y):
    if x.ndim == 0 or y.ndim == 0:
        raise ShapeError(f"matmul: both arguments need at least one dimension, got shapes "
                         f"{list(x.shape)} and {list(y.shape)}; multiply by a scalar with * "
                         "instead")
    try:
        return apply(matmul_p, x, y)
    except ValueError as err:
        _raise_mismatch("matmul", x.shape, y.shape, err)


def _raise_mismatch(op, xs, ys, err):
    inner_x = xs[-1]
    inner_y = ys[-2] if len(ys) >= 2 else ys[0]
    if inner_x != inner_y:
        raise ShapeError(f"{op}: can't multiply {list(xs)} by {list(ys)}: inner dimensions "
                         f"{inner_x} and {inner_y} differ") from None
    bx, by = list(xs[:-2]), list(ys[:-2])
    try:
        np.broadcast_shapes(tuple(bx), tuple(by))
    except ValueError:
        raise ShapeError(f"{op}: can't multiply {list(xs)} by {list(ys)}: batch dimensions "
                         f"{bx} and {by} don't broadcast") from None
    raise err


def _as_tensor(x):
    if isinstance(x, Tensor):
        return x
    if type(x) is int or type(x) is bool:
        x = np.asarray(x)  # Tensor(n) would be n uninitialised elements, as torch.Tensor(n)
    return Tensor(x)


def _need_ndim(op, x, ndims, what):
    if x.ndim not in ndims:
        raise ShapeError(f"{op}: expected {what}, got a tensor of shape {list(x.shape)}")


@tensor_method("mm")
def mm(x, y):
    """Product of two matrices (2-D only; `matmul` broadcasts)."""
    x, y = _as_tensor(x), _as_tensor(y)
    _need_ndim("mm", x, (2,), "2-D matrices (use matmul for batches or vectors)")
    _need_ndim("mm", y, (2,), "2-D matrices (use matmul for batches or vectors)")
    return matmul(x, y)


@tensor_method("mv")
def mv(x, y):
    """Matrix (2-D) times vector (1-D)."""
    x, y = _as_tensor(x), _as_tensor(y)
    _need_ndim("mv", x, (2,), "a 2-D matrix as the first argument")
    _need_ndim("mv", y, (1,), "a 1-D vector as the second argument")
    return matmul(x, y)


@tensor_method("bmm")
def bmm(x, y):
    """Batched product of 3-D tensors [b, n, k] @ [b, k, m] (no broadcasting)."""
    x, y = _as_tensor(x), _as_tensor(y)
    _need_ndim("bmm", x, (3,), "3-D tensors [batch, n, k] (use matmul to broadcast)")
    _need_ndim("bmm", y, (3,), "3-D tensors [batch, k, m] (use matmul to broadcast)")
    if x.shape[0] != y.shape[0]:
        raise ShapeError(f"bmm: batch sizes differ: {list(x.shape)} and {list(y.shape)}; bmm "
                         "doesn't broadcast, use matmul for that")
    return matmul(x, y)


@tensor_method("dot")
def dot(x, y):
    """Inner product of two 1-D tensors (of two 2-D tensors: row by row, PaddlePaddle)."""
    x, y = _as_tensor(x), _as_tensor(y)
    if x.ndim != y.ndim or x.ndim not in (1, 2) or x.shape != y.shape:
        raise ShapeError(f"dot: expected two 1-D tensors of the same size (or two 2-D of the same "
                         f"shape), got {list(x.shape)} and {list(y.shape)}")
    if x.ndim == 2:
        refuse_kinds(x, "b", "dot")
        return _sum(x * y, -1)
    return matmul(x, y)


@tensor_method("outer", "ger")
def outer(x, y):
    """Outer product of two 1-D tensors: out[i, j] = x[i] * y[j]."""
    x, y = _as_tensor(x), _as_tensor(y)
    if x.ndim != 1 or y.ndim != 1:
        raise ShapeError(f"outer: expected two 1-D tensors, got {list(x.shape)} and "
                         f"{list(y.shape)}")
    return reshape(x, (x.shape[0], 1)) * reshape(y, (1, y.shape[0]))


# --- einsum -----------------------------------------------------------------------------
# `spec` is normalised: explicit output, every '...' spelled out in letters.
def _einsum_impl(*xs, spec):
    out = np.einsum(spec, *xs, optimize=len(xs) > 2 or (len(xs) == 2 and
                                                         xs[0].size * xs[1].size > 1 << 16))
    if len(xs) == 1 and np.may_share_memory(out, xs[0]):
        out = out.copy()
    return out


def _einsum_vjp(out_bar, out, *xs, spec):
    ins, out_sub = _split_spec(spec)
    return [_einsum_operand_bar(i, out_bar, xs, ins, out_sub) if x.requires_grad else None
            for i, x in enumerate(xs)]


def _einsum_operand_bar(i, out_bar, xs, ins, out_sub):
    # an einsum of out_bar with the other operands, then broadcast along labels only this
    # operand has and put on the diagonal where it repeats a label ('ii->' and friends)
    target = ins[i]
    others = [j for j in range(len(xs)) if j != i]
    avail = set(out_sub).union(*(ins[j] for j in others))
    unique = "".join(dict.fromkeys(target))
    keep = "".join(c for c in unique if c in avail)
    terms = ",".join([out_sub] + [ins[j] for j in others])
    if len(others) == 0 and out_sub == keep:
        g = out_bar
    else:
        g = apply(einsum_p, out_bar, *(conj_rule(xs[j]) for j in others),
                  spec=f"{terms}->{keep}")
    own = dict(zip(target, xs[i].shape))
    size = dict(zip(keep, g.shape))
    if keep != unique:
        g = reshape(g, [size.get(c, 1) for c in unique])
        size = {c: size.get(c, own[c]) for c in unique}
        g = broadcast_to(g, [size[c] for c in unique])
    if unique != target:
        first = [target.index(c) == p for p, c in enumerate(target)]
        g = reshape(g, [size[c] if f else 1 for c, f in zip(target, first)])
        full = tuple(size[c] for c in target)
        g = where(Tensor(_repeat_mask(target, full)), broadcast_to(g, full), 0)
    return g


def _repeat_mask(labels, shape):
    mask = np.ones(shape, dtype=bool)
    for p, c in enumerate(labels):
        q = labels.index(c)
        if q != p:
            grid = np.indices(shape, sparse=True)
            mask &= grid[p] == grid[q]
    return mask


def _einsum_jvp(tangents, out, *xs, spec):
    result = None
    for i, t in enumerate(tangents):
        if t is not None:
            term = apply(einsum_p, *xs[:i], t, *xs[i + 1:], spec=spec)
            result = term if result is None else result + term
    return result


def _einsum_batch(bdims, *xs, spec):
    # a fresh label for the batch, placed where each operand holds it
    label = next((c for c in string.ascii_letters if c not in spec), None)
    if label is None:
        raise NotImplementedError(f"vmap: einsum {spec!r} uses every letter, none is left to "
                                  "label the batch dimension")
    ins, out_sub = _split_spec(spec)
    ins = [sub if b is None else sub[:b] + label + sub[b:] for sub, b in zip(ins, bdims)]
    return apply(einsum_p, *xs, spec=",".join(ins) + "->" + label + out_sub), 0


einsum_p = Primitive("einsum", _einsum_impl, vjp=_einsum_vjp, jvp=_einsum_jvp,
                     linear="each", batch=_einsum_batch)


@functools.lru_cache(maxsize=1024)
def _split_spec(spec):
    lhs, out_sub = spec.split("->")
    return lhs.split(","), out_sub


def einsum(equation, *operands):
    """Einstein summation, e.g. einsum('bij,bjk->bik', x, y).

    Subscripts are letters; '...' stands for broadcast leading dimensions; without
    '->' the output holds, in alphabetical order, the labels that appear once.
    A label repeated in one operand takes its diagonal ('ii->i', 'ii->').
    Also the sublist form, einsum(x, [0, 1], y, [1, 2], [0, 2]): ints in [0, 52) for the
    labels, Ellipsis for '...'.
    """
    if not isinstance(equation, str):
        equation, operands = _sublist_form((equation,) + operands)
    if len(operands) == 1 and isinstance(operands[0], (list, tuple)):
        operands = operands[0]
    operands = [_as_tensor(x) for x in operands]
    if len({x._data.dtype for x in operands}) > 1:
        operands = promote_all(*operands)
    spec = _parse_einsum(equation, tuple(x.shape for x in operands))
    if operands and operands[0]._data.dtype == np.bool_:
        summed = _summed_labels(spec)
        if any(n > 1 for n in summed.values()):
            refuse_kinds(operands[0], "b", "einsum (a product summed over a shared label)")
        if summed:  # a sum of bools counts them, as PyTorch's sum
            operands = [x.long() for x in operands]
    return apply(einsum_p, *operands, spec=spec)


def _summed_labels(spec):
    """The labels summed away, each with the number of operands holding it (two or more:
    PyTorch's batched matrix product, which has no bool kernel)."""
    ins, out = spec.split("->")
    terms = ins.split(",")
    return {c: sum(c in t for t in terms) for c in set(ins) - {","} - set(out)}


def _sublist_form(args):
    """(equation, operands) for einsum(x, sublist, y, sublist, ..., [output sublist])."""
    def letters(sublist):
        out = []
        for label in sublist:
            if label is Ellipsis:
                out.append("...")
            elif isinstance(label, (int, np.integer)) and 0 <= label < 52:
                out.append(string.ascii_letters[int(label)])
            else:
                raise ArgumentError(f"einsum: sublist labels must be ints in [0, 52) or Ellipsis, "
                                 f"got {label!r} in {list(sublist)}")
        return "".join(out)
    operands, terms = args[0::2], args[1::2]
    if len(args) % 2:
        operands, output = operands[:-1], "->" + letters(operands[-1])
    else:
        output = ""
    return ",".join(letters(t) for t in terms) + output, operands


@functools.lru_cache(maxsize=1024)
def _parse_einsum(equation, shapes):
    def fail(why):
        raise ShapeError(f"einsum: {why} in {equation!r} (operand shapes "
                         f"{[list(s) for s in shapes]})")

    eq = equation.replace(" ", "")
    if eq.count("->") > 1:
        fail("more than one '->'")
    lhs, arrow, rhs = eq.partition("->")
    terms = lhs.split(",")
    if len(terms) != len(shapes):
        fail(f"{len(terms)} operand subscripts for {len(shapes)} operands")
    fresh = [c for c in string.ascii_letters if c not in eq]
    n_ell, explicit = [], []
    for k, (term, shape) in enumerate(zip(terms, shapes)):
        letters = term.replace("...", "", 1)
        bad = sorted(set(c for c in letters if c not in string.ascii_letters))
        if bad:
            fail(f"operand {k} has invalid subscript characters {bad} (use letters and at most "
                 "one '...')")
        if "..." in term:
            if len(letters) > len(shape):
                fail(f"operand {k} has {len(letters)} labels besides '...' but only "
                     f"{len(shape)} dimensions")
            n_ell.append(len(shape) - len(letters))
        elif len(letters) != len(shape):
            fail(f"operand {k} has {len(letters)} subscripts but {len(shape)} dimensions")
        else:
            n_ell.append(0)
        explicit.append(letters)
    width = max(n_ell, default=0)
    ell = "".join(fresh[:width])
    ins = [t.replace("...", ell[width - n:]) for t, n in zip(terms, n_ell)]
    if arrow:
        if rhs.replace("...", "", 1).count(".") or any(c not in string.ascii_letters
                                                       for c in rhs.replace("...", "")):
            fail("invalid output subscripts")
        out = rhs.replace("...", ell)
        seen = set("".join(ins))
        for c in rhs.replace("...", ""):
            if c not in seen:
                fail(f"output label {c!r} appears in no operand")
        if len(set(out)) != len(out):
            fail("an output label appears twice")
    else:
        counts = collections.Counter("".join(explicit))
        out = ell + "".join(sorted(c for c, n in counts.items() if n == 1))
    sizes = {}
    for k, (term, shape) in enumerate(zip(ins, shapes)):
        own = {}
        for c, n in zip(term, shape):
            if own.setdefault(c, n) != n:
                fail(f"label {c!r} repeats in operand {k} over dimensions of sizes {own[c]} "
                     f"and {n}")
            if n != 1 and sizes.setdefault(c, n) != n:
                fail(f"label {c!r} has size {sizes[c]} in one operand but {n} in operand {k}")
    return ",".join(ins) + "->" + out


# --- diagonals, traces and triangles ----------------------------------------------------
def _diag_embed_impl(x, *, shape, offset, axis1, axis2):
    out = np.zeros(shape, dtype=x.dtype)
    view = np.moveaxis(out, (axis1, axis2), (-2, -1))
    k = x.shape[-1]
    rows = np.arange(k) + max(-offset, 0)
    view[..., rows, rows + offset] = x
    return out


def _diagonal_impl(x, *, offset, axis1, axis2):
    # a view, as PyTorch's (x.diagonal().zero_() writes into x); NumPy makes it read-only
    d = np.diagonal(x, offset, axis1, axis2)
    if x.flags.writeable:
        d.flags.writeable = True
    return d


def _write_diagonal(base, value, *, offset, axis1, axis2):
    """base with its diagonal replaced by value: how a write into the view reaches its base."""
    old = apply(diagonal_p, base, offset=offset, axis1=axis1, axis2=axis2)
    return base + apply(diag_embed_p, value - old, shape=base.shape, offset=offset, axis1=axis1,
                        axis2=axis2)


diagonal_p = linear(
    "diagonal", _diagonal_impl,
    lambda out_bar, x, *, offset, axis1, axis2: apply(
        diag_embed_p, out_bar, shape=x.shape, offset=offset, axis1=axis1, axis2=axis2),
    view=_write_diagonal, batch=along_axes("diagonal", "axis1", "axis2"))
# writes x's last axis onto a diagonal of zeros(shape): the transpose of `diagonal`
diag_embed_p = linear(
    "diag_embed", _diag_embed_impl,
    lambda out_bar, x, *, shape, offset, axis1, axis2: apply(
        diagonal_p, out_bar, offset=offset, axis1=axis1, axis2=axis2),
    batch=lambda bdims, x, *, shape, offset, axis1, axis2: (apply(
        diag_embed_p, front(x, bdims[0]), shape=(x.shape[bdims[0]],) + shape, offset=offset,
        axis1=axis1 + 1, axis2=axis2 + 1), 0))


def _axis_pair(op, ndim, axis1, axis2):
    for a in (axis1, axis2):
        if not -ndim <= a < ndim:
            raise IndexError(f"{op}: dimension {a} is out of range for {ndim} dimensions")
    axis1, axis2 = axis1 % ndim, axis2 % ndim
    if axis1 == axis2:
        raise ShapeError(f"{op}: the two dimensions must differ, got {axis1} twice")
    return axis1, axis2


@tensor_method("diagonal")
def diagonal(x, offset=0, dim1=0, dim2=1, *, axis1=None, axis2=None):
    """The diagonal of `x` over dimensions dim1, dim2, as a new last dimension.

    `offset` > 0 is above the main diagonal, < 0 below.
    """
    t = _as_tensor(x)
    if t.ndim < 2:
        refuse_python_value(x, "diagonal")
        raise ShapeIndexError(f"diagonal: dimension out of range: it takes two dimensions, the "
                              f"tensor has shape {list(t.shape)}")
    dim1 = dim1 if axis1 is None else axis1
    dim2 = dim2 if axis2 is None else axis2
    dim1, dim2 = _axis_pair("diagonal", t.ndim, dim1, dim2)
    return apply(diagonal_p, t, offset=int(offset), axis1=dim1, axis2=dim2)


@tensor_method("diag_embed")
def diag_embed(x, offset=0, dim1=-2, dim2=-1):
    """Matrices whose diagonal (over dim1, dim2 of the result) is the last dimension of `x`."""
    t = _as_tensor(x)
    if t.ndim < 1:
        refuse_python_value(x, "diag_embed")
        raise ShapeError("diag_embed: expected at least 1 dimension, got a 0-d tensor")
    offset = int(offset)
    dim1, dim2 = _axis_pair("diag_embed", t.ndim + 1, dim1, dim2)
    n = t.shape[-1] + abs(offset)
    shape = list(t.shape[:-1])
    for a in sorted((dim1, dim2)):
        shape.insert(a, n)
    return apply(diag_embed_p, t, shape=tuple(shape), offset=offset, axis1=dim1, axis2=dim2)


@tensor_method("diag")
def diag(x, diagonal=0, *, offset=None, padding_value=0):
    """1-D -> a square matrix with `x` on the given diagonal (others `padding_value`);
    2-D -> that diagonal as a 1-D tensor."""
    refuse_python_value(x, "diag")
    t = _as_tensor(x)
    k = int(diagonal if offset is None else offset)
    if t.ndim == 1:
        out = diag_embed(t, k)
        if padding_value:
            n = out.shape[0]
            off = np.eye(n, k=k, dtype=bool)
            out = where(Tensor(off), out, padding_value)
        return out
    if t.ndim == 2:
        return apply(diagonal_p, t, offset=k, axis1=0, axis2=1)
    refuse_python_value(x, "diag")
    raise ShapeError(f"diag: expected a 1-D or 2-D tensor, got shape {list(t.shape)} (use "
                     "diagonal / diag_embed for batches)")


@tensor_method("trace")
def trace(x, offset=0, axis1=0, axis2=1):
    """Sum of the diagonal of a matrix (PaddlePaddle: of any diagonal, over any two axes)."""
    t = _as_tensor(x)
    refuse_kinds(t, "b", "trace")
    if t.ndim < 2:
        refuse_python_value(x, "trace")
        raise ShapeError(f"trace: expected a matrix, got shape {list(t.shape)}")
    return _sum(diagonal(t, offset, axis1, axis2), -1)


def _matrix_batch(prim_name):
    """The rule of an op on the last two axes that batches over the leading ones: the vmap
    batch stays where it is if it is a leading axis, else goes in front."""
    def rule(bdims, x, **params):
        b = bdims[0]
        if b >= x.ndim - 2:
            x, b = move_dim(x, b, 0), 0
        out = apply(REGISTRY[prim_name], x, **params)
        return out, (b if isinstance(out, Tensor) else (b,) * len(out))
    return rule


tril_p = linear("tril", lambda x, *, k: np.tril(x, k),
                lambda out_bar, x, *, k: apply(tril_p, out_bar, k=k), batch=_matrix_batch("tril"))
triu_p = linear("triu", lambda x, *, k: np.triu(x, k),
                lambda out_bar, x, *, k: apply(triu_p, out_bar, k=k), batch=_matrix_batch("triu"))


@tensor_method("tril")
def tril(x, diagonal=0):
    """The lower triangle of the last two axes: elements on and below `diagonal`, others 0."""
    t = _as_tensor(x)
    if t.ndim < 2:
        refuse_python_value(x, "tril")
        raise ShapeError(f"tril: expected at least 2 dimensions, got shape {list(t.shape)}")
    return apply(tril_p, t, k=int(diagonal))


@tensor_method("triu")
def triu(x, diagonal=0):
    """The upper triangle of the last two axes: elements on and above `diagonal`, others 0."""
    t = _as_tensor(x)
    if t.ndim < 2:
        refuse_python_value(x, "triu")
        raise ShapeError(f"triu: expected at least 2 dimensions, got shape {list(t.shape)}")
    return apply(triu_p, t, k=int(diagonal))


# --- inverse, determinants, solve, Cholesky ---------------------------------------------
def _square(op, x):
    t = float_result(_as_tensor(x))
    if t.ndim < 2 or t.shape[-1] != t.shape[-2]:
        refuse_python_value(x, op)
        raise ShapeError(f"{op}: expected a square matrix or a batch of them (shape [..., n, n]), "
                         f"got shape {list(t.shape)}")
    return t


def _as_matrix(t):
    """A batch of scalars as a batch of 1x1 matrices, to scale a batch of matrices."""
    return reshape(t, t.shape + (1, 1))


def _trace_of_product(a, b):
    """trace(a @ b) over the last two axes, without forming the product."""
    return _sum(_mT(a) * b, (-2, -1))


inverse_p = Primitive(
    "inverse", guarded(np.linalg.inv, lambda x: blame(
        "linalg.inv", lu_info(x), INVERSE_SINGULAR, " (linalg.inv_ex returns info instead)")),
    vjp=(lambda out_bar, out, x: -matmul(_mH(out), matmul(out_bar, _mH(out))),),
    jvp=lambda tangents, out, x: -matmul(out, matmul(tangents[0], out)),
    saves_out=True, batch=_matrix_batch("inverse"))


@tensor_method("inverse")
def inverse(x):
    """The inverse of a square matrix (or of each in a batch)."""
    return apply(inverse_p, _square("inverse", x))


def _cofactor_impl(x):
    """The cofactor matrix adj(x)^T, singular x included: with x = U diag(s) Vh, it is
    det(U) det(Vh) U diag(g) Vh where g_i is the product of the s_j with j != i."""
    if x.shape[-1] == 0:
        return np.zeros_like(x)
    u, s, vh = np.linalg.svd(x)
    ones = np.ones(s.shape[:-1] + (1,), s.dtype)
    before = np.cumprod(np.concatenate([ones, s[..., :-1]], -1), -1)
    after = np.cumprod(np.concatenate([ones, s[..., :0:-1]], -1), -1)[..., ::-1]
    sign = np.linalg.det(u) * np.linalg.det(vh)
    return (sign[..., None, None] * (u * (before * after)[..., None, :]) @ vh).astype(x.dtype)


def _cofactor_vjp(out_bar, out, x):
    x_inv_t = _mT(inverse(x))
    return _as_matrix(_sum(out_bar * out, (-2, -1))) * x_inv_t - matmul(
        x_inv_t, matmul(_mT(out_bar), out))


# det's derivative, finite at singular matrices (adj(x) is; det(x) inv(x) is not defined
# there); its own derivatives, written with inverse(x), need x invertible
cofactor_p = Primitive(
    "cofactor", _cofactor_impl,
    vjp=(_cofactor_vjp,),
    jvp=lambda tangents, out, x: (
        _as_matrix(_trace_of_product(inverse(x), tangents[0])) * out
        - matmul(out, matmul(_mT(tangents[0]), _mT(inverse(x))))),
    saves_out=True, batch=_matrix_batch("cofactor"))


det_p = Primitive(
    "det", np.linalg.det,
    vjp=(lambda out_bar, out, x: _as_matrix(out_bar) * apply(cofactor_p, x),),
    jvp=lambda tangents, out, x: _sum(apply(cofactor_p, x) * tangents[0], (-2, -1)),
    saves_out=True, batch=_matrix_batch("det"))


@tensor_method("det")
def det(x):
    """The determinant of a square matrix (or of each in a batch)."""
    return apply(det_p, _square("det", x))


SlogdetResult = collections.namedtuple("SlogdetResult", ["sign", "logabsdet"])

# the sign is piecewise constant: its cotangent is ignored, its tangent zero
slogdet_p = Primitive(
    "slogdet", lambda x: tuple(np.linalg.slogdet(x)), n_outputs=2,
    vjp=(lambda out_bar, out, x: _as_matrix(out_bar[1]) * _mT(inverse(x)),),
    jvp=lambda tangents, out, x: (out[0] * 0.0, _trace_of_product(inverse(x), tangents[0])),
    batch=_matrix_batch("slogdet"))


@tensor_method("slogdet")
def slogdet(x):
    """(sign, log|det|) of a square matrix (or of each in a batch): a stable determinant."""
    return SlogdetResult(*apply(slogdet_p, _square("slogdet", x)))


def _solve_vjp(out_bar, out, a, b):
    b_bar = solve(_mH(a), out_bar)
    a_bar = -matmul(b_bar, _mH(out)) if a.requires_grad else None
    return [a_bar, b_bar if b.requires_grad else None]


def _solve_jvp(tangents, out, a, b):
    a_dot, b_dot = tangents
    if a_dot is None:
        rhs = b_dot
    else:
        rhs = -matmul(a_dot, out) if b_dot is None else b_dot - matmul(a_dot, out)
    return apply(solve_p, a, rhs)


def _solve_batch(bdims, a, b):
    if bdims[0] is None:
        size = b.shape[bdims[1]]
        return _from_columns(apply(solve_p, *_same_rank(a, _into_columns(b, bdims[1]))), size)
    return apply(solve_p, *_same_rank(*aligned((a, b), bdims))), 0


def _same_rank(a, b):
    """a and b with leading 1s to equal ranks: NumPy < 2 takes a b of one dimension fewer
    than a for a batch of vectors."""
    rank = max(a.ndim, b.ndim)
    return [reshape(t, (1,) * (rank - t.ndim) + t.shape) for t in (a, b)]


# b is a matrix or a batch of them ([..., n, k]); `solve` makes vectors columns
solve_p = Primitive("solve", guarded(np.linalg.solve, lambda a, b: blame(
    "torch.linalg.solve", lu_info(a), SOLVE_SINGULAR, " (linalg.solve_ex returns info instead)")),
                    vjp=_solve_vjp, jvp=_solve_jvp, saves_out=True, linear=(1,),
                    batch=_solve_batch)


def solve(a, b, *, left=True):
    """The solution x of a @ x = b (of x @ a = b with left=False); a is square, batches
    broadcast. b is a vector (or batch of vectors) when its shape is a's without the last
    dimension, or when it is 1-D."""
    a = _square("solve", a)
    b = float_result(_as_tensor(b))
    if a._data.dtype != b._data.dtype:
        a, b = promote(a, b)
    if not left:
        return _mT(solve(_mT(a), _mT(b)))
    n = a.shape[-1]
    vector = b.ndim == 1 or (b.ndim == a.ndim - 1 and b.shape == a.shape[:-1])
    b2 = reshape(b, b.shape + (1,)) if vector else b
    if b2.ndim < 2 or b2.shape[-2] != n:
        raise ArgumentError(f"solve: a has shape {list(a.shape)}, so b needs {n} rows (shape "
                         f"[..., {n}, k] or [..., {n}]), got shape {list(b.shape)}")
    try:
        np.broadcast_shapes(a.shape[:-2], b2.shape[:-2])
    except ValueError:
        raise ArgumentError(f"solve: batch dimensions of a {list(a.shape)} and b {list(b.shape)} "
                         "don't broadcast") from None
    out = apply(solve_p, a, b2)
    return reshape(out, out.shape[:-1]) if vector else out


def _phi(x):
    """The lower triangle with the diagonal halved."""
    return 0.5 * (tril(x) + tril(x, -1))


def _cholesky_vjp(out_bar, out, x):
    # A = L L^T: A_bar = L^-T S L^-1, S the symmetric matrix whose lower triangle is
    # Phi(L^T L_bar) (only the lower triangle of A is read, the gradient is symmetrised)
    p = tril(matmul(_mT(out), out_bar))
    s = 0.5 * (p + _mT(tril(p, -1)))
    l_inv = inverse(out)
    return matmul(_mT(l_inv), matmul(s, l_inv))


def _cholesky_jvp(tangents, out, x):
    # dL = L Phi(L^-1 sym(dA) L^-T), sym so that the JVP is the adjoint of the VJP
    a_dot = tangents[0]
    l_inv = inverse(out)
    inner = matmul(l_inv, matmul(0.5 * (a_dot + _mT(a_dot)), _mT(l_inv)))
    return matmul(out, _phi(inner))


def _not_positive_definite(x):
    return blame("linalg.cholesky", cholesky_info(x), NOT_POSITIVE_DEFINITE,
                 " (linalg.cholesky_ex returns info instead)")


def _cholesky_impl(x):
    out = np.linalg.cholesky(x)
    if not (np.diagonal(out, axis1=-2, axis2=-1) > 0).all():  # NaN: LAPACK refuses, NumPy not
        raise _not_positive_definite(x)
    return out


cholesky_p = Primitive(
    "cholesky", guarded(_cholesky_impl, _not_positive_definite),
    vjp=(_cholesky_vjp,), jvp=_cholesky_jvp, saves_out=True, batch=_matrix_batch("cholesky"))


@tensor_method("cholesky")
def cholesky(x, upper=False):
    """The Cholesky factor L (lower triangular, A = L L^T) of a symmetric positive-definite
    matrix, or of each in a batch; upper=True gives U = L^T (A = U^T U). Only the lower
    triangle of A is read."""
    out = apply(cholesky_p, _square("cholesky", x))
    return _mT(out) if upper else out


# --- composites: tensor products, cross product, distances --------------------------------
def tensordot(a, b, dims=2):
    """Contract dimensions of `a` with dimensions of `b`, as torch.tensordot: `dims` an int n
    (the last n of `a` with the first n of `b`) or a pair of lists ([dims of a], [dims of b]).
    The result holds a's free dimensions, then b's."""
    a, b = _as_tensor(a), _as_tensor(b)
    require_same_float_dtype("tensordot", a, b, ("a", "b"))
    if isinstance(dims, (int, np.integer)):
        n = int(dims)
        if not 0 <= n <= min(a.ndim, b.ndim):
            raise ArgumentError(f"tensordot: dims={n} must be between 0 and the smaller rank "
                             f"({min(a.ndim, b.ndim)}) of shapes {list(a.shape)} and "
                             f"{list(b.shape)}")
        dims_a, dims_b = list(range(a.ndim - n, a.ndim)), list(range(n))
    else:
        if len(dims) != 2:
            raise ArgumentError(f"tensordot: dims must be an int or a pair of lists, got {dims!r}")
        dims_a, dims_b = ([d] if isinstance(d, (int, np.integer)) else list(d) for d in dims)
        if len(dims_a) != len(dims_b):
            raise ArgumentError(f"tensordot: dims lists {dims_a} and {dims_b} differ in length")
    letters = string.ascii_letters
    try:
        dims_a = [int(d) + a.ndim if d < 0 else int(d) for d in dims_a]
        dims_b = [int(d) + b.ndim if d < 0 else int(d) for d in dims_b]
        sub_a = list(letters[:a.ndim])
        sub_b = list(letters[a.ndim:a.ndim + b.ndim])
        for da, db in zip(dims_a, dims_b):
            if a.shape[da] != b.shape[db]:
                raise ArgumentError(f"tensordot: dimension {da} of a (size {a.shape[da]}) and "
                                 f"dimension {db} of b (size {b.shape[db]}) can't be contracted: "
                                 f"sizes differ (shapes {list(a.shape)} and {list(b.shape)})")
            sub_b[db] = sub_a[da]
    except IndexError:
        raise IndexError(f"tensordot: dims {dims_a}, {dims_b} out of range for shapes "
                         f"{list(a.shape)} and {list(b.shape)}") from None
    free = [c for i, c in enumerate(sub_a) if i not in dims_a] + \
        [c for i, c in enumerate(sub_b) if i not in dims_b]
    return einsum(f"{''.join(sub_a)},{''.join(sub_b)}->{''.join(free)}", a, b)


@tensor_method("cross")
def cross(input, other, dim=None, *, axis=None):
    """Cross product of 3-vectors along `dim` (input and other broadcast); by default, as
    torch.cross, the first dimension of size 3."""
    a, b = _as_tensor(input), _as_tensor(other)
    require_same_float_dtype("cross", a, b, ("input", "other"))
    refuse_kinds(a, "b", "cross")
    a, b = broadcast_tensors(*promote(a, b))
    dim = axis if dim is None else dim
    if dim is None:
        dim = next((i for i, n in enumerate(a.shape) if n == 3), None)
        if dim is None:
            raise ArgumentError(f"cross: no dimension of size 3 in shape {list(a.shape)}; pass "
                             "dim= naming the dimension that holds the 3-vectors")
    if not -a.ndim <= dim < a.ndim:
        raise IndexError(f"cross: dim {dim} is out of range for a tensor of {a.ndim} "
                         f"dimensions (expected one in [{-a.ndim}, {a.ndim - 1}])")
    if a.shape[dim] != 3:
        raise ArgumentError(f"cross: dimension {dim} of shape {list(a.shape)} must exist and have "
                         "size 3 (it holds the 3-vectors)")
    x0, x1, x2 = (select(a, dim, i) for i in range(3))
    y0, y1, y2 = (select(b, dim, i) for i in range(3))
    return stack([x1 * y2 - x2 * y1, x2 * y0 - x0 * y2, x0 * y1 - x1 * y0], dim)


@tensor_method("kron")
def kron(a, b):
    """Kronecker product: block (i, j, ...) of the result is a[i, j, ...] * b; the shorter
    shape is padded with leading 1s."""
    a, b = promote(_as_tensor(a), _as_tensor(b))
    n = max(a.ndim, b.ndim)
    sa = (1,) * (n - a.ndim) + a.shape
    sb = (1,) * (n - b.ndim) + b.shape
    prod = reshape(a, tuple(d for s in sa for d in (s, 1))) * \
        reshape(b, tuple(d for s in sb for d in (1, s)))
    return reshape(prod, tuple(x * y for x, y in zip(sa, sb)))


def cdist(x1, x2, p=2.0, compute_mode=None):
    """p-norm distances between the rows of x1 [B.., P, M] and of x2 [B.., R, M]: [B.., P, R].
    The gradient at distance 0 is 0 (as torch's for p=2). `compute_mode` (PyTorch's choice of
    a faster, less exact method) is accepted; the distances are always computed directly."""
    x1, x2 = _as_tensor(x1), _as_tensor(x2)
    for x in (x1, x2):
        refuse_kinds(x, "biu", "cdist", DTypeError)
        if x._data.dtype == np.float16:
            raise DTypeNotImplemented('"cdist" not implemented for float16 tensors, as in '
                                      "PyTorch; compute in float32: cdist(x1.float(), x2.float())")
    if x1._data.dtype != x2._data.dtype:
        raise DTypeError(f"cdist: x1 is {x1.dtype} and x2 is {x2.dtype}; PyTorch wants one "
                         "dtype: convert one of them (x2.to(x1.dtype))")
    if x1.ndim < 2 or x2.ndim < 2 or x1.shape[-1] != x2.shape[-1]:
        raise ArgumentError(f"cdist: expected x1 [..., P, M] and x2 [..., R, M] with the same M, "
                         f"got shapes {list(x1.shape)} and {list(x2.shape)}")
    if p < 0:
        raise ArgumentError(f"cdist: p must be >= 0, got {p}")
    return norm(unsqueeze(x1, -2) - unsqueeze(x2, -3), p, -1)
