"""PaddlePaddle's loss functions by their Paddle names, as composites of fluxgrad ops:
`square_error_cost(input, label)` = (input - label)^2 elementwise, and
`softmax_with_cross_entropy(logits, label, soft_label=False, ignore_index=-100,
numeric_stable_mode=True, return_softmax=False, axis=-1)`: the per-example cross entropy of
softmax(logits) along `axis`, keeping that axis with size 1 (hard labels: int class indices
of size 1 on `axis`, entries equal to `ignore_index` give 0; soft labels: probabilities of
logits' shape); with `return_softmax` also the softmax. (`sigmoid_cross_entropy_with_logits`
is `fluid.layers`' only, not Paddle 2's public API: use `binary_cross_entropy_with_logits`.)
"""
from .. import ops
from .._core.errors import ShapeError
from .._core.tensor import Tensor
from ..creation import as_tensor

__all__ = ["square_error_cost", "softmax_with_cross_entropy"]


def square_error_cost(input, label):
    """(input - label)^2, elementwise (PaddlePaddle's regression cost; no reduction)."""
    diff = input - label
    return diff * diff


def softmax_with_cross_entropy(logits, label, soft_label=False, ignore_index=-100,
                               numeric_stable_mode=True, return_softmax=False, axis=-1):
    """See the module docstring."""
    from .functional import cross_entropy
    op = "softmax_with_cross_entropy"
    logits = logits if isinstance(logits, Tensor) else as_tensor(logits)
    label = label if isinstance(label, Tensor) else as_tensor(label)
    if not -logits.ndim <= axis < logits.ndim:
        raise ValueError(f"{op}: axis {axis} is out of range for logits of shape "
                         f"{list(logits.shape)}")
    axis %= logits.ndim
    if soft_label:
        if label.shape != logits.shape:
            raise ShapeError(f"{op}: soft labels must have the logits' shape "
                             f"{list(logits.shape)}, got {list(label.shape)}")
    else:
        expected = list(logits.shape)
        expected[axis] = 1
        if list(label.shape) != expected or label.dtype.is_floating_point:
            raise ShapeError(f"{op}: hard labels must be integer class indices of shape "
                             f"{expected} (size 1 on axis {axis}), got {label.dtype} of shape "
                             f"{list(label.shape)}; pass soft_label=True for probabilities")
        label = ops.squeeze(label, axis)
    loss = cross_entropy(logits, label, reduction="none", ignore_index=ignore_index, axis=axis,
                         soft_label=bool(soft_label))
    loss = ops.unsqueeze(loss, axis)
    if return_softmax:
        return loss, ops.softmax(logits, axis)
    return loss
