"""`fluxgrad.data` (alias `fluxgrad.io`): datasets and a batching, shuffling DataLoader.

Shuffling and `random_split` draw from fluxgrad's generator, so
`fluxgrad.manual_seed` makes them repeat.
"""
import numbers

import numpy as np

from .._core.tensor import Tensor
from ..creation import get_rng
from .distributed import DistributedSampler  # noqa: F401

__all__ = ["Dataset", "TensorDataset", "Subset", "DataLoader", "random_split", "default_collate"]


class Dataset:
    """A sized, indexable collection of samples: subclass it with `__getitem__` and `__len__`."""

    def __getitem__(self, index):
        raise NotImplementedError(f"{type(self).__name__} must define __getitem__")

    def __len__(self):
        raise NotImplementedError(f"{type(self).__name__} must define __len__")


class TensorDataset(Dataset):
    """Samples are the i-th rows of each tensor (all with the same first dimension)."""

    def __init__(self, *tensors):
        if not tensors:
            raise ValueError("TensorDataset needs at least one tensor")
        tensors = [t if isinstance(t, Tensor) else Tensor(t) for t in tensors]
        sizes = {t.shape[0] if t.ndim else None for t in tensors}
        if len(sizes) != 1 or None in sizes:
            raise ValueError(f"TensorDataset: every tensor needs the same first dimension, got "
                             f"shapes {[list(t.shape) for t in tensors]}")
        self.tensors = tuple(tensors)

    def __getitem__(self, index):
        return tuple(Tensor._make(t._data[index]) for t in self.tensors)

    def __len__(self):
        return self.tensors[0].shape[0]


class Subset(Dataset):
    def __init__(self, dataset, indices):
        self.dataset, self.indices = dataset, list(indices)

    def __getitem__(self, index):
        if isinstance(index, (list, np.ndarray)):
            return self.dataset[[self.indices[i] for i in index]]
        return self.dataset[self.indices[index]]

    def __len__(self):
        return len(self.indices)


def random_split(dataset, lengths, generator=None):
    """Split into non-overlapping Subsets of the given lengths (or fractions summing to 1)."""
    n = len(dataset)
    lengths = list(lengths)
    if lengths and all(isinstance(x, float) and 0 <= x <= 1 for x in lengths) and \
            abs(sum(lengths) - 1) < 1e-6:
        counts = [int(np.floor(n * f)) for f in lengths]
        for i in range(n - sum(counts)):
            counts[i % len(counts)] += 1
        lengths = counts
    if sum(lengths) != n:
        raise ValueError(f"random_split: the lengths {lengths} sum to {sum(lengths)}, but the "
                         f"dataset has {n} samples")
    perm = (generator or get_rng()).permutation(n)
    out, start = [], 0
    for length in lengths:
        out.append(Subset(dataset, perm[start:start + length].tolist()))
        start += length
    return out


def default_collate(samples):
    """Stack a list of samples into a batch, keeping tuple/dict structure."""
    first = samples[0]
    if isinstance(first, Tensor):
        return Tensor._make(np.stack([s._data for s in samples]))
    if isinstance(first, np.ndarray):
        return Tensor._make(np.stack(samples))
    if isinstance(first, numbers.Number):
        return Tensor(np.asarray(samples))
    if isinstance(first, dict):
        return {k: default_collate([s[k] for s in samples]) for k in first}
    if isinstance(first, (tuple, list)):
        return type(first)(default_collate(list(group)) for group in zip(*samples)) \
            if isinstance(first, tuple) else [default_collate(list(g)) for g in zip(*samples)]
    return samples


class DataLoader:
    """Iterate a dataset in batches; `shuffle` reorders every epoch with fluxgrad's generator.

    A TensorDataset with the default collate is batched by slicing whole arrays
    (no per-sample Python work).
    """

    def __init__(self, dataset, batch_size=1, shuffle=False, sampler=None, batch_sampler=None,
                 num_workers=0, collate_fn=None, drop_last=False, generator=None, **kwargs):
        if batch_size is not None and int(batch_size) < 1:
            raise ValueError(f"DataLoader: batch_size must be positive, got {batch_size}")
        self.dataset, self.batch_size, self.shuffle = dataset, batch_size, shuffle
        self.sampler, self.batch_sampler = sampler, batch_sampler
        self.collate_fn, self.drop_last, self.generator = collate_fn, drop_last, generator

    def _batches(self):
        if self.batch_sampler is not None:
            yield from self.batch_sampler
            return
        if self.sampler is not None:
            order = list(self.sampler)
        elif self.shuffle:
            order = (self.generator or get_rng()).permutation(len(self.dataset))
        else:
            order = np.arange(len(self.dataset))
        bs = self.batch_size
        for start in range(0, len(order), bs):
            batch = order[start:start + bs]
            if len(batch) < bs and self.drop_last:
                return
            yield batch

    def __iter__(self):
        fast = isinstance(self.dataset, TensorDataset) and self.collate_fn is None
        collate = self.collate_fn or default_collate
        for batch in self._batches():
            if fast:
                idx = np.asarray(batch)
                yield [Tensor._make(t._data[idx]) for t in self.dataset.tensors]
            else:
                yield collate([self.dataset[int(i)] for i in batch])

    def __len__(self):
        if self.batch_sampler is not None:
            return len(self.batch_sampler)
        n = len(self.sampler) if self.sampler is not None else len(self.dataset)
        return n // self.batch_size if self.drop_last else -(-n // self.batch_size)
