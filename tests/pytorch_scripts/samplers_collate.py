"""torch.utils.data beyond the basics: WeightedRandomSampler for class imbalance (with a seeded
generator: counts and membership checked), SubsetRandomSampler for train/val indices, BatchSampler
around samplers, ConcatDataset, Subset, default_collate on dicts, tuples, nested lists and numbers,
a custom collate padding sequences, IterableDataset with worker info, and DataLoader attributes."""
import numpy as np
import fluxgrad as torch
from fluxgrad.utils.data import (BatchSampler, ConcatDataset, DataLoader, Dataset, IterableDataset,
                                 RandomSampler, SequentialSampler, Subset, SubsetRandomSampler,
                                 TensorDataset, WeightedRandomSampler, default_collate, get_worker_info)
from fluxgrad.nn.utils.rnn import pad_sequence

targets = torch.tensor([0] * 8 + [1] * 2)
class_count = torch.bincount(targets)
class_weights = 1.0 / class_count.float()
sample_weights = class_weights[targets]
print(class_count, class_weights, sample_weights)
sampler = WeightedRandomSampler(sample_weights, num_samples=2000, replacement=True, generator=torch.Generator().manual_seed(0))
drawn = torch.tensor(list(sampler))
print(len(sampler), drawn.dtype, drawn.min().item() >= 0, drawn.max().item() <= 9, round(targets[drawn].float().mean().item(), 1))
no_repl = list(WeightedRandomSampler([0.1, 0.2, 0.3, 0.4], 4, replacement=False))
print(sorted(no_repl))
ds = TensorDataset(torch.arange(10.0).unsqueeze(1), targets)
loader = DataLoader(ds, batch_size=5, sampler=WeightedRandomSampler(sample_weights, 10))
print([xb.shape for xb, _ in loader], len(loader))
indices = list(range(10))
split = 7
train_idx, valid_idx = indices[:split], indices[split:]
train_sampler = SubsetRandomSampler(train_idx, generator=torch.Generator().manual_seed(1))
valid_sampler = SubsetRandomSampler(valid_idx)
print(len(train_sampler), sorted(train_sampler), sorted(valid_sampler))
train_loader = DataLoader(ds, batch_size=3, sampler=train_sampler)
print(sorted(int(v) for xb, _ in train_loader for v in xb.flatten()), len(train_loader))
print(list(BatchSampler(SequentialSampler(range(10)), batch_size=4, drop_last=False)), len(BatchSampler(range(10), 4, True)))
print(sorted(sum(list(BatchSampler(RandomSampler(range(7)), 3, False)), [])), [len(b) for b in BatchSampler(RandomSampler(range(7)), 3, False)])
print(len(RandomSampler(range(5), replacement=True, num_samples=12)), len(list(RandomSampler(range(3), num_samples=7))))
cat = ConcatDataset([Subset(ds, [0, 1]), TensorDataset(torch.tensor([[100.0]]), torch.tensor([5]))])
print(len(cat), cat[2], cat[-1][1], cat.cumulative_sizes, [y.tolist() for _, y in DataLoader(cat, batch_size=2)])
print(len(ds + ds), (ds + ds)[12][0])
print(default_collate([{"a": 1, "b": torch.tensor([1.0, 2.0])}, {"a": 2, "b": torch.tensor([3.0, 4.0])}]))
print(default_collate([(1.5, "x", [1, 2]), (2.5, "y", [3, 4])]))
print(default_collate([np.array([1, 2]), np.array([3, 4])]), default_collate([True, False]), default_collate([torch.tensor(1), torch.tensor(2)]))
batch = default_collate([{"img": torch.ones(2, 2), "meta": {"id": 3, "scale": 0.5}}, {"img": torch.zeros(2, 2), "meta": {"id": 4, "scale": 1.5}}])
print(batch["img"].shape, batch["meta"], batch["meta"]["scale"].dtype)


class Sentences(Dataset):
    def __init__(self):
        self.data = [[1, 2, 3], [4, 5], [6], [7, 8, 9, 10]]

    def __len__(self):
        return len(self.data)

    def __getitem__(self, i):
        return torch.tensor(self.data[i]), len(self.data[i])


def pad_collate(batch):
    seqs, lens = zip(*batch)
    return pad_sequence(seqs, batch_first=True, padding_value=-1), torch.tensor(lens)


for padded, lens in DataLoader(Sentences(), batch_size=2, collate_fn=pad_collate):
    print(padded, lens)


class Stream(IterableDataset):
    def __init__(self, start, end):
        super().__init__()
        self.start, self.end = start, end

    def __iter__(self):
        info = get_worker_info()
        assert info is None
        return iter(range(self.start, self.end))


print(list(DataLoader(Stream(3, 10), batch_size=3)), list(DataLoader(Stream(0, 4), batch_size=None)))
dl = DataLoader(ds, batch_size=4, shuffle=True, drop_last=True, num_workers=0, pin_memory=False)
print(dl.batch_size, dl.drop_last, len(dl), type(dl.sampler).__name__, type(dl.batch_sampler).__name__, dl.num_workers, dl.dataset is ds)
it = iter(DataLoader(ds, batch_size=4))
print(next(it)[1], next(it)[1], next(it)[1])
try:
    next(it)
except StopIteration:
    print("StopIteration")
