"""Ragged-batch tricks from graph and point-cloud code: offsets from lengths by cumsum, segment
ids by repeat_interleave with a tensor of repeats, segment sums with index_add_ and scatter_add,
segment max and a numerically safe segment softmax with scatter_reduce('amax', include_self=False),
torch.split with a list of sizes, run-length encoding with unique_consecutive(return_counts=True),
and per-segment top element via a lexsort-like stable sort."""
import numpy as np
import fluxgrad as torch

rng = np.random.default_rng(137)
lengths = torch.tensor([3, 1, 4, 2])
offsets = torch.cat([torch.zeros(1, dtype=torch.long), torch.cumsum(lengths, 0)[:-1]])
print(offsets, lengths.sum())
seg = torch.repeat_interleave(torch.arange(len(lengths)), lengths)
print(seg)
values = torch.from_numpy(rng.normal(0, 1, int(lengths.sum())).astype(np.float32)).requires_grad_()
feats = torch.from_numpy(rng.normal(0, 1, (int(lengths.sum()), 2)).astype(np.float32))

sums = torch.zeros(4).index_add_(0, seg, values)
sums2 = torch.zeros(4).scatter_add(0, seg, values)
print(sums, torch.allclose(sums, sums2))
means = sums / lengths
print(means)
seg_max = torch.full((4,), float("-inf")).scatter_reduce(0, seg, values, reduce="amax", include_self=False)
print(seg_max)
shifted = (values - seg_max[seg]).exp()
denom = torch.zeros(4).index_add(0, seg, shifted)
softmax = shifted / denom[seg]
print(softmax, torch.allclose(torch.zeros(4).index_add(0, seg, softmax), torch.ones(4)))
(softmax * torch.arange(10.0)).sum().backward()
print(values.grad)

pooled = torch.zeros(4, 2).index_add_(0, seg, feats)
print(pooled)
chunks = torch.split(feats, lengths.tolist())
print([c.shape[0] for c in chunks], torch.allclose(torch.stack([c.sum(0) for c in chunks]), pooled))
print(torch.stack([c.max(0).values for c in chunks]))

runs = torch.tensor([0, 0, 1, 1, 1, 0, 2, 2, 2, 2, 0])
vals, counts = torch.unique_consecutive(runs, return_counts=True)
print(vals, counts, torch.repeat_interleave(vals, counts).equal(runs))
vals, inverse, counts = torch.unique_consecutive(runs, return_inverse=True, return_counts=True)
print(inverse)

keys = values.detach()
order = torch.argsort(keys, descending=True, stable=True)
order = order[torch.argsort(seg[order], stable=True)]
first = torch.ones_like(seg, dtype=torch.bool)
first[1:] = seg[order][1:] != seg[order][:-1]
print(order, order[first], keys[order[first]])
counts_per = torch.bincount(seg, minlength=6)
print(counts_per, torch.bincount(seg, weights=keys))
