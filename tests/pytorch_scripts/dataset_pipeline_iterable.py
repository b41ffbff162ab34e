"""Data pipelines without torchvision: a map-style Dataset returning dicts (collated into a
dict of batched tensors), an IterableDataset streaming lines, ConcatDataset/Subset/
ChainDataset, BatchSampler over a SequentialSampler with drop_last, batch_size=None, a
custom collate_fn that pads variable-length sequences, and default_collate of tuples."""
import numpy as np
import fluxgrad as torch
from fluxgrad.utils.data import (BatchSampler, ChainDataset, ConcatDataset, DataLoader, Dataset,
                                 IterableDataset, SequentialSampler, Subset, default_collate)
from fluxgrad.nn.utils.rnn import pad_sequence


class Squares(Dataset):
    def __init__(self, n):
        self.n = n

    def __len__(self):
        return self.n

    def __getitem__(self, i):
        return {"x": torch.tensor([float(i), float(i * i)]), "y": i % 2, "name": f"item{i}"}


class Lines(IterableDataset):
    def __init__(self, lines):
        self.lines = lines

    def __iter__(self):
        for line in self.lines:
            yield torch.tensor([len(w) for w in line.split()])


ds = Squares(7)
loader = DataLoader(ds, batch_size=3)
for batch in loader:
    print(batch["x"], batch["y"], batch["name"])
print(len(loader), len(DataLoader(ds, batch_size=3, drop_last=True)))

both = ConcatDataset([Squares(2), Squares(3)])
print(len(both), both[3]["name"], both.cumulative_sizes, Subset(ds, [6, 0])[0]["name"])
print(list(BatchSampler(SequentialSampler(range(7)), batch_size=3, drop_last=True)))
print([b["y"].tolist() for b in DataLoader(ds, batch_sampler=BatchSampler(SequentialSampler(ds), 4, False))])

lines = Lines(["the cat sat", "on a mat today", "hi"])


def pad_collate(batch):
    lengths = torch.tensor([len(b) for b in batch])
    return pad_sequence(batch, batch_first=True, padding_value=-1), lengths


for padded, lengths in DataLoader(lines, batch_size=2, collate_fn=pad_collate):
    print(padded, lengths)
print([t.tolist() for t in ChainDataset([lines, Lines(["x y"])])])
print(list(DataLoader(lines, batch_size=None))[1])
print(default_collate([(1, 2.0, np.array([1, 2])), (3, 4.0, np.array([3, 4]))]))
print(default_collate([torch.ones(2), torch.zeros(2)]).shape, default_collate(["a", "b"]))
