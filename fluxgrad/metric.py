"""`fluxgrad.metric`: PaddlePaddle's `metric.accuracy`, written in fluxgrad ops so that it runs
eagerly and is staged in a static program (`static.accuracy` is the same function)."""
from . import ops
from ._core.dtypes import bool_, float32
from ._core.grad_mode import no_grad
from ._core.tensor import Tensor
from .creation import as_tensor, zeros

__all__ = ["accuracy"]


def accuracy(input, label, k=1, correct=None, total=None, name=None):
    """The fraction of rows of `input` ([N, C] scores) whose `label` ([N] or [N, 1] integer
    class indices) is among the row's `k` highest scores, a float32 scalar outside the graph.
    Eagerly, `correct` and `total` (tensors) receive the hit and row counts."""
    input = input if isinstance(input, Tensor) else as_tensor(input)
    label = label if isinstance(label, Tensor) else as_tensor(label)
    if input.ndim != 2:
        raise ValueError(f"accuracy: input must be [N, C] scores, got shape {list(input.shape)}")
    from .static.program import Variable  # fluxgrad.static imports this module
    staged = isinstance(input, Variable) or isinstance(label, Variable)
    if label.ndim not in (1, 2) or label.ndim == 2 and label.shape[1] != 1 or \
            not staged and label.shape[0] != input.shape[0] or \
            label.dtype.is_floating_point or label.dtype == bool_:
        raise ValueError(f"accuracy: label must be N={input.shape[0]} integer class indices of "
                         f"shape [N] or [N, 1], got {label.dtype} of shape {list(label.shape)}")
    if not 1 <= int(k) <= input.shape[1]:
        raise ValueError(f"accuracy: k must be between 1 and the {input.shape[1]} classes, "
                         f"got {k}")
    if staged and (correct is not None or total is not None):
        raise NotImplementedError("accuracy: correct= and total= are not supported in a static "
                                  "program; compute the counts from the result and the batch size")
    with no_grad():
        top = ops.topk(input, int(k), dim=1)[1]
        hits = ops.any(top == label.reshape(-1, 1), dim=1)
        if not staged and hits.shape[0] == 0:
            return zeros((), dtype=float32)
        if correct is not None:
            correct.fill_(ops.sum(hits))
        if total is not None:
            total.fill_(hits.shape[0])
        return ops.mean(hits.to(float32))
