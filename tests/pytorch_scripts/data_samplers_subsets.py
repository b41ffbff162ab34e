"""torch.utils.data with custom pieces: a Sampler subclass (sorted by length, a bucket sampler), a
BatchSampler subclass and batch_sampler=, SequentialSampler / BatchSampler(drop_last), a
collate_fn returning dicts with padding and lengths, Subset and ConcatDataset indexing, random_split
with fractions and a seeded Generator (sizes, disjointness, reproducibility), IterableDataset,
default_collate of nested structures, and len() of loaders."""
import numpy as np
import fluxgrad as torch
from fluxgrad.utils.data import (BatchSampler, ConcatDataset, DataLoader, Dataset, IterableDataset,
                                 RandomSampler, Sampler, SequentialSampler, Subset, TensorDataset,
                                 random_split, default_collate)


class Sentences(Dataset):
    def __init__(self, lengths):
        self.items = [torch.arange(1, n + 1) * (i + 1) for i, n in enumerate(lengths)]

    def __len__(self):
        return len(self.items)

    def __getitem__(self, i):
        return {"tokens": self.items[i], "label": i % 2}


class SortedByLength(Sampler):
    def __init__(self, data):
        self.order = sorted(range(len(data)), key=lambda i: -len(data.items[i]))

    def __iter__(self):
        return iter(self.order)

    def __len__(self):
        return len(self.order)


class Buckets(Sampler):
    def __init__(self, data, batch_size):
        order = sorted(range(len(data)), key=lambda i: len(data.items[i]))
        self.batches = [order[i:i + batch_size] for i in range(0, len(order), batch_size)]

    def __iter__(self):
        yield from reversed(self.batches)

    def __len__(self):
        return len(self.batches)


def pad_collate(batch):
    lengths = torch.tensor([len(b["tokens"]) for b in batch])
    padded = torch.zeros(len(batch), int(lengths.max()), dtype=torch.long)
    for row, b in enumerate(batch):
        padded[row, : len(b["tokens"])] = b["tokens"]
    return {"tokens": padded, "lengths": lengths, "label": torch.tensor([b["label"] for b in batch])}


data = Sentences([3, 1, 4, 2, 5, 2, 3])
loader = DataLoader(data, batch_size=3, sampler=SortedByLength(data), collate_fn=pad_collate)
print(len(loader))
for batch in loader:
    print(batch["tokens"], batch["lengths"], batch["label"])
for batch in DataLoader(data, batch_sampler=Buckets(data, 2), collate_fn=pad_collate):
    print(batch["lengths"].tolist(), batch["tokens"].shape)
print(list(BatchSampler(SequentialSampler(range(7)), batch_size=3, drop_last=False)))
print(list(BatchSampler(SequentialSampler(range(7)), batch_size=3, drop_last=True)))
print(len(BatchSampler(range(10), 4, False)), len(BatchSampler(range(10), 4, True)))

X = torch.arange(20, dtype=torch.float32).reshape(10, 2)
y = torch.arange(10) % 3
ds = TensorDataset(X, y)
sub = Subset(ds, [9, 0, 4])
print(len(sub), sub[0], sub.indices)
both = ConcatDataset([sub, TensorDataset(X[:2] * -1, y[:2])])
print(len(both), both[3], both[-1], both.cumulative_sizes)
for xb, yb in DataLoader(both, batch_size=2):
    print(xb.tolist(), yb.tolist())

g = torch.Generator().manual_seed(42)
train, val, test = random_split(ds, [0.6, 0.2, 0.2], generator=g)
print(len(train), len(val), len(test), type(train).__name__)
all_idx = sorted(train.indices + val.indices + test.indices)
print(all_idx == list(range(10)))
again = random_split(ds, [6, 2, 2], generator=torch.Generator().manual_seed(42))
print([a.indices == b.indices for a, b in zip((train, val, test), again)])
try:
    random_split(ds, [5, 4])
except ValueError as e:
    print("ValueError")


class Countdown(IterableDataset):
    def __init__(self, start):
        self.start = start

    def __iter__(self):
        for i in range(self.start, 0, -1):
            yield torch.tensor([float(i), float(i) ** 2])


print([b.tolist() for b in DataLoader(Countdown(5), batch_size=2)])
nested = [{"x": torch.tensor([1.0, 2.0]), "meta": (1, "a"), "w": 0.5},
          {"x": torch.tensor([3.0, 4.0]), "meta": (2, "b"), "w": 1.5}]
out = default_collate(nested)
print(out["x"], out["meta"], out["w"], out["w"].dtype)
print(default_collate([np.array([1, 2]), np.array([3, 4])]))
seq = SequentialSampler(ds)
print(list(seq), len(RandomSampler(ds, num_samples=4, replacement=True)))
loader = DataLoader(ds, batch_size=4, drop_last=True)
print(len(loader), [xb.shape[0] for xb, _ in loader])
