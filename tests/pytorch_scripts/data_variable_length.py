"""A text-classification data pipeline for sequences of different lengths: a map-style Dataset
returning (tokens, label), a collate_fn that pads with pad_sequence and returns lengths, a custom
Sampler that buckets by length, pack_sequence(enforce_sorted=False) into a GRU, masked mean
pooling, and the packed batch's fields (batch_sizes, sorted/unsorted indices)."""
import numpy as np
import fluxgrad as torch
import fluxgrad.nn as nn
import fluxgrad.nn.functional as F
from fluxgrad.nn.utils.rnn import pack_padded_sequence, pack_sequence, pad_packed_sequence, pad_sequence
from fluxgrad.utils.data import DataLoader, Dataset, Sampler

rng = np.random.default_rng(33)


class Reviews(Dataset):
    def __init__(self, n):
        self.lengths = rng.integers(2, 7, n)
        self.items = [torch.from_numpy(rng.integers(1, 20, int(k))) for k in self.lengths]
        self.labels = [int(k > 4) for k in self.lengths]

    def __len__(self):
        return len(self.items)

    def __getitem__(self, i):
        return self.items[i], self.labels[i]


def collate(batch):
    seqs, labels = zip(*batch)
    lengths = torch.tensor([len(s) for s in seqs])
    return pad_sequence(seqs, batch_first=True, padding_value=0), lengths, torch.tensor(labels)


class BucketSampler(Sampler):
    def __init__(self, lengths, batch_size):
        self.order = sorted(range(len(lengths)), key=lambda i: (lengths[i], i))
        self.batch_size = batch_size

    def __iter__(self):
        for start in range(0, len(self.order), self.batch_size):
            yield self.order[start:start + self.batch_size]

    def __len__(self):
        return (len(self.order) + self.batch_size - 1) // self.batch_size


data = Reviews(10)
print(len(data), data[0], data.lengths.tolist())
loader = DataLoader(data, batch_sampler=BucketSampler(data.lengths.tolist(), 4), collate_fn=collate)
print(len(loader))
for tokens, lengths, labels in loader:
    print(tokens.shape, lengths.tolist(), labels.tolist())

seqs = [torch.tensor([1.0, 2.0, 3.0]), torch.tensor([4.0]), torch.tensor([5.0, 6.0])]
packed = pack_sequence(seqs, enforce_sorted=False)
print(packed.data, packed.batch_sizes, packed.sorted_indices, packed.unsorted_indices)
padded, lens = pad_packed_sequence(packed, batch_first=True)
print(padded, lens)
print(pad_sequence(seqs), pad_sequence(seqs, batch_first=True, padding_value=-1.0, padding_side="left"))


class Classifier(nn.Module):
    def __init__(self):
        super().__init__()
        self.emb = nn.Embedding(20, 4, padding_idx=0)
        self.gru = nn.GRU(4, 5, batch_first=True)
        self.out = nn.Linear(5, 2)

    def forward(self, tokens, lengths):
        packed = pack_padded_sequence(self.emb(tokens), lengths, batch_first=True, enforce_sorted=False)
        out, h = self.gru(packed)
        out, _ = pad_packed_sequence(out, batch_first=True)
        mask = (torch.arange(out.size(1))[None, :] < lengths[:, None]).unsqueeze(-1)
        pooled = (out * mask).sum(1) / lengths[:, None]
        return self.out(pooled + h[-1])


model = Classifier()
with torch.no_grad():
    for p in model.parameters():
        p.copy_(torch.from_numpy(rng.uniform(-0.5, 0.5, tuple(p.shape)).astype(np.float32)))
opt = torch.optim.Adam(model.parameters(), lr=0.05)
for epoch in range(3):
    total = 0.0
    for tokens, lengths, labels in loader:
        loss = F.cross_entropy(model(tokens, lengths), labels)
        opt.zero_grad()
        loss.backward()
        opt.step()
        total += loss.item()
    print(epoch, f"{total:.5f}")
