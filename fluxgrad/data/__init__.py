"""`fluxgrad.data` (aliases `fluxgrad.io`, `fluxgrad.utils.data`): datasets, samplers and a
batching, shuffling DataLoader.

Shuffling and `random_split` draw from `generator=` or fluxgrad's default
generator, so `fluxgrad.manual_seed` makes them repeat.
"""
import numbers

import numpy as np

from .._core.tensor import Tensor
from ..random import numpy_generator
from .sampler import (BatchSampler, RandomSampler, Sampler, SequentialSampler,
                      SubsetRandomSampler, WeightedRandomSampler, positive_int)
from .distributed import DistributedSampler  # noqa: F401

__all__ = ["Dataset", "IterableDataset", "ChainDataset", "get_worker_info", "TensorDataset",
           "Subset", "ConcatDataset", "StackDataset", "DataLoader", "random_split",
           "default_collate", "default_convert", "Sampler", "SequentialSampler", "RandomSampler",
           "SubsetRandomSampler", "WeightedRandomSampler", "BatchSampler", "DistributedSampler"]


class Dataset:
    """A sized, indexable collection of samples: subclass it with `__getitem__` and `__len__`."""

    def __getitem__(self, index):
        raise NotImplementedError(f"{type(self).__name__} must define __getitem__")

    def __len__(self):
        raise NotImplementedError(f"{type(self).__name__} must define __len__")

    def __add__(self, other):
        return ConcatDataset([self, other])


class IterableDataset(Dataset):
    """A stream of samples: subclass it with `__iter__`. A DataLoader batches the stream in
    order (no sampler, no shuffle)."""

    def __iter__(self):
        raise NotImplementedError(f"{type(self).__name__} must define __iter__")

    def __getitem__(self, index):
        raise TypeError(f"{type(self).__name__} is an IterableDataset: iterate it, it can't "
                        "be indexed")

    def __add__(self, other):
        return ChainDataset([self, other])


class ChainDataset(IterableDataset):
    """The samples of several IterableDatasets, one stream after another."""

    def __init__(self, datasets):
        self.datasets = list(datasets)

    def __iter__(self):
        for dataset in self.datasets:
            yield from dataset

    def __len__(self):
        return sum(len(d) for d in self.datasets)


def get_worker_info():
    """None: samples are always loaded in the main process (`num_workers` is accepted and
    ignored), as PyTorch reports there."""
    return None


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
    perm = numpy_generator(generator).permutation(n)
    out, start = [], 0
    for length in lengths:
        out.append(Subset(dataset, perm[start:start + length].tolist()))
        start += length
    return out


class ConcatDataset(Dataset):
    """The samples of several datasets, one after another."""

    def __init__(self, datasets):
        self.datasets = list(datasets)
        if not self.datasets:
            raise ValueError("ConcatDataset needs at least one dataset")
        self.cumulative_sizes = np.cumsum([len(d) for d in self.datasets]).tolist()

    def __getitem__(self, index):
        if index < 0:
            index += len(self)
        if not 0 <= index < len(self):
            raise IndexError(f"ConcatDataset: index {index} is out of range for "
                             f"{len(self)} samples")
        which = int(np.searchsorted(self.cumulative_sizes, index, side="right"))
        start = self.cumulative_sizes[which - 1] if which else 0
        return self.datasets[which][index - start]

    def __len__(self):
        return self.cumulative_sizes[-1]


class StackDataset(Dataset):
    """Datasets of one length side by side: sample i is the tuple of their i-th samples
    (positional datasets) or the dict of them (keyword datasets)."""

    def __init__(self, *args, **kwargs):
        if args and kwargs:
            raise ValueError("StackDataset: give the datasets as positional or as keyword "
                             "arguments, not both")
        datasets = args or kwargs
        if not datasets:
            raise ValueError("StackDataset: at least one dataset should be passed")
        lengths = {len(d) for d in (args or kwargs.values())}
        if len(lengths) != 1:
            raise ValueError(f"StackDataset: size mismatch between datasets: lengths "
                             f"{sorted(lengths)}")
        self.datasets, self._length = datasets, lengths.pop()

    def __getitem__(self, index):
        if isinstance(self.datasets, dict):
            return {k: d[index] for k, d in self.datasets.items()}
        return tuple(d[index] for d in self.datasets)

    def __len__(self):
        return self._length


def _stack(arrays, what):
    shapes = [a.shape for a in arrays]
    for i, shape in enumerate(shapes):
        if shape != shapes[0]:
            raise RuntimeError(
                f"default_collate: {what} of sample 0 has shape {list(shapes[0])} but of sample "
                f"{i} has shape {list(shape)}, so they can't be stacked into one batch; give the "
                "samples one shape (pad or crop them), or pass a collate_fn that handles it")
    return Tensor._make(np.stack(arrays))


def default_collate(samples, _what="the tensor"):
    """Stack a list of samples into a batch, keeping dict and namedtuple structure; tuples and
    lists of fields become lists, and a field of strings (or other objects) the list or tuple
    of them as it came (as PyTorch's default_collate)."""
    first = samples[0]
    if isinstance(first, Tensor):
        return _stack([s._data for s in samples], _what)
    if isinstance(first, np.ndarray):
        return _stack(samples, _what)
    if isinstance(first, numbers.Number):
        return Tensor(np.asarray(samples))
    if isinstance(first, dict):
        return {k: default_collate([s[k] for s in samples], f"entry {k!r}") for k in first}
    if isinstance(first, (tuple, list)):
        groups = [default_collate(g, f"element {i}") for i, g in enumerate(zip(*samples))]
        return type(first)(*groups) if hasattr(first, "_fields") else groups
    return samples


def default_convert(data):
    """NumPy arrays and scalars inside `data` as tensors, the structure kept (tuples become
    lists, as PyTorch's): what a DataLoader with batch_size=None yields."""
    if isinstance(data, np.ndarray) and data.dtype.kind in "biuf":
        return Tensor(data)
    if isinstance(data, np.generic) and data.dtype.kind in "biuf":
        return Tensor(np.asarray(data))
    if isinstance(data, dict):
        return type(data)({k: default_convert(v) for k, v in data.items()})
    if isinstance(data, tuple) and hasattr(data, "_fields"):
        return type(data)(*(default_convert(d) for d in data))
    if isinstance(data, (tuple, list)):
        return [default_convert(d) for d in data]
    return data


def _check_worker_options(num_workers, timeout=0, prefetch_factor=None,
                          persistent_workers=False, **_):
    """PyTorch's checks of the options for worker processes (which fluxgrad accepts and,
    loading in the main process, otherwise ignores)."""
    if timeout < 0:
        raise ValueError(f"DataLoader: timeout option should be non-negative, got {timeout}")
    if num_workers == 0 and prefetch_factor is not None:
        raise ValueError("DataLoader: prefetch_factor option could only be specified in "
                         "multiprocessing; let num_workers > 0 to enable multiprocessing, or "
                         "leave prefetch_factor=None")
    if num_workers == 0 and persistent_workers:
        raise ValueError("DataLoader: persistent_workers option needs num_workers > 0")


class DataLoader:
    """Iterate a dataset in batches; `shuffle` reorders every epoch (from `generator`, or
    fluxgrad's default generator). PaddlePaddle's `loader()` call iterates it too.

    A TensorDataset with the default collate is batched by slicing whole arrays
    (no per-sample Python work). `batch_size=None` yields single samples, unbatched.
    """

    def __init__(self, dataset, batch_size=1, shuffle=False, sampler=None, batch_sampler=None,
                 num_workers=0, collate_fn=None, drop_last=False, generator=None, **kwargs):
        if batch_size is not None:
            batch_size = positive_int(batch_size, "batch_size", "DataLoader")
        if isinstance(num_workers, bool) or not isinstance(num_workers, (int, np.integer)):
            raise TypeError(f"DataLoader: num_workers must be an int, got "
                            f"{type(num_workers).__name__} {num_workers!r}")
        if num_workers < 0:
            raise ValueError(f"DataLoader: num_workers option should be non-negative, got "
                             f"{num_workers}; use num_workers=0 to disable multiprocessing")
        _check_worker_options(num_workers, **kwargs)
        if sampler is not None and shuffle:
            raise ValueError("DataLoader: sampler and shuffle=True can't be combined; shuffle "
                             "with the sampler (e.g. RandomSampler) or leave shuffle off")
        if batch_sampler is not None and (batch_size not in (None, 1) or shuffle or
                                          sampler is not None or drop_last):
            raise ValueError("DataLoader: batch_sampler already chooses the batches; don't "
                             "also give batch_size, shuffle, sampler or drop_last")
        self.dataset, self.batch_size, self.shuffle = dataset, batch_size, shuffle
        self._sampler, self._batch_sampler = sampler, batch_sampler
        self.collate_fn, self.drop_last, self.generator = collate_fn, drop_last, generator
        self.num_workers = num_workers
        if isinstance(dataset, IterableDataset):
            for name, value in (("shuffle", shuffle), ("sampler", sampler),
                                ("batch_sampler", batch_sampler)):
                if value not in (None, False):
                    raise ValueError(
                        f"DataLoader with IterableDataset: expected unspecified {name} option, "
                        f"but got {name}={value!r}; an IterableDataset yields its samples in "
                        "its own order, so shuffle inside its __iter__")
            self.sampler = self.batch_sampler = None
            return
        # the samplers PyTorch's DataLoader shows; iteration reads the given ones (_sampler,
        # _batch_sampler) and batches whole index arrays itself
        self.sampler = sampler if sampler is not None else (
            RandomSampler(dataset, generator=generator) if shuffle else SequentialSampler(dataset))
        if batch_sampler is not None:
            self.batch_size, self.drop_last = None, False
            self.batch_sampler = batch_sampler
        else:
            self.batch_sampler = None if batch_size is None else BatchSampler(
                self.sampler, batch_size, drop_last)

    def _order(self):
        if self._sampler is not None:
            return list(self._sampler)
        if self.shuffle:
            return numpy_generator(self.generator).permutation(len(self.dataset))
        return np.arange(len(self.dataset))

    def _batches(self):
        if self._batch_sampler is not None:
            yield from self._batch_sampler
            return
        order, bs = self._order(), self.batch_size
        for start in range(0, len(order), bs):
            batch = order[start:start + bs]
            if len(batch) < bs and self.drop_last:
                return
            yield batch

    def _stream(self):
        collate = self.collate_fn or (default_collate if self.batch_size is not None else
                                      default_convert)
        samples = iter(self.dataset)
        if self.batch_size is None:
            for sample in samples:
                yield collate(sample)
            return
        while True:
            batch = [s for _, s in zip(range(self.batch_size), samples)]
            if not batch or (len(batch) < self.batch_size and self.drop_last):
                return
            yield collate(batch)

    def __iter__(self):
        if isinstance(self.dataset, IterableDataset):
            yield from self._stream()
            return
        if self.batch_size is None and self._batch_sampler is None:
            convert = self.collate_fn or default_convert
            for i in self._order():
                yield convert(self.dataset[int(i)])
            return
        fast = isinstance(self.dataset, TensorDataset) and self.collate_fn is None
        collate = self.collate_fn or default_collate
        for batch in self._batches():
            if fast:
                idx = np.asarray(batch)
                yield [Tensor._make(t._data[idx]) for t in self.dataset.tensors]
            else:
                yield collate([self.dataset[int(i)] for i in batch])

    def __call__(self):
        return iter(self)

    def __len__(self):
        if self._batch_sampler is not None:
            return len(self._batch_sampler)
        if type(self.dataset).__len__ is Dataset.__len__:
            raise TypeError(f"DataLoader: {type(self.dataset).__name__} is an IterableDataset "
                            "without __len__, so the number of batches is unknown")
        n = len(self._sampler) if self._sampler is not None else len(self.dataset)
        if self.batch_size is None:
            return n
        return n // self.batch_size if self.drop_last else -(-n // self.batch_size)
