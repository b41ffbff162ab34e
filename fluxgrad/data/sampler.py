"""Samplers: the order in which a DataLoader visits a dataset's indices.

Random samplers draw from `generator=` (a `fluxgrad.Generator`) or, without one,
from fluxgrad's default generator, so `fluxgrad.manual_seed` makes them repeat.
"""
import numpy as np

from ..random import numpy_generator

__all__ = ["Sampler", "SequentialSampler", "RandomSampler", "SubsetRandomSampler",
           "WeightedRandomSampler", "BatchSampler"]


class Sampler:
    """Base class: iterate indices (define `__iter__`, and `__len__` if known)."""

    def __init__(self, data_source=None):
        pass

    def __iter__(self):
        raise NotImplementedError(f"{type(self).__name__} must define __iter__")


class SequentialSampler(Sampler):
    def __init__(self, data_source):
        self.data_source = data_source

    def __iter__(self):
        return iter(range(len(self.data_source)))

    def __len__(self):
        return len(self.data_source)


def positive_int(value, name, owner):
    """`value` if it is a positive int; else a ValueError naming the argument `name`."""
    if isinstance(value, bool) or not isinstance(value, (int, np.integer)) or value <= 0:
        hint = f"; pass {name}={int(value)}" if isinstance(value, (float, str)) and \
            str(value).isdigit() else ""
        raise ValueError(f"{owner}: {name} must be a positive int, got {name}={value!r} "
                         f"(type {type(value).__name__}){hint}")
    return int(value)


class RandomSampler(Sampler):
    """A fresh permutation every epoch, or `num_samples` draws with replacement."""

    def __init__(self, data_source, replacement=False, num_samples=None, generator=None):
        self.data_source, self.replacement, self.generator = data_source, replacement, generator
        self._num_samples = None if num_samples is None else \
            positive_int(num_samples, "num_samples", "RandomSampler")

    @property
    def num_samples(self):
        return len(self.data_source) if self._num_samples is None else self._num_samples

    def __iter__(self):
        rng, n = numpy_generator(self.generator), len(self.data_source)
        if self.replacement:
            return iter(rng.integers(0, n, self.num_samples).tolist())
        count = self.num_samples
        order = np.concatenate([rng.permutation(n) for _ in range(-(-count // n))]) if n else []
        return iter(np.asarray(order[:count], dtype=np.int64).tolist())

    def __len__(self):
        return self.num_samples


class SubsetRandomSampler(Sampler):
    """The given indices, in a fresh random order every epoch."""

    def __init__(self, indices, generator=None):
        self.indices, self.generator = list(indices), generator

    def __iter__(self):
        order = numpy_generator(self.generator).permutation(len(self.indices))
        return (self.indices[i] for i in order)

    def __len__(self):
        return len(self.indices)


class WeightedRandomSampler(Sampler):
    """`num_samples` indices drawn with probabilities proportional to `weights`."""

    def __init__(self, weights, num_samples, replacement=True, generator=None):
        self.weights = np.asarray(getattr(weights, "_data", weights), dtype=np.float64)
        if self.weights.ndim != 1 or np.any(self.weights < 0) or not self.weights.sum() > 0:
            raise ValueError("WeightedRandomSampler: weights must be a 1-d sequence of "
                             "non-negative numbers, not all zero")
        self.num_samples = positive_int(num_samples, "num_samples", "WeightedRandomSampler")
        if not replacement and self.num_samples > np.count_nonzero(self.weights):
            raise ValueError(f"WeightedRandomSampler: can't draw {self.num_samples} samples "
                             f"without replacement from {np.count_nonzero(self.weights)} "
                             "positive weights")
        self.replacement, self.generator = replacement, generator

    def __iter__(self):
        p = self.weights / self.weights.sum()
        rng = numpy_generator(self.generator)
        return iter(rng.choice(len(p), self.num_samples, self.replacement, p).tolist())

    def __len__(self):
        return self.num_samples


class BatchSampler(Sampler):
    """Group another sampler's indices into lists of `batch_size`."""

    def __init__(self, sampler, batch_size, drop_last=False):
        self.sampler = sampler
        self.batch_size = positive_int(batch_size, "batch_size", "BatchSampler")
        if not isinstance(drop_last, (bool, np.bool_)):
            raise ValueError(f"BatchSampler: drop_last should be a boolean value, but got "
                             f"drop_last={drop_last!r}")
        self.drop_last = drop_last

    def __iter__(self):
        batch = []
        for index in self.sampler:
            batch.append(index)
            if len(batch) == self.batch_size:
                yield batch
                batch = []
        if batch and not self.drop_last:
            yield batch

    def __len__(self):
        n = len(self.sampler)
        return n // self.batch_size if self.drop_last else -(-n // self.batch_size)
