"""TensorDataset, custom Dataset, DataLoader (batch_size, shuffle, drop_last, collate_fn),
random_split, Subset, ConcatDataset, samplers."""
import numpy as np
import fluxgrad as torch
from fluxgrad.utils.data import (ConcatDataset, DataLoader, Dataset, RandomSampler, SequentialSampler,
                                 Subset, TensorDataset, random_split, BatchSampler, WeightedRandomSampler)

X = torch.arange(20, dtype=torch.float32).view(10, 2)
Y = torch.arange(10)
ds = TensorDataset(X, Y)
print(len(ds), ds[3], ds[-1][1])
loader = DataLoader(ds, batch_size=4)
for xb, yb in loader:
    print(xb.shape, yb)
print(len(loader), len(DataLoader(ds, batch_size=4, drop_last=True)))
for xb, yb in DataLoader(ds, batch_size=4, drop_last=True):
    print(yb.tolist(), end=" ")
print()
torch.manual_seed(0)
seen = []
for xb, yb in DataLoader(ds, batch_size=3, shuffle=True):
    seen += yb.tolist()
    assert torch.equal(xb[:, 0], 2 * yb.float())
print(sorted(seen), len(seen))


class Squares(Dataset):
    def __init__(self, n):
        self.n = n

    def __len__(self):
        return self.n

    def __getitem__(self, idx):
        return {"x": torch.tensor([float(idx)]), "y": idx * idx, "name": f"item{idx}"}


sq = Squares(7)
batch = next(iter(DataLoader(sq, batch_size=3)))
print(batch["x"], batch["y"], batch["name"], batch["x"].dtype, batch["y"].dtype)


def collate(samples):
    xs = [s["x"] for s in samples]
    return torch.cat(xs), torch.tensor([s["y"] for s in samples], dtype=torch.float32)


for xb, yb in DataLoader(sq, batch_size=3, collate_fn=collate):
    print(xb, yb)
print(next(iter(DataLoader(sq, batch_size=None)))["y"])
train_set, val_set = random_split(ds, [8, 2], generator=torch.Generator().manual_seed(42))
print(len(train_set), len(val_set), sorted([int(train_set[i][1]) for i in range(8)] + [int(val_set[i][1]) for i in range(2)]))
a, b, c = random_split(range(10), [0.5, 0.3, 0.2])
print(len(a), len(b), len(c), type(a).__name__)
sub = Subset(ds, [0, 2, 4])
print(len(sub), sub[1][1], [int(y) for _, y in DataLoader(sub, batch_size=2)][0] if False else [y.tolist() for _, y in DataLoader(sub, batch_size=2)])
cat = ConcatDataset([sub, Subset(ds, [9])])
print(len(cat), cat[3][1], cat.cumulative_sizes)
print(list(SequentialSampler(range(4))), sorted(RandomSampler(range(5))), list(BatchSampler(range(7), 3, drop_last=False)))
print(list(BatchSampler(SequentialSampler(range(7)), batch_size=3, drop_last=True)))
print(len(list(WeightedRandomSampler([0.0, 1.0, 0.0], 5))), set(WeightedRandomSampler([0.0, 1.0, 0.0], 5)))
print([yb.tolist() for _, yb in DataLoader(ds, sampler=SequentialSampler(range(3)), batch_size=2)])
print([yb.tolist() for _, yb in DataLoader(ds, batch_sampler=[[0, 1], [5, 6, 7]])])
pairs = DataLoader([(1, 2.0), (3, 4.0)], batch_size=2)
print(next(iter(pairs)))
arrays = DataLoader([np.ones(2, dtype=np.float32), np.zeros(2, dtype=np.float32)], batch_size=2)
print(next(iter(arrays)))
model = torch.nn.Linear(2, 1)
with torch.no_grad():
    model.weight.fill_(0.1)
    model.bias.fill_(0.0)
opt = torch.optim.SGD(model.parameters(), lr=0.001)
for epoch in range(2):
    total = 0.0
    for xb, yb in DataLoader(ds, batch_size=5):
        opt.zero_grad()
        loss = torch.nn.functional.mse_loss(model(xb).squeeze(1), yb.float())
        loss.backward()
        opt.step()
        total += loss.item() * xb.size(0)
    print(epoch, round(total / len(ds), 5))
from fluxgrad.utils.data import StackDataset, default_convert
from fluxgrad.utils.data.distributed import DistributedSampler
stacked = StackDataset(X, Y)
print(len(stacked), stacked[2], StackDataset(x=X, y=Y)[1])
print(default_convert({"a": np.arange(3), "b": (np.float64(1.5), "s")}))
for sample in DataLoader(TensorDataset(X[:2], Y[:2]), batch_size=None):
    print(sample)
for sample in DataLoader([np.ones(2), np.zeros(2)], batch_size=None):
    print(sample)
sampler = DistributedSampler(ds, num_replicas=3, rank=1, shuffle=False)
print(list(sampler), len(sampler))
