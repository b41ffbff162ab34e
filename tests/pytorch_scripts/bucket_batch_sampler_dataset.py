"""A text data pipeline with length bucketing, as in NLP training scripts: a map-style Dataset
returning dicts, a custom BatchSampler subclass that sorts indices by length inside buckets (the
shuffle order from NumPy), a collate_fn that pads with pad_sequence and builds attention masks,
DataLoader(batch_sampler=...), Subset and ConcatDataset indexing, default_collate on nested
dicts/tuples/numbers, and len() of each piece."""
import numpy as np
import fluxgrad as torch
from fluxgrad.nn.utils.rnn import pad_sequence
from fluxgrad.utils.data import (BatchSampler, ConcatDataset, DataLoader, Dataset, Sampler,
                                 SequentialSampler, Subset, default_collate)

rng = np.random.default_rng(103)


class TokenDataset(Dataset):
    def __init__(self, n, offset=0):
        self.items = [rng.integers(1, 50, int(rng.integers(2, 9))).tolist() for _ in range(n)]
        self.offset = offset

    def __len__(self):
        return len(self.items)

    def __getitem__(self, idx):
        ids = self.items[idx]
        return {"input_ids": torch.tensor(ids), "label": (sum(ids) + self.offset) % 3, "idx": idx}


class BucketBatchSampler(Sampler):
    def __init__(self, lengths, batch_size, bucket_size):
        self.lengths, self.batch_size, self.bucket_size = lengths, batch_size, bucket_size

    def __iter__(self):
        order = rng.permutation(len(self.lengths)).tolist()
        batches = []
        for start in range(0, len(order), self.bucket_size):
            bucket = sorted(order[start:start + self.bucket_size], key=lambda i: self.lengths[i])
            batches += [bucket[i:i + self.batch_size] for i in range(0, len(bucket), self.batch_size)]
        return iter(batches)

    def __len__(self):
        return sum((min(self.bucket_size, len(self.lengths) - s) + self.batch_size - 1) // self.batch_size
                   for s in range(0, len(self.lengths), self.bucket_size))


def collate(batch):
    ids = pad_sequence([b["input_ids"] for b in batch], batch_first=True, padding_value=0)
    return {"input_ids": ids, "attention_mask": (ids != 0).long(),
            "labels": torch.tensor([b["label"] for b in batch]), "idx": [b["idx"] for b in batch]}


ds = TokenDataset(11)
lengths = [len(x) for x in ds.items]
print(lengths)
sampler = BucketBatchSampler(lengths, batch_size=3, bucket_size=6)
loader = DataLoader(ds, batch_sampler=sampler, collate_fn=collate)
print(len(sampler), len(loader))
for batch in loader:
    print(batch["idx"], batch["input_ids"].shape, batch["attention_mask"].sum(1).tolist(), batch["labels"])

plain = BatchSampler(SequentialSampler(range(7)), batch_size=3, drop_last=False)
print(list(plain), len(plain), len(BatchSampler(range(7), 3, drop_last=True)))
sub = Subset(ds, [0, 2, 4])
both = ConcatDataset([sub, TokenDataset(2, offset=1)])
print(len(sub), len(both), both.cumulative_sizes, both[3]["idx"], both[1]["input_ids"])

batch = default_collate([{"x": (1, 2.0), "y": torch.ones(2), "name": "a"},
                         {"x": (3, 4.0), "y": torch.zeros(2), "name": "b"}])
print(batch)
print(default_collate([np.arange(3), np.arange(3) * 2]), default_collate([True, False]))
fixed = DataLoader(ds, batch_size=4, shuffle=False, drop_last=True,
                   collate_fn=lambda b: torch.tensor([len(x["input_ids"]) for x in b]))
print(list(fixed), len(fixed))
