"""`DistributedSampler`: each rank of a data-parallel job reads its own share of a dataset.

As torch's: the indices (shuffled with `seed + epoch`, the same on every rank, when
`shuffle`) are padded by repeating the first ones until every rank gets the same number,
or, with `drop_last`, cut to a multiple of the number of ranks; rank r takes every
num_replicas-th index from position r. Call `set_epoch(epoch)` before each epoch for a new
order.
"""
import math

import numpy as np

__all__ = ["DistributedSampler"]


class DistributedSampler:
    """Indices of `dataset` for rank `rank` of `num_replicas` (default: the process group's)."""

    def __init__(self, dataset, num_replicas=None, rank=None, shuffle=True, seed=0,
                 drop_last=False):
        if num_replicas is None or rank is None:
            from ..distributed import process_group
            group = process_group.default_group("DistributedSampler")
            num_replicas = group.size() if num_replicas is None else num_replicas
            rank = group.rank() if rank is None else rank
        if num_replicas < 1:
            raise ValueError(f"DistributedSampler: num_replicas must be positive, got "
                             f"{num_replicas}")
        if not 0 <= rank < num_replicas:
            raise ValueError(f"DistributedSampler: invalid rank {rank}, rank should be in the "
                             f"interval [0, {num_replicas - 1}]")
        self.dataset, self.num_replicas, self.rank = dataset, num_replicas, rank
        self.shuffle, self.seed, self.drop_last = shuffle, seed, drop_last
        self.epoch = 0
        n = len(dataset)
        if drop_last and n % num_replicas:
            self.num_samples = math.ceil((n - num_replicas) / num_replicas)
        else:
            self.num_samples = math.ceil(n / num_replicas)
        self.total_size = self.num_samples * num_replicas

    def __iter__(self):
        n = len(self.dataset)
        if self.shuffle:
            indices = np.random.default_rng(self.seed + self.epoch).permutation(n)
        else:
            indices = np.arange(n)
        if self.drop_last:
            indices = indices[:self.total_size]
        elif self.total_size > n:
            indices = np.resize(indices, self.total_size)  # repeats from the start
        return iter(indices[self.rank:self.total_size:self.num_replicas].tolist())

    def __len__(self):
        return self.num_samples

    def set_epoch(self, epoch):
        """Shuffle differently for `epoch` (every rank must pass the same value)."""
        self.epoch = epoch
