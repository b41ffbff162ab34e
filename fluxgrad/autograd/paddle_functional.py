"""PaddlePaddle-style functional API (`paddle.incubate.autograd`): `jvp`, `vjp`, and the lazy
`Jacobian` / `Hessian`. fluxgrad.autograd.jvp / vjp are these; PyTorch's functions of the same
names, with their own semantics, are fluxgrad.autograd.functional.jvp / vjp.

`Jacobian(func, xs)` computes nothing when built. Indexing computes only the
rows (or columns) it needs, by reverse mode (VJPs, one per row) or forward mode
(JVPs along the recorded graph, one per column), whichever needs fewer, all of
them in one vectorised pass (vmap), and caches them so overlapping requests
reuse them.
"""
import numpy as np

from .._core.engine import grad as _grad
from .._core.forward_mode import state as _forward_state
from .._core.grad_mode import enable_grad, set_grad_enabled
from .._core.static_mode import state as _static_state
from .._core.tensor import Tensor
from ..creation import ones_like, zeros_like
from ..ops.alias import alias
from .forward_grad import forward_grad
from ..func._vmap import vmap

__all__ = ["jvp", "vjp", "Jacobian", "Hessian"]


def _as_tuple(xs):
    return (xs,) if isinstance(xs, Tensor) else tuple(xs)


def _fresh(xs):
    """Inputs of their own for `xs`: a leaf for a tensor without history, a view (a node of
    its own, keeping the history) for one that requires grad, so that paths from `func` to
    the caller's graph, or between two entries of `xs` that are one tensor, are not counted."""
    return tuple(alias(x) if x.requires_grad else x.detach().requires_grad_() for x in xs)


def _nested(xs):
    """Whether the results must be differentiable: an input has history, or tangents flow."""
    return _forward_state.level > 0 or any(x.requires_grad for x in xs)


def vjp(func, xs, v=None):
    """(func(xs), vᵀJ): the cotangent `v` (ones by default) pulled back to every input."""
    single = isinstance(xs, Tensor)
    originals = _as_tuple(xs)
    xs = _fresh(originals)
    with enable_grad():
        ys = func(*xs)
    y_tuple = _as_tuple(ys)
    vs = (tuple(ones_like(y) for y in y_tuple) if v is None else _as_tuple(v))
    if len(vs) != len(y_tuple):
        raise ValueError(f"vjp: {len(y_tuple)} outputs but {len(vs)} cotangents in v")
    pairs = [(y, u) for y, u in zip(y_tuple, vs) if y.requires_grad]
    nested = _nested(originals)
    grads = (None,) * len(xs)
    if pairs:
        grads = _grad([y for y, _ in pairs], xs, [u for _, u in pairs], retain_graph=nested,
                      create_graph=nested, allow_unused=True)
    grads = tuple(zeros_like(x) if g is None else g for x, g in zip(xs, grads))
    return ys, grads[0] if single else grads


def jvp(func, xs, v=None):
    """(func(xs), J v): the tangent `v` (ones by default) pushed forward to every output."""
    single = isinstance(xs, Tensor)
    originals = _as_tuple(xs)
    xs = _fresh(originals)
    vs = tuple(ones_like(x) for x in xs) if v is None else _as_tuple(v)
    with enable_grad():
        ys = func(*xs)
    with set_grad_enabled(_nested(originals)):
        dots = forward_grad(ys, xs if not single else xs[0], vs if not single else vs[0])
    if isinstance(ys, Tensor):
        return ys, zeros_like(ys) if dots is None else dots
    return ys, tuple(zeros_like(y) if d is None else d for y, d in zip(ys, dots))


class Jacobian:
    """The Jacobian of `func` at `xs`, computed lazily row by row (or column by column).

    Inputs (a tensor or tuple of tensors) are flattened and concatenated along
    the last axis, as are outputs: shape [M, N], or [B, M, N] with
    `is_batched=True` (axis 0 of every input and output is a batch axis).
    `passes` counts the (vectorised) reverse and forward passes run so far: the rows or
    columns one indexing needs are computed together, `chunk_size` of them per pass
    (default: all at once), bounding memory.
    """

    def __new__(cls, func, xs, is_batched=False, chunk_size=None):
        if _static_state.armed:
            from ..static import jacobian
            from ..static.transforms import is_static
            if is_static(xs):
                static_cls = jacobian.Hessian if issubclass(cls, Hessian) else jacobian.Jacobian
                return static_cls(func, xs, is_batched)
        return super().__new__(cls)

    def __init__(self, func, xs, is_batched=False, chunk_size=None):
        if chunk_size is not None and (not isinstance(chunk_size, int) or
                                       isinstance(chunk_size, bool) or chunk_size < 1):
            raise ValueError(f"Jacobian: chunk_size must be a positive int or None, got "
                             f"{chunk_size!r}")
        self._func = func
        self._xs = _as_tuple(xs)
        self._batched = is_batched
        self._chunk_size = chunk_size
        self._built = False
        self._rows_cache = {}
        self._cols_cache = {}
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

    def _units(self, indices, tensors, sizes):
        """For each tensor, the stacked unit directions picking flat entries `indices` of the
        concatenation (zeros for entries of other tensors): shape [len(indices)] + shape."""
        lead = (self._b,) if self._batched else ()
        units = [np.zeros((len(indices),) + lead + (s,), t._data.dtype)
                 for t, s in zip(tensors, sizes)]
        for r, i in enumerate(indices):
            k, j = self._split(i, sizes)
            units[k][r, ..., j] = 1
        return [Tensor(u.reshape((len(indices),) + tuple(t.shape))) for u, t in zip(units, tensors)]

    def _in_passes(self, indices, compute, store):
        """Run `compute` on chunks of `indices` (each one vectorised pass, giving a block with
        one slice per index along axis 0) and note in `store` where each index's slice lies."""
        step = self._chunk_size or len(indices)
        for start in range(0, len(indices), step):
            chunk = indices[start:start + step]
            self.passes += 1
            block = compute(chunk)
            store.update((i, (block, k)) for k, i in enumerate(chunk))

    @staticmethod
    def _gather(store, indices):
        """The cached slices `indices`, stacked along axis 0 (a block as it is when it holds
        exactly these, in this order)."""
        from ..ops import stack
        block = store[indices[0]][0]
        if all(store[i][0] is block for i in indices):
            positions = [store[i][1] for i in indices]
            if positions == list(range(block.shape[0])):
                return block
            return block[Tensor(np.asarray(positions, dtype=np.int64))]
        return stack([store[i][0][store[i][1]] for i in indices])

    def _rows(self, indices):
        """Rows `indices` of J (every batch at once): one vectorised reverse pass."""
        outputs = [y for y in self._outputs if y.requires_grad]

        def pull(*seeds):
            grads = (None,) * len(self._inputs)
            if outputs:
                grads = _grad(outputs, self._inputs, seeds, retain_graph=True, allow_unused=True)
            return self._flat([zeros_like(x) if g is None else g
                               for x, g in zip(self._inputs, grads)], self._in_sizes)
        seeds = [u for u, y in zip(self._units(indices, self._outputs, self._out_sizes),
                                   self._outputs) if y.requires_grad]
        if not outputs:
            lead = (self._b,) if self._batched else ()
            return Tensor(np.zeros((len(indices),) + lead + (self._n,),
                                   self._outputs[0]._data.dtype))
        return vmap(pull)(*seeds)

    def _cols(self, indices):
        """Columns `indices` of J: one vectorised forward pass along the recorded graph."""
        def push(*tangents):
            dots = forward_grad(self._outputs, self._inputs, list(tangents))
            return self._flat([zeros_like(y) if d is None else d
                               for y, d in zip(self._outputs, dots)], self._out_sizes)
        return vmap(push)(*self._units(indices, self._inputs, self._in_sizes))

    def __getitem__(self, index):
        self._build()
        full = self._expand(index if isinstance(index, tuple) else (index,))
        r = 1 if self._batched else 0
        rows, cols = (self._positions(full[r], self._m, r), self._positions(full[r + 1], self._n,
                                                                              r + 1))
        wanted_rows, wanted_cols = np.atleast_1d(rows).tolist(), np.atleast_1d(cols).tolist()
        if not wanted_rows or not wanted_cols:
            lead = (self._b,) if self._batched else ()
            empty = Tensor(np.zeros(lead + (len(wanted_rows), len(wanted_cols)),
                                    self._outputs[0]._data.dtype))
            return self._squeezed(empty, rows, cols, full, r)
        missing_rows = list(dict.fromkeys(i for i in wanted_rows if i not in self._rows_cache))
        missing_cols = list(dict.fromkeys(j for j in wanted_cols if j not in self._cols_cache))
        if missing_rows and missing_cols:
            if len(missing_cols) < len(missing_rows):
                self._in_passes(missing_cols, self._cols, self._cols_cache)
                missing_cols = []
            else:
                self._in_passes(missing_rows, self._rows, self._rows_cache)
                missing_rows = []
        # every wanted row, or every wanted column, is cached now: [R, (B), N] or [C, (B), M]
        if not missing_rows:
            block = self._pick(self._gather(self._rows_cache, wanted_rows), wanted_cols, self._n)
            block = block.movedim(0, r)
        else:
            block = self._pick(self._gather(self._cols_cache, wanted_cols), wanted_rows, self._m)
            block = block.movedim(0, -1)
        return self._squeezed(block, rows, cols, full, r)

    def _squeezed(self, block, rows, cols, full, r):
        """`block` [(B), R, C] with the axes indexed by an int dropped, and the batch axis
        indexed."""
        if np.ndim(cols) == 0:
            block = block.squeeze(-1)
        if np.ndim(rows) == 0:
            block = block.squeeze(r)
        return block[full[0]] if self._batched else block

    @staticmethod
    def _pick(block, indices, size):
        """`block`'s entries `indices` along its last axis (of length `size`)."""
        if indices == list(range(size)):
            return block
        return block[..., Tensor(np.asarray(indices, dtype=np.int64))]

    @staticmethod
    def _positions(index, size, axis):
        """The positions an int or slice `index` picks on an axis of `size` entries."""
        if isinstance(index, (int, np.integer)) and not -size <= index < size:
            raise IndexError(f"index {index} is out of range for axis {axis} of the Jacobian, "
                             f"which has {size} entries")
        return np.arange(size)[index]

    def _expand(self, index):
        ndim = 3 if self._batched else 2
        for i in index:
            if i is not Ellipsis and not isinstance(i, (slice, list, np.ndarray)) and (
                    isinstance(i, bool) or not isinstance(i, (int, np.integer))):
                raise TypeError(f"a Jacobian is indexed with ints, slices, lists of ints and "
                                f"..., got {i!r}")
        if sum(i is Ellipsis for i in index) > 1:
            raise IndexError("a Jacobian index can have only one ellipsis (...)")
        if any(i is Ellipsis for i in index):
            at = index.index(Ellipsis)
            index = index[:at] + (slice(None),) * (ndim - len(index) + 1) + index[at + 1:]
        if len(index) > ndim:
            raise IndexError(f"too many indices for a Jacobian of {ndim} dimensions")
        return index + (slice(None),) * (ndim - len(index))


class Hessian(Jacobian):
    """The Hessian of scalar-valued `func` at `xs`: the lazy Jacobian of its gradient."""

    def __init__(self, func, xs, is_batched=False, chunk_size=None):
        xs_tuple = _as_tuple(xs)

        def gradient(*inputs):
            with enable_grad():
                y = func(*inputs)
                expected = (inputs[0].shape[0],) if is_batched else ()
                if tuple(y.shape) not in {expected, expected + (1,)} and y.numel() != 1:
                    raise ValueError(f"Hessian: func must return a scalar (or one value per "
                                     f"batch row with is_batched=True), got shape "
                                     f"{list(y.shape)}")
                grads = _grad(y.sum(), inputs, create_graph=True, allow_unused=True)
                return tuple(zeros_like(x) if g is None else g for x, g in zip(inputs, grads))
        super().__init__(gradient, xs_tuple, is_batched, chunk_size)
