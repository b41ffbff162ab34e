"""Lazy Jacobian and Hessian of a function of static Variables.

`Jacobian(func, xs, is_batched=False)` stages `func` once; indexing stages only the
rows it needs (one reverse pass each, through `transforms.grad`, so prim on/off is
respected) and caches them, so `J[:, 0, :]` then `J[:, 0:3, :]` then `J[:]` stage
rows 0, then 1-2, then the rest. Inputs and outputs are flattened and concatenated
along the last axis: J is [M, N], or [B, M, N] with `is_batched` (axis 0 of every
input and output is the batch, which may be unknown).
"""
import numpy as np

from .._core.tensor import Tensor
from . import staging
from ._ops import full_like
from .dims import Dim
from .program import Variable


class Jacobian:
    def __init__(self, func, xs, is_batched=False):
        self._single_in = isinstance(xs, Tensor)
        self._xs = [xs] if self._single_in else list(xs)
        self._program = next(x.program for x in self._xs if isinstance(x, Variable))
        with staging.guard(self._program):
            ys = func(*self._xs)
        self._ys = [ys] if isinstance(ys, Tensor) else list(ys)
        self._batched = is_batched
        lead = 1 if is_batched else 0
        self._in_sizes = [self._size(x, lead, "input") for x in self._xs]
        self._out_sizes = [self._size(y, lead, "output") for y in self._ys]
        self._m, self._n = sum(self._out_sizes), sum(self._in_sizes)
        self._rows = {}

    @staticmethod
    def _size(t, lead, what):
        dims = t.dims if isinstance(t, Variable) else t.shape
        if any(isinstance(d, Dim) for d in dims[lead:]):
            raise ValueError(f"Jacobian: an {what} of type {t.type_str} has an unknown size "
                             "outside the batch axis; the Jacobian's shape must be known")
        return int(np.prod(dims[lead:], dtype=np.int64))

    @property
    def shape(self):
        if self._batched:
            return (self._xs[0].dims[0], self._m, self._n)
        return (self._m, self._n)

    def _row(self, i):
        row = self._rows.get(i)
        if row is not None:
            return row
        from ..incubate.autograd import grad
        from ..ops import concat
        lead = 1 if self._batched else 0
        with staging.guard(self._program):
            seeds = []
            for y, size in zip(self._ys, self._out_sizes):
                unit = np.zeros(size, y._data.dtype)
                if 0 <= i < size:
                    unit[i] = 1
                unit = Tensor(unit.reshape(tuple(y.shape[lead:])))
                seeds.append(full_like(y, 0) + unit)
                i -= size
            grads = grad(self._ys, self._xs, seeds)
            head = (self._xs[0]._data.shape[0],) if self._batched else ()
            parts = [g.reshape(head + (size,)) for g, size in zip(grads, self._in_sizes)]
            row = parts[0] if len(parts) == 1 else concat(parts, axis=-1)
        self._rows[i + sum(self._out_sizes)] = row
        return row

    def __getitem__(self, index):
        from ..ops import stack
        index = index if isinstance(index, tuple) else (index,)
        if any(i is Ellipsis for i in index):
            at = index.index(Ellipsis)
            index = index[:at] + (slice(None),) * (len(self.shape) - len(index) + 1) + \
                index[at + 1:]
        index = index + (slice(None),) * (len(self.shape) - len(index))
        r = 1 if self._batched else 0
        rows = np.arange(self._m)[index[r]]
        with staging.guard(self._program):
            if np.ndim(rows) == 0:
                block = self._row(int(rows))
            else:
                block = stack([self._row(int(i)) for i in rows], axis=r)
            cols = index[r + 1]
            if not (isinstance(cols, slice) and cols == slice(None)):
                block = block[(slice(None),) * (block.ndim - 1) + (cols,)]
            if self._batched and index[0] != slice(None):
                block = block[index[0]]
        return block


class Hessian(Jacobian):
    """The lazy Hessian of scalar-valued `func` (one value per example with is_batched)."""

    def __init__(self, func, xs, is_batched=False):
        from ..incubate.autograd import grad

        def gradient(*inputs):
            y = func(*inputs)
            grads = grad(y.sum(), list(inputs))
            return grads
        super().__init__(gradient, xs, is_batched)
