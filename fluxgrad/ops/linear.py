"""`linear_p(b, x, w)`: PyTorch's linear layer with a bias, `x @ w^T + b`, as one primitive.

x [..., in], w [out, in] (PyTorch's layout), b [out], all of one real floating dtype; the
bias first, as in PyTorch's `addmm(bias, x, w^T)`, so that a backward pass delivers the
gradients of b, x and w in PyTorch's order (the leaves' hooks run as there)
(`F.linear` sends what it can't take, and a layer without a bias, to `matmul` and `add`).
The product is matmul's impl on w's transposed view (BLAS reads it as it lies, no copy);
the bias is added into the fresh product in place: the values of `matmul(x, w.mT) + b`,
with one array and one pass fewer, and one dispatched op where the composite took three
(a transpose, the product, the add), each with its graph node.

The rules read as the math and take arrays or Tensors alike (`array_rules`: a backward pass
that records nothing runs them on the arrays): x_bar = out_bar @ w; w_bar = out_bar^T @ x
over every row of the batch (a C-contiguous [out, in] product, stored as the weight's
gradient without a copy); b_bar = out_bar, summed over the batch where the engine fits it
to b's shape, as for `add`. The op is linear in (b, x) together, for static reverse mode.
"""
import math

from .._core.dispatch import apply
from .._core.primitive import Primitive
from ._batch import front
from .linalg import _matmul_impl
from .shape import broadcast_to, reshape, unsqueeze

__all__ = []


def _linear(b, x, w):
    out = _matmul_impl(x, w.T)
    out += b
    return out


def _product(x, w):
    """x @ w^T with x's leading dimensions folded into one: a single 2-D product."""
    rows = math.prod(x.shape[:-1])
    return (x.reshape(rows, w.shape[1]) @ w.mT).reshape(x.shape[:-1] + w.shape[:1])


def _x_bar(out_bar, out, b, x, w):
    rows = math.prod(x.shape[:-1])
    return (out_bar.reshape(rows, w.shape[0]) @ w).reshape(x.shape)


def _w_bar(out_bar, out, b, x, w):
    rows = math.prod(x.shape[:-1])
    return out_bar.reshape(rows, w.shape[0]).mT @ x.reshape(rows, w.shape[1])


def _b_bar(out_bar, out, b, x, w):
    return out_bar


def _jvp(tangents, out, b, x, w):
    b_dot, x_dot, w_dot = tangents
    out_dot = b_dot  # (broadcast to the output's shape by the forward-mode machinery)
    for term in (None if w_dot is None else _product(x, w_dot),
                 None if x_dot is None else _product(x_dot, w)):
        if term is not None:
            out_dot = term if out_dot is None else term + out_dot
    return out_dot


def _batch(bdims, b, x, w):
    """vmap: a batch of inputs only is more rows for one product; a batch of weights or
    biases is one batched product, every operand given the batch in front."""
    bb, bx, bw = bdims
    if bw is None and bb is None:
        return apply(linear_p, b, front(x, bx), w), 0
    size = next(a.shape[d] for a, d in zip((b, x, w), bdims) if d is not None)
    b, x, w = (front(a, d) if d is not None else broadcast_to(a, (size,) + tuple(a.shape))
               for a, d in zip((b, x, w), bdims))
    lead = tuple(x.shape[1:-1])
    rows = reshape(x, (size, math.prod(lead), x.shape[-1]))
    out = rows @ w.mT + unsqueeze(b, 1)
    return reshape(out, (size,) + lead + (w.shape[1],)), 0


linear_p = Primitive("linear", _linear, vjp=(_b_bar, _x_bar, _w_bar), jvp=_jvp,
                     saves_inputs=((), (2,), (1,)), linear=(0, 1), batch=_batch,
                     array_rules=True)
