"""`fluxgrad.metric`: PaddlePaddle's `metric.accuracy`, written in fluxgrad ops so that it runs
eagerly and is staged in a static program (`static.accuracy` is the same function), and the
`Accuracy` metric (eager): `compute(pred, label)` gives the [N, max(topk)] float32 hits of
the top predictions, `update(correct)` adds a batch and returns its accuracy,
`accumulate()` the accuracy over every batch since `reset()` (one number per `topk` entry,
a float when there is one), `name()` the names (`['acc']`, or `['acc_top1', 'acc_top5']`)."""
import numpy as np

from . import ops
from ._core.dtypes import bool_, float32
from ._core.grad_mode import no_grad
from ._core.tensor import Tensor
from .creation import as_tensor, zeros

__all__ = ["accuracy", "Metric", "Accuracy"]


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


class Metric:
    """PaddlePaddle's metric interface: `reset`, `update`, `accumulate`, `name`, and
    `compute` (the per-batch work done before `update`; by default its inputs unchanged)."""

    def reset(self):
        raise NotImplementedError

    def update(self, *args):
        raise NotImplementedError

    def accumulate(self):
        raise NotImplementedError

    def name(self):
        raise NotImplementedError

    def compute(self, *args):
        return args


class Accuracy(Metric):
    """See the module docstring. `label` is [N] or [N, 1] class indices, or one-hot [N, C]."""

    def __init__(self, topk=(1,), name=None, *args, **kwargs):
        topk = (topk,) if isinstance(topk, int) else tuple(topk)
        if not topk or any(not isinstance(k, int) or isinstance(k, bool) or k < 1
                           for k in topk):
            raise ValueError(f"Accuracy: topk must be positive ints, got {topk!r}")
        self.topk, self.maxk = topk, max(topk)
        base = name or "acc"
        self._names = [f"{base}_top{k}" for k in topk] if self.maxk != 1 else [base]
        self.reset()

    def compute(self, pred, label, *args):
        pred = pred if isinstance(pred, Tensor) else as_tensor(pred)
        label = label if isinstance(label, Tensor) else as_tensor(label)
        if pred.ndim < 1 or pred.shape[-1] < self.maxk:
            raise ValueError(f"Accuracy.compute: pred must be scores [..., C] with C >= "
                             f"{self.maxk} (the largest topk), got shape {list(pred.shape)}")
        with no_grad():
            if label.ndim == pred.ndim and label.shape[-1] == pred.shape[-1] and \
                    pred.shape[-1] != 1:
                label = ops.argmax(label, dim=-1, keepdim=True)  # one-hot
            elif label.ndim == pred.ndim - 1:
                label = label.unsqueeze(-1)
            if label.shape[-1] != 1 or label.shape[:-1] != pred.shape[:-1]:
                raise ValueError(f"Accuracy.compute: label must be class indices of shape "
                                 f"{list(pred.shape[:-1])} or {list(pred.shape[:-1]) + [1]}, "
                                 f"got {list(label.shape)}")
            top = ops.topk(pred, self.maxk, dim=-1)[1]
            return (top == label.to(top.dtype)).to(float32)

    def update(self, correct, *args):
        correct = np.asarray(correct._data if isinstance(correct, Tensor) else correct)
        samples = int(np.prod(correct.shape[:-1]))
        accs = []
        for i, k in enumerate(self.topk):
            hits = float(correct[..., :k].sum())
            self.total[i] += hits
            self.count[i] += samples
            accs.append(hits / samples if samples else 0.0)
        return accs[0] if len(accs) == 1 else accs

    def reset(self):
        self.total = [0.0] * len(self.topk)
        self.count = [0] * len(self.topk)

    def accumulate(self):
        res = [t / c if c else 0.0 for t, c in zip(self.total, self.count)]
        return res[0] if len(res) == 1 else res

    def name(self):
        return list(self._names)
