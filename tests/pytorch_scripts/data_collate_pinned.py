"""torch.utils.data beyond the basics: a custom collate_fn padding variable-length sequences
(pad_sequence, lengths), the docs' SimpleCustomBatch with its own pin_memory(), pin_memory=True
flags, default_collate on dicts / tuples / namedtuples / numbers / NumPy arrays, an
IterableDataset with get_worker_info() in the main process, a BatchSampler as batch_sampler,
and a sampler-less loader with batch_size=None."""
import collections
import numpy as np
import fluxgrad as torch
from fluxgrad.nn.utils.rnn import pad_sequence
from fluxgrad.utils.data import (BatchSampler, DataLoader, Dataset, IterableDataset,
                                 SequentialSampler, TensorDataset, default_collate, get_worker_info)

rng = np.random.default_rng(16)


class Sentences(Dataset):
    def __init__(self):
        self.lengths = [3, 1, 4, 2, 5, 2]
        self.data = [torch.from_numpy(rng.integers(1, 9, n)) for n in self.lengths]
        self.labels = [n % 2 for n in self.lengths]

    def __len__(self):
        return len(self.data)

    def __getitem__(self, i):
        return self.data[i], self.labels[i]


def pad_collate(batch):
    seqs, labels = zip(*batch)
    lengths = torch.tensor([len(s) for s in seqs])
    return pad_sequence(seqs, batch_first=True, padding_value=0), lengths, torch.tensor(labels)


for padded, lengths, labels in DataLoader(Sentences(), batch_size=3, collate_fn=pad_collate,
                                          pin_memory=True):
    print(padded, lengths, labels, padded.is_pinned())


class SimpleCustomBatch:
    def __init__(self, data):
        transposed_data = list(zip(*data))
        self.inp = torch.stack(transposed_data[0], 0)
        self.tgt = torch.stack(transposed_data[1], 0)

    def pin_memory(self):
        self.inp = self.inp.pin_memory()
        self.tgt = self.tgt.pin_memory()
        return self


def collate_wrapper(batch):
    return SimpleCustomBatch(batch)


inps = torch.arange(10 * 5, dtype=torch.float32).view(10, 5)
tgts = torch.arange(10 * 5, dtype=torch.float32).view(10, 5)
dataset = TensorDataset(inps, tgts)
loader = DataLoader(dataset, batch_size=2, collate_fn=collate_wrapper, pin_memory=True)
for batch_ndx, sample in enumerate(loader):
    if batch_ndx < 2:
        print(type(sample).__name__, sample.inp.shape, sample.tgt[:, 0])
print(default_collate([{"x": torch.ones(2), "y": 1}, {"x": torch.zeros(2), "y": 2}]))
print(default_collate([(1.5, "a"), (2.5, "b")]))
Point = collections.namedtuple("Point", ["x", "y"])
print(default_collate([Point(1, torch.tensor(2.0)), Point(3, torch.tensor(4.0))]))
print(default_collate([np.array([1, 2]), np.array([3, 4])]))
print(default_collate([[1, 2], [3, 4]]))


class Stream(IterableDataset):
    def __init__(self, start, end):
        self.start, self.end = start, end

    def __iter__(self):
        info = get_worker_info()
        print("worker info:", info)
        return iter(range(self.start, self.end))


print(list(DataLoader(Stream(3, 10), batch_size=3)))
print(list(DataLoader(Stream(0, 4), batch_size=None)))
print(list(DataLoader([np.array([1, 2]), 3.5], batch_size=None)))
sampler = BatchSampler(SequentialSampler(range(7)), batch_size=3, drop_last=False)
print(list(sampler))
print([y.tolist() for _, y in DataLoader(TensorDataset(inps, torch.arange(10)), batch_sampler=sampler)])
single = DataLoader(TensorDataset(torch.arange(4.)), batch_size=None)
print([t for t in single])
print(len(DataLoader(dataset, batch_size=3)), len(DataLoader(dataset, batch_size=3, drop_last=True)))
