"""`fluxgrad.metric`: PaddlePaddle's `metric.accuracy`."""
import numpy as np

from ._core.tensor import Tensor

__all__ = ["accuracy"]


def accuracy(input, label, k=1, correct=None, total=None, name=None):
    """The fraction of rows of `input` ([N, C] scores) whose `label` ([N] or [N, 1]) is among
    the row's `k` highest scores, as a float32 scalar tensor (outside the graph)."""
    scores = input._data if isinstance(input, Tensor) else np.asarray(input)
    labels = label._data if isinstance(label, Tensor) else np.asarray(label)
    if scores.ndim != 2:
        raise ValueError(f"accuracy: input must be [N, C] scores, got shape {list(scores.shape)}")
    if labels.shape not in ((scores.shape[0],), (scores.shape[0], 1)) or \
            labels.dtype.kind not in "iu":
        raise ValueError(f"accuracy: label must be N={scores.shape[0]} integer class indices of "
                         f"shape [N] or [N, 1], got shape {list(labels.shape)} ({labels.dtype})")
    if not 1 <= int(k) <= scores.shape[1]:
        raise ValueError(f"accuracy: k must be between 1 and the {scores.shape[1]} classes, "
                         f"got {k}")
    top = np.argsort(-scores, axis=1, kind="stable")[:, :int(k)]
    hits = (top == labels.reshape(-1, 1)).any(axis=1)
    if correct is not None:
        correct._data[...] = hits.sum()
    if total is not None:
        total._data[...] = hits.size
    return Tensor._make(np.asarray(hits.mean() if hits.size else 0.0, np.float32))
