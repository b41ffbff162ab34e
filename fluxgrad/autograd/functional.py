"""PaddlePaddle-style functional API: `jvp`, `vjp`, and the lazy `Jacobian` / `Hessian`.

`Jacobian(func, xs)` computes nothing when built. Indexing computes only the
rows (or columns) it needs, by reverse mode (a VJP per row) or forward mode (a
JVP per column along the recorded graph), whichever takes fewer passes for
the request, and caches them so overlapping requests reuse them.
"""
import numpy as np

from .._core.engine import grad as _grad
from .._core.grad_mode import enable_grad
from .._core.tensor import Tensor
from ..creation import ones_like, zeros_like
from .forward_grad import forward_grad

__all__ = ["jvp", "vjp", "Jacobian", "Hessian"]


def _as_tuple(xs):
    return (xs,) if isinstance(xs, Tensor) else tuple(xs)


def _fresh(xs):
    return tuple(x.detach().requires_grad_() if not x.requires_grad else x for x in xs)


def vjp(func, xs, v=None):
    """(func(xs), vᵀJ): the cotangent `v` (ones by default) pulled back to every input."""
    single = isinstance(xs, Tensor)
    xs = _fresh(_as_tuple(xs))
    with enable_grad():
        ys = func(*xs)
    y_tuple = _as_tuple(ys)
    vs = tuple(ones_like(y) for y in y_tuple) if v is None else _as_tuple(v)
    grads = _grad(y_tuple, xs, vs, allow_unused=True)
    grads = tuple(zeros_like(x) if g is None else g for x, g in zip(xs, grads))
    return ys, grads[0] if single else grads


def jvp(func, xs, v=None):
    """(func(xs), J v): the tangent `v` (ones by default) pushed forward to every output."""
    single = isinstance(xs, Tensor)
    xs = _fresh(_as_tuple(xs))
    vs = tuple(ones_like(x) for x in xs) if v is None else _as_tuple(v)
    with enable_grad():
        ys = func(*xs)
    dots = forward_grad(ys, xs if not single else xs[0], vs if not single else vs[0])
    if isinstance(ys, Tensor):
        return ys, zeros_like(ys) if dots is None else dots
    return ys, tuple(zeros_like(y) if d is None else d for y, d in zip(ys, dots))


class Jacobian:
    """The Jacobian of `func` at `xs`, computed lazily row by row (or column by column).

    Inputs (a tensor or tuple of tensors) are flattened and concatenated along
    the last axis, as are outputs: shape [M, N], or [B, M, N] with
    `is_batched=True` (axis 0 of every input and output is a batch axis).
    `passes` counts the reverse and forward passes run so far.
    """

    def __init__(self, func, xs, is_batched=False):
        self._func = func
        self._xs = _as_tuple(xs)
        self._batched = is_batched
        self._built = False
        self._rows = {}
        self._cols = {}
        self.passes = 0

    def _build(self):
        if self._built:
            return
        xs = _fresh(self._xs)
        with enable_grad():
            ys = _as_tuple(self._func(*xs))
        self._inputs, self._outputs = xs, ys
        lead = 1 if self._batched else 0
        if self._batched:
            sizes = {x.shape[0] for x in xs + ys if x.ndim}
            if len(sizes) > 1:
                raise ValueError(f"Jacobian(is_batched=True): inputs and outputs disagree on the "
                                 f"batch size (axis 0): {sorted(sizes)}")
            self._b = xs[0].shape[0]
        self._in_sizes = [int(np.prod(x.shape[lead:])) for x in xs]
        self._out_sizes = [int(np.prod(y.shape[lead:])) for y in ys]
        self._m, self._n = sum(self._out_sizes), sum(self._in_sizes)
        self._built = True

    @property
    def shape(self):
        self._build()
        return (self._b, self._m, self._n) if self._batched else (self._m, self._n)

    def _flat(self, tensors, sizes):
        from ..ops import concat
        lead = (self._b,) if self._batched else ()
        parts = [t.reshape(lead + (s,)) for t, s in zip(tensors, sizes)]
        return parts[0] if len(parts) == 1 else concat(parts, axis=-1)

    def _split(self, flat_index, sizes):
        for k, s in enumerate(sizes):
            if flat_index < s:
                return k, flat_index
            flat_index -= s
        raise IndexError(flat_index)

    def _row(self, i):
        """Row i of J (every batch at once): one reverse pass."""
        k, j = self._split(i, self._out_sizes)
        y = self._outputs[k]
        lead = (self._b,) if self._batched else ()
        e = np.zeros(lead + (self._out_sizes[k],), y._data.dtype)
        e[..., j] = 1
        self.passes += 1
        if not y.requires_grad:
            return Tensor(np.zeros(lead + (self._n,), y._data.dtype))
        grads = _grad(y, self._inputs, Tensor(e.reshape(y.shape)), retain_graph=True,
                      allow_unused=True)
        grads = [zeros_like(x) if g is None else g for x, g in zip(self._inputs, grads)]
        return self._flat(grads, self._in_sizes)

    def _col(self, j):
        """Column j of J: one forward pass along the recorded graph."""
        k, jj = self._split(j, self._in_sizes)
        lead = (self._b,) if self._batched else ()
        tangents = []
        for m, x in enumerate(self._inputs):
            t = np.zeros(lead + (self._in_sizes[m],), x._data.dtype)
            if m == k:
                t[..., jj] = 1
            tangents.append(Tensor(t.reshape(x.shape)))
        self.passes += 1
        dots = forward_grad(self._outputs, self._inputs, tangents)
        dots = [zeros_like(y) if d is None else d for y, d in zip(self._outputs, dots)]
        return self._flat(dots, self._out_sizes)

    def __getitem__(self, index):
        from ..ops import stack
        self._build()
        full = self._expand(index if isinstance(index, tuple) else (index,))
        r = 1 if self._batched else 0
        rows, cols = np.arange(self._m)[full[r]], np.arange(self._n)[full[r + 1]]
        wanted_rows, wanted_cols = np.atleast_1d(rows).tolist(), np.atleast_1d(cols).tolist()
        missing_rows = [i for i in wanted_rows if i not in self._rows]
        missing_cols = [j for j in wanted_cols if j not in self._cols]
        if missing_rows and missing_cols:
            if len(missing_cols) < len(missing_rows):
                self._cols.update((j, self._col(j)) for j in missing_cols)
            else:
                self._rows.update((i, self._row(i)) for i in missing_rows)
        picked = Tensor(np.asarray(wanted_cols, dtype=np.int64))
        block = stack([self._rows[i][..., picked] if i in self._rows else
                       stack([self._cols[j][..., i] for j in wanted_cols], axis=-1)
                       for i in wanted_rows], axis=r)
        if np.ndim(cols) == 0:
            block = block.squeeze(-1)
        if np.ndim(rows) == 0:
            block = block.squeeze(r)
        return block[full[0]] if self._batched else block

    def _expand(self, index):
        ndim = 3 if self._batched else 2
        if any(i is Ellipsis for i in index):
            at = index.index(Ellipsis)
            index = index[:at] + (slice(None),) * (ndim - len(index) + 1) + index[at + 1:]
        if len(index) > ndim:
            raise IndexError(f"too many indices for a Jacobian of {ndim} dimensions")
        return index + (slice(None),) * (ndim - len(index))


class Hessian(Jacobian):
    """The Hessian of scalar-valued `func` at `xs`: the lazy Jacobian of its gradient."""

    def __init__(self, func, xs, is_batched=False):
        xs_tuple = _as_tuple(xs)

        def gradient(*inputs):
            with enable_grad():
                y = func(*inputs)
                expected = (inputs[0].shape[0],) if is_batched else ()
                if tuple(y.shape) not in {expected, expected + (1,)} and y.numel() != 1:
                    raise ValueError(f"Hessian: func must return a scalar (or one value per "
                                     f"batch row with is_batched=True), got shape "
                                     f"{list(y.shape)}")
                return _grad(y.sum(), inputs, create_graph=True, allow_unused=True)
        super().__init__(gradient, xs_tuple, is_batched)
