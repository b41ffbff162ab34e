"""PaddlePaddle 2.5's `paddle.autograd.jacobian(ys, xs, batch_axis=None)` and
`hessian(ys, xs, batch_axis=None)`: lazy derivative matrices of outputs already computed.

`jacobian` returns a `Jacobian` per (y, x) pair: one object for a tensor `ys` and a tensor
`xs`, a tuple over the other when one is a tuple, a tuple (over ys) of tuples (over xs)
when both are. With `batch_axis=None`, y and x are 0-d or 1-d and J is [M, N] (a 0-d one
contributes no axis); with `batch_axis=0` they are [B] or [B, M] / [B, N] and J[b, i, j] =
d y[b, i] / d x[b, j] is [B, M, N] (the batch's examples must not depend on each other).
Nothing is computed when it is built: indexing computes the rows (output entries) it
selects, one reverse pass each, and caches them. Rows come from `incubate.autograd.grad`,
so the same code works on eager tensors (the rows stay differentiable) and on static
Variables (the rows are staged into the program, prim on or off).

`hessian(ys, xs)` is `jacobian(jacobian(ys, xs), xs)` for a 0-d `ys` ([B] with
`batch_axis=0`): a Hessian object, or a tuple of tuples H[i][j] = d2 y / dx_i dx_j.
"""
from .._core.tensor import Tensor

__all__ = ["Jacobian", "jacobian", "hessian"]


class Jacobian:
    """The lazy Jacobian of one output with respect to one input (see the module docstring)."""

    def __init__(self, y, x, batch_axis=None):
        if isinstance(y, Jacobian):
            y = y[:]
        if batch_axis not in (None, 0):
            raise ValueError(f"jacobian: batch_axis must be None or 0, got {batch_axis!r}")
        lead = 0 if batch_axis is None else 1
        for t, what in ((y, "ys"), (x, "xs")):
            if not isinstance(t, Tensor):
                raise TypeError(f"jacobian: {what} must hold tensors, got {type(t).__name__}")
            if not lead <= t.ndim <= lead + 1:
                allowed = "0-d or 1-d" if batch_axis is None else "1-d [B] or 2-d [B, N]"
                raise ValueError(f"jacobian: with batch_axis={batch_axis} every tensor of {what} "
                                 f"must be {allowed}, got shape {list(t.shape)}")
        if lead and y.shape[0] != x.shape[0]:
            raise ValueError(f"jacobian: batch_axis=0 but ys has batch size {y.shape[0]} and "
                             f"xs {x.shape[0]}")
        self._y, self._x, self._lead = y, x, lead
        self._m = y.shape[lead] if y.ndim > lead else None  # None: no row axis
        self._rows = {}

    @property
    def shape(self):
        batch = [self._y.shape[0]] if self._lead else []
        rows = [] if self._m is None else [self._m]
        return batch + rows + list(self._x.shape[self._lead:])

    def _row(self, i):
        """d y_i / d x: [*x.shape], the batch summed over (its examples are independent)."""
        row = self._rows.get(i)
        if row is None:
            from .autograd import grad
            from ..ops import sum as reduce_sum
            y = self._y if i is None else self._y[(slice(None),) * self._lead + (i,)]
            target = reduce_sum(y) if y.ndim else y
            # an eager output without history (a derivative that is a constant) has rows of 0
            row = self._rows[i] = grad(target, self._x) if target.requires_grad \
                else self._row_zero()
        return row

    def __getitem__(self, index):
        from ..ops import stack
        if self._m is None:
            return self._row(None)[index]
        index = index if isinstance(index, tuple) else (index,)
        if any(i is Ellipsis for i in index):
            raise IndexError("Jacobian: Ellipsis indexing is not supported (as in PaddlePaddle)")
        rows_index = index[self._lead] if len(index) > self._lead else slice(None)
        needed = range(self._m)[rows_index] if isinstance(rows_index, (int, slice)) \
            else [int(r) for r in rows_index]
        needed = {needed} if isinstance(needed, int) else set(needed)
        zero = None
        rows = []
        for i in range(self._m):
            if i in needed:
                rows.append(self._row(i))
            else:  # never selected by `index`: a stand-in
                zero = zero if zero is not None else self._row_zero()
                rows.append(zero)
        full = stack(rows, axis=self._lead)
        return full[index]

    def _row_zero(self):
        from ..creation import zeros_like
        return zeros_like(self._x)

    def __repr__(self):
        return f"<Jacobian of shape {self.shape}: {len(self._rows)} rows computed>"


def _is_tensor_like(t):
    return isinstance(t, (Tensor, Jacobian))


def jacobian(ys, xs, batch_axis=None):
    """See the module docstring."""
    if _is_tensor_like(ys) and _is_tensor_like(xs):
        return Jacobian(ys, xs, batch_axis)
    if _is_tensor_like(ys):
        return tuple(Jacobian(ys, x, batch_axis) for x in xs)
    if _is_tensor_like(xs):
        return tuple(Jacobian(y, xs, batch_axis) for y in ys)
    return tuple(tuple(Jacobian(y, x, batch_axis) for x in xs) for y in ys)


def hessian(ys, xs, batch_axis=None):
    """See the module docstring."""
    if not isinstance(ys, Tensor):
        raise TypeError(f"hessian: ys must be one tensor (a scalar), got {type(ys).__name__}")
    expected = 0 if batch_axis is None else 1
    if ys.ndim != expected:
        raise ValueError(f"hessian: with batch_axis={batch_axis} ys must be "
                         f"{'0-d' if batch_axis is None else '1-d [B]'}, got shape "
                         f"{list(ys.shape)}")
    return jacobian(jacobian(ys, xs, batch_axis), xs, batch_axis)
