"""Reproducibility the way training scripts set it up: a seed_everything helper (random, NumPy,
torch.manual_seed), identical draws after re-seeding (rand, randn, randint, randperm, normal_,
dropout masks, multinomial, bernoulli), torch.Generator objects passed explicitly and their
independence from the global state, initial_seed, get_rng_state / set_rng_state replay, fork_rng
leaving the global stream untouched, a shuffled DataLoader with a seeded generator giving the same
order twice, use_deterministic_algorithms flags, and two models built from the same seed being
equal. Values differ between libraries, so only equalities and shapes are printed."""
import random

import numpy as np
import fluxgrad as torch
import fluxgrad.nn as nn
from fluxgrad.utils.data import DataLoader, TensorDataset


def seed_everything(seed):
    random.seed(seed)
    np.random.seed(seed)
    torch.manual_seed(seed)


def draws():
    return [torch.rand(3), torch.randn(2, 2), torch.randint(0, 10, (5,)), torch.randperm(6),
            torch.empty(4).normal_(), nn.functional.dropout(torch.ones(8), 0.5),
            torch.multinomial(torch.tensor([0.2, 0.3, 0.5]), 4, replacement=True),
            torch.bernoulli(torch.full((6,), 0.5)), torch.rand_like(torch.zeros(2)),
            torch.randn(3, dtype=torch.float64)]


seed_everything(1234)
first = draws()
seed_everything(1234)
second = draws()
print([torch.equal(a, b) for a, b in zip(first, second)])
print([tuple(a.shape) for a in first], [a.dtype for a in first])
print(sorted(first[3].tolist()), set(first[5].tolist()) <= {0.0, 2.0}, first[2].min() >= 0, first[2].max() < 10)
seed_everything(1235)
print(torch.equal(torch.rand(3), first[0]))
print(torch.initial_seed())

g = torch.Generator().manual_seed(7)
a = torch.rand(4, generator=g)
torch.manual_seed(0)
torch.rand(100)
g2 = torch.Generator()
g2.manual_seed(7)
print(torch.equal(a, torch.rand(4, generator=g2)), g.initial_seed())
print(torch.equal(torch.randperm(5, generator=torch.Generator().manual_seed(3)),
                  torch.randperm(5, generator=torch.Generator().manual_seed(3))))

torch.manual_seed(5)
state = torch.get_rng_state()
x1 = torch.randn(3)
torch.set_rng_state(state)
x2 = torch.randn(3)
print(torch.equal(x1, x2), state.dtype)
gstate = g.get_state()
y1 = torch.randn(2, generator=g)
g.set_state(gstate)
print(torch.equal(y1, torch.randn(2, generator=g)))

torch.manual_seed(9)
before = torch.rand(2)
torch.manual_seed(9)
with torch.random.fork_rng():
    torch.manual_seed(123)
    torch.rand(50)
print(torch.equal(before, torch.rand(2)))

data = TensorDataset(torch.arange(10))
order1 = [b[0].tolist() for b in DataLoader(data, batch_size=3, shuffle=True, generator=torch.Generator().manual_seed(0))]
order2 = [b[0].tolist() for b in DataLoader(data, batch_size=3, shuffle=True, generator=torch.Generator().manual_seed(0))]
print(order1 == order2, sorted(sum(order1, [])) == list(range(10)), [len(b) for b in order1])

torch.use_deterministic_algorithms(True)
print(torch.are_deterministic_algorithms_enabled())
torch.use_deterministic_algorithms(False)
print(torch.are_deterministic_algorithms_enabled())


def build():
    torch.manual_seed(42)
    return nn.Sequential(nn.Linear(4, 8), nn.ReLU(), nn.Linear(8, 2))


m1, m2 = build(), build()
print(all(torch.equal(p, q) for p, q in zip(m1.parameters(), m2.parameters())))
torch.manual_seed(1)
m3 = nn.Sequential(nn.Linear(4, 8), nn.ReLU(), nn.Linear(8, 2))
print(all(torch.equal(p, q) for p, q in zip(m1.parameters(), m3.parameters())))
drop = nn.Dropout(0.3)
torch.manual_seed(3)
o1 = drop(torch.ones(20))
torch.manual_seed(3)
o2 = drop(torch.ones(20))
print(torch.equal(o1, o2), drop.eval()(torch.ones(3)))
