"""In-place Tensor methods (`x.add_(y)`, `x += y`, `x.zero_()`, ...), all made one way.

`x.op_(...)` computes the out-of-place `op(before, ...)`, where `before` is x's
old value and history (`Tensor._before_inplace`: a private copy of the data when a
graph is recorded, whose rules may read it), then writes the result into x's
storage, so views and arrays sharing it see the change, and x takes the result's
history (`Tensor._rebase_inplace`).

The one primitive here, `fill`, gives x's shape and dtype filled with a value
(broadcast), with zero gradient to x: the new history of `fill_`, `zero_`, `copy_`.
"""
import numpy as np

from .._core.dispatch import apply, refresh_view
from .._core.errors import ShapeError
from .._core.grad_mode import state as _grad_state
from .._core.primitive import REGISTRY, Primitive
from .._core.tensor import Tensor
from . import activation, elementwise
from ._batch import aligned
from .elementwise import cast, zeros_like_rule

__all__ = []


def _fill_impl(x, value):
    out = np.empty_like(x)
    out[...] = value
    return out


def _fill_jvp(tangents, out, x, value):
    if tangents[1] is None:
        return zeros_like_rule(x)
    return cast(tangents[1], x.dtype).broadcast_to(x.shape)


fill_p = Primitive(
    "fill", _fill_impl,
    vjp=(lambda out_bar, out, x, value: zeros_like_rule(x),
         lambda out_bar, out, x, value: out_bar),
    jvp=_fill_jvp, saves_inputs=False, batch=lambda bdims, x, value: _fill_batch(bdims, x, value))


def _fill_batch(bdims, x, value):
    if bdims[0] is None:
        size = value.shape[bdims[1]]
        x = apply(REGISTRY["broadcast_to"], x, shape=(size,) + x.shape)
        bdims = (0, bdims[1])
    return apply(fill_p, *aligned((x, value), bdims)), 0


def fill(x, value):
    """A tensor of x's shape and dtype holding `value` (a scalar or a broadcastable tensor)."""
    return apply(fill_p, x, value)


def apply_inplace(x, op, *args, **kwargs):
    """`x` overwritten with `op(x, *args, **kwargs)`, as one in-place op; returns `x`."""
    if x._version_counter is not None and getattr(x, "_view", None) is not None:
        refresh_view(x)
    before = x._before_inplace(*args, *kwargs.values())
    before._tangent = x._tangent
    # x.mul_(x) means the old x twice
    args = [before if a is x else a for a in args]
    return write_through(x, op(before, *args, **kwargs))


def write_through(x, result):
    """x takes `result` (computed from x's old value) as its value and history, and so does
    every base x is a view of (each rewritten through its view's rule); returns x."""
    bases = _bases_to_rewrite(x, result)
    x._rebase_inplace(result)
    _current(x)
    if result._tangent is not None:
        x._tangent = result._tangent
    if any(prim.name == "as_strided" for (_, prim, _), _ in bases):
        _write_into_root(bases[-1], result, _root_positions(x, [view for view, _ in bases]))
        return x
    written = x
    for (base, prim, params), old in bases:
        _take_history(base, prim.view(old, written, **params))
        _current(base)
        written = base
    return x


def _root_positions(x, chain):
    """The position in the root (the last base of `chain`) that each entry of x reads."""
    at = np.arange(chain[-1][0].numel()).reshape(chain[-1][0].shape)
    for _, prim, params in reversed(chain):
        at = prim.impl(at, **params)
    return np.asarray(at).reshape(-1)


def _write_into_root(root_view, result, at):
    """x, a view that reads some entries of the root more than once (overlapping windows),
    took `result`: the root takes it at once, each entry from x's last copy of it (a write
    leaves the copies equal, in memory and in their history). Each view on the way is stale
    now, and takes its history from the root's when next read (`dispatch.refresh_view`)."""
    from .strided import write_last_copies
    (root, _, _), old = root_view
    new = write_last_copies(old.reshape(-1), result.reshape(-1), at)
    _take_history(root, new.reshape(root.shape))
    _current(root)


def _current(t):
    """A view whose history was just rewritten: not stale (`dispatch.refresh_view`)."""
    if getattr(t, "_view", None) is not None:
        t._view_version = t._version_counter[0]


def _bases_to_rewrite(x, result):
    """The chain of bases that `x` is a view of, each with a handle on its current history,
    when writing `result` through `x` changes what they are differentiably (else none).
    Checked before anything is written."""
    chain = []
    view = getattr(x, "_view", None)
    while view is not None and callable(view[1].view):
        chain.append(view)
        view = getattr(view[0], "_view", None)
    if _grad_state.enabled:
        _refuse_ambiguous_view_write(x, chain, result)
    if not chain or not (result._requires_grad or result._tangent is not None or any(
            base._requires_grad or base._tangent is not None for base, _, _ in chain)):
        return []
    root = chain[-1][0]
    if root._grad_fn is None and root._requires_grad and _grad_state.enabled:
        raise RuntimeError(
            f"a view of a leaf tensor of shape {list(root.shape)} that requires grad is being "
            "modified in place; do it under fluxgrad.no_grad(), or on a copy (x = x.clone())")
    return [(view, _history(view[0])) for view in chain]


def _refuse_ambiguous_view_write(x, chain, result):
    """PyTorch's refusals of an in-place write, with grad on, through a view whose history
    can't be rewritten: one taken under no_grad of a tensor that requires grad, and one of
    several outputs of an op that returns views (split, chunk, unbind), or a view of either."""
    for t in [x] + [base for base, _, _ in chain]:
        creation = getattr(t, "_creation", None)
        if creation == "no_grad":
            raise RuntimeError(
                f"A view was created in no_grad mode and is being modified inplace with grad "
                f"mode enabled (a tensor of shape {list(x.shape)}): this is ambiguous and "
                "forbidden, as in PyTorch. Take the view with grad mode on too, or make the "
                "write under fluxgrad.no_grad() as well")
        if creation == "multi_output" and (t._requires_grad or result._requires_grad):
            raise RuntimeError(
                f"A tensor of shape {list(x.shape)} is a view and is being modified inplace. "
                "This view is the output of a function that returns multiple views (split, "
                "chunk, unbind), or a view of one; such outputs can't be modified in place "
                "while grad is recorded. Use an out-of-place op, or clone() the output first")


def _history(t):
    """A handle on `t`'s value and current history (it keeps them when `t` is rewritten)."""
    handle = Tensor._make(t._data, t._requires_grad, t._grad_fn, t._out_index)
    handle._tangent = t._tangent
    return handle


def _take_history(base, new):
    """`base`, whose memory already holds `new`'s value, takes `new`'s history and tangent.
    A write recorded by no graph (under no_grad) leaves its history as it was, as
    `Tensor._rebase_inplace` does."""
    if new._grad_fn is not None:
        base._grad_fn, base._out_index = new._grad_fn, new._out_index
        base._requires_grad = True
    base._tangent = new._tangent


def inplace_method(name, op):
    """The Tensor method `name` (e.g. 'add_') that writes `op`'s result into the tensor."""
    def method(self, *args, **kwargs):
        return apply_inplace(self, op, *args, **kwargs)
    method.__name__ = name
    method.__doc__ = (f"In-place `{name[:-1]}`: writes the result into this tensor and "
                      "returns it.")
    return method


def filling_method(name, op):
    """`fill_` / `zero_`: as `inplace_method`, and also into a view that broadcasts (stride
    0, made by expand) outside a graph, as PyTorch: every element of it holds the one value,
    so it is written into the memory the view reads (its base); other in-place ops refuse
    such a view."""
    plain = inplace_method(name, op)

    def method(self, *args, **kwargs):
        try:
            return plain(self, *args, **kwargs)
        except RuntimeError:
            view = getattr(self, "_view", None)
            if self._data.flags.writeable or view is None or \
                    view[1] is not REGISTRY["broadcast_to"] or not _numbers_only(args, kwargs) or \
                    (self._requires_grad and _grad_state.enabled):
                raise  # (PyTorch too refuses the write into such a view in a graph)
        getattr(view[0], name)(*args, **kwargs)  # (nothing was written by the refused try)
        refresh_view(self)
        return self
    method.__name__ = name
    method.__doc__ = plain.__doc__
    return method


def _numbers_only(args, kwargs):
    """No tensor among the arguments (PyTorch refuses `fill_(tensor)` into such a view)."""
    return not any(isinstance(v, Tensor) for v in (*args, *kwargs.values()))


def _zero(x):
    return fill(x, 0)


def _fill_one(x, value):
    if isinstance(value, Tensor) and value.ndim:
        raise ShapeError(f"fill_ only supports 0-dimension value tensor but got tensor with "
                         f"{value.ndim} dimensions (shape {list(value.shape)}); pass a number "
                         "or a 0-d tensor (copy_ writes a tensor of values)")
    return fill(x, value)


def _copy(x, src, non_blocking=False):
    if not isinstance(src, Tensor):
        src = Tensor(np.asarray(src))
    try:
        np.broadcast_shapes(src.shape, x.shape)
    except ValueError:
        raise RuntimeError(f"copy_: the source of shape {list(src.shape)} does not broadcast "
                           f"to the destination's shape {list(x.shape)}") from None
    return fill(x, src)


_OPS = {
    "add_": elementwise.add, "sub_": elementwise.subtract, "subtract_": elementwise.subtract,
    "mul_": elementwise.multiply, "multiply_": elementwise.multiply,
    "div_": elementwise.divide, "divide_": elementwise.divide,
    "true_divide_": elementwise.divide, "pow_": elementwise.pow, "neg_": elementwise.negative,
    "negative_": elementwise.negative, "abs_": elementwise.abs, "square_": elementwise.square,
    "sqrt_": elementwise.sqrt, "rsqrt_": elementwise.rsqrt, "exp_": elementwise.exp,
    "log_": elementwise.log, "log1p_": elementwise.log1p, "expm1_": elementwise.expm1,
    "reciprocal_": elementwise.reciprocal, "sin_": elementwise.sin, "cos_": elementwise.cos,
    "tanh_": elementwise.tanh, "sign_": elementwise.sign, "floor_": elementwise.floor,
    "ceil_": elementwise.ceil, "round_": elementwise.round, "trunc_": elementwise.trunc,
    "clamp_": elementwise.clamp, "clip_": elementwise.clamp,
    "clamp_min_": elementwise.clamp_min, "clamp_max_": elementwise.clamp_max,
    "lerp_": elementwise.lerp, "addcmul_": elementwise.addcmul,
    "addcdiv_": elementwise.addcdiv, "remainder_": elementwise.remainder,
    "fmod_": elementwise.fmod, "relu_": activation.relu, "sigmoid_": activation.sigmoid,
    "logit_": activation.logit, "fill_": _fill_one, "zero_": _zero, "copy_": _copy,
}

for _name, _op in _OPS.items():
    setattr(Tensor, _name, (filling_method if _name in ("fill_", "zero_") else inplace_method)(
        _name, _op))

Tensor.__iadd__ = Tensor.add_
Tensor.__isub__ = Tensor.sub_
Tensor.__imul__ = Tensor.mul_
Tensor.__itruediv__ = Tensor.div_
Tensor.__ipow__ = Tensor.pow_
