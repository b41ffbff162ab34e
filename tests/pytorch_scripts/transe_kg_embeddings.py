"""TransE knowledge-graph embeddings as in OpenKE-style code: entity and relation nn.Embedding
tables, the L1/L2 score ||h + r - t||, corrupted triples from NumPy, MarginRankingLoss with
target -1, renormalising the entity rows in no_grad (weight.data.div_ by its norm), and the
filtered rank of the true tail via sorting the scores of every candidate."""
import numpy as np
import fluxgrad as torch
import fluxgrad.nn as nn
import fluxgrad.nn.functional as F

rng = np.random.default_rng(59)
n_ent, n_rel, dim = 8, 3, 5


class TransE(nn.Module):
    def __init__(self, p_norm=1, margin=1.0):
        super().__init__()
        self.ent_embeddings = nn.Embedding(n_ent, dim)
        self.rel_embeddings = nn.Embedding(n_rel, dim)
        bound = 6 / np.sqrt(dim)
        with torch.no_grad():
            self.ent_embeddings.weight.copy_(torch.from_numpy(rng.uniform(-bound, bound, (n_ent, dim)).astype(np.float32)))
            self.rel_embeddings.weight.copy_(torch.from_numpy(rng.uniform(-bound, bound, (n_rel, dim)).astype(np.float32)))
            self.rel_embeddings.weight.data = F.normalize(self.rel_embeddings.weight.data, 2, -1)
        self.p_norm = p_norm
        self.criterion = nn.MarginRankingLoss(margin=margin)

    def _calc(self, h, t, r):
        return torch.norm(h + r - t, self.p_norm, -1)

    def forward(self, triples):
        h = self.ent_embeddings(triples[:, 0])
        r = self.rel_embeddings(triples[:, 1])
        t = self.ent_embeddings(triples[:, 2])
        return self._calc(h, t, r)

    def loss(self, pos, neg):
        target = torch.tensor([-1], dtype=torch.long)
        return self.criterion(pos, neg, target)


triples = torch.tensor([[0, 0, 1], [1, 0, 2], [2, 1, 3], [3, 1, 4], [4, 2, 5], [5, 2, 6], [6, 0, 7]])
model = TransE()
opt = torch.optim.SGD(model.parameters(), lr=0.05)
for epoch in range(6):
    corrupt = triples.clone()
    heads = torch.from_numpy(rng.random(len(triples)) < 0.5)
    rand_ent = torch.from_numpy(rng.integers(0, n_ent, len(triples)))
    corrupt[:, 0] = torch.where(heads, rand_ent, corrupt[:, 0])
    corrupt[:, 2] = torch.where(heads, corrupt[:, 2], rand_ent)
    with torch.no_grad():
        norms = model.ent_embeddings.weight.data.norm(p=2, dim=1, keepdim=True)
        model.ent_embeddings.weight.data.div_(norms)
    pos, neg = model(triples), model(corrupt)
    loss = model.loss(pos, neg)
    opt.zero_grad()
    loss.backward()
    opt.step()
    print(epoch, round(loss.item(), 5), pos.mean().item())

with torch.no_grad():
    h = model.ent_embeddings(triples[:, 0])
    r = model.rel_embeddings(triples[:, 1])
    all_t = model.ent_embeddings.weight
    scores = torch.norm((h + r).unsqueeze(1) - all_t.unsqueeze(0), p=1, dim=-1)
    print(scores.shape, scores[0])
    ranks = (scores < scores.gather(1, triples[:, 2:3])).sum(1) + 1
    print(ranks, (1.0 / ranks.float()).mean(), (ranks <= 3).float().mean())
    sorted_scores, idx = scores.sort(dim=1, stable=True)
    print(idx[:3])
print(model.ent_embeddings.weight.norm(dim=1))
