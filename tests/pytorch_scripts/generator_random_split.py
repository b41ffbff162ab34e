"""Seeded randomness with torch.Generator, checked by the properties that hold in every library:
randperm / randint / rand / randn / multinomial / normal_ with a generator are reproducible from
the same seed and independent of the global seed, random_split(generator=...) makes disjoint
Subsets of the requested sizes (and fractions), DataLoader(shuffle=True, generator=g) visits
every sample once per epoch in the same order for the same seed, and get_state/set_state replay."""
import fluxgrad as torch
from fluxgrad.utils.data import DataLoader, Subset, TensorDataset, random_split

g = torch.Generator().manual_seed(123)
p1 = torch.randperm(10, generator=g)
g.manual_seed(123)
p2 = torch.randperm(10, generator=g)
print(torch.equal(p1, p2), sorted(p1.tolist()) == list(range(10)), p1.dtype, g.initial_seed())
torch.manual_seed(0)
g.manual_seed(7)
a = torch.rand(5, generator=g)
torch.manual_seed(999)
g.manual_seed(7)
b = torch.rand(5, generator=g)
print(torch.equal(a, b), bool(((a >= 0) & (a < 1)).all()), a.dtype)
state = g.get_state()
r1 = torch.randn(3, generator=g)
g.set_state(state)
r2 = torch.randn(3, generator=g)
print(torch.equal(r1, r2), state.dtype)
ints = torch.randint(3, 8, (200,), generator=g)
print(int(ints.min()) >= 3, int(ints.max()) <= 7, ints.dtype, len(ints.unique()))
w = torch.tensor([0.0, 1.0, 0.0, 3.0])
draws = torch.multinomial(w, 100, replacement=True, generator=g)
print(set(draws.tolist()) <= {1, 3}, torch.multinomial(w, 2, generator=g).sort().values)
t = torch.empty(1000).normal_(2.0, 0.5, generator=g)
print(abs(t.mean().item() - 2.0) < 0.1, abs(t.std().item() - 0.5) < 0.1)
u = torch.empty(4).uniform_(-1, 1, generator=g)
print(bool((u.abs() <= 1).all()), torch.bernoulli(torch.full((6,), 1.0), generator=g))

data = TensorDataset(torch.arange(20.0).unsqueeze(1), torch.arange(20))
train, val, test = random_split(data, [12, 5, 3], generator=torch.Generator().manual_seed(42))
print(len(train), len(val), len(test), type(train).__name__, isinstance(train, Subset))
seen = sorted(train.indices + val.indices + test.indices)
print(seen == list(range(20)), set(train.indices).isdisjoint(val.indices))
again, _, _ = random_split(data, [12, 5, 3], generator=torch.Generator().manual_seed(42))
print(again.indices == train.indices, train[0][1].item() == train.indices[0])
halves = random_split(range(10), [0.7, 0.3], generator=torch.Generator().manual_seed(1))
print([len(h) for h in halves], sorted(list(halves[0]) + list(halves[1])) == list(range(10)))
sub = Subset(data, [3, 1, 4])
print(len(sub), sub[1][1], [int(y) for _, y in sub])

loader = DataLoader(data, batch_size=6, shuffle=True, generator=torch.Generator().manual_seed(5))
epoch1 = torch.cat([y for _, y in loader])
epoch2 = torch.cat([y for _, y in loader])
print(sorted(epoch1.tolist()) == list(range(20)), sorted(epoch2.tolist()) == list(range(20)), [len(y) for _, y in loader])
loader_again = DataLoader(data, batch_size=6, shuffle=True, generator=torch.Generator().manual_seed(5))
print(torch.equal(torch.cat([y for _, y in loader_again]), epoch1))
