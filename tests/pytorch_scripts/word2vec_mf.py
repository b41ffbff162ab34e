"""Embedding models from course notebooks: skip-gram with negative sampling (two nn.Embedding tables,
bmm of center and context vectors, logsigmoid), nearest words by cosine similarity and topk, and matrix
factorisation for ratings (user/item embeddings and biases, dot products, MSE with weight decay),
Embedding with max_norm, sparse=True (its gradient's values; fluxgrad keeps it dense), from_pretrained."""
import numpy as np
import fluxgrad as torch
import fluxgrad.nn as nn
import fluxgrad.nn.functional as F

rng = np.random.default_rng(89)
vocab_size, embed_dim = 10, 4


class SkipGramNeg(nn.Module):
    def __init__(self, vocab_size, embed_dim):
        super().__init__()
        self.in_embed = nn.Embedding(vocab_size, embed_dim)
        self.out_embed = nn.Embedding(vocab_size, embed_dim)
        with torch.no_grad():
            self.in_embed.weight.copy_(torch.from_numpy(rng.uniform(-1, 1, (vocab_size, embed_dim)).astype(np.float32)))
            self.out_embed.weight.copy_(torch.from_numpy(rng.uniform(-1, 1, (vocab_size, embed_dim)).astype(np.float32)))

    def forward(self, center, context, negatives):
        c = self.in_embed(center).unsqueeze(2)
        pos = self.out_embed(context).unsqueeze(1)
        neg = self.out_embed(negatives).neg()
        pos_loss = F.logsigmoid(torch.bmm(pos, c).squeeze()).squeeze()
        neg_loss = F.logsigmoid(torch.bmm(neg, c).squeeze(2)).sum(1)
        return -(pos_loss + neg_loss).mean()


model = SkipGramNeg(vocab_size, embed_dim)
center = torch.tensor([1, 2, 3, 4])
context = torch.tensor([2, 3, 4, 5])
optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
for step in range(4):
    negatives = torch.from_numpy(rng.integers(0, vocab_size, (4, 3)))
    loss = model(center, context, negatives)
    optimizer.zero_grad()
    loss.backward()
    optimizer.step()
    print(step, round(loss.item(), 5), model.in_embed.weight.grad[0].abs().sum().item(), model.in_embed.weight.grad[1].abs().sum() > 0)
emb = model.in_embed.weight.detach()
normed = F.normalize(emb, dim=1)
sims = normed @ normed[3]
values, ids = sims.topk(3)
print(ids, values, F.cosine_similarity(emb[3:4], emb, dim=1)[ids])
n_users, n_items, k = 5, 6, 3
users = torch.tensor([0, 0, 1, 2, 3, 4, 4, 1])
items = torch.tensor([0, 1, 2, 3, 4, 5, 0, 5])
ratings = torch.tensor([5.0, 3.0, 4.0, 1.0, 2.0, 5.0, 4.0, 3.0])


class MF(nn.Module):
    def __init__(self):
        super().__init__()
        self.user_factors = nn.Embedding(n_users, k)
        self.item_factors = nn.Embedding(n_items, k)
        self.user_bias = nn.Embedding(n_users, 1)
        self.item_bias = nn.Embedding(n_items, 1)
        self.global_bias = nn.Parameter(torch.tensor(ratings.mean().item()))

    def forward(self, u, i):
        dot = (self.user_factors(u) * self.item_factors(i)).sum(dim=1)
        return dot + self.user_bias(u).squeeze(1) + self.item_bias(i).squeeze(1) + self.global_bias


mf = MF()
with torch.no_grad():
    for p in [mf.user_factors.weight, mf.item_factors.weight]:
        p.copy_(torch.from_numpy(rng.normal(0, 0.1, tuple(p.shape)).astype(np.float32)))
    mf.user_bias.weight.zero_()
    mf.item_bias.weight.zero_()
opt = torch.optim.Adam(mf.parameters(), lr=0.05, weight_decay=1e-4)
for epoch in range(5):
    pred = mf(users, items)
    loss = F.mse_loss(pred, ratings)
    opt.zero_grad()
    loss.backward()
    opt.step()
    print(epoch, round(loss.item(), 4), round(torch.sqrt(loss).item(), 4))
with torch.no_grad():
    full = mf.user_factors.weight @ mf.item_factors.weight.T + mf.user_bias.weight + mf.item_bias.weight.T + mf.global_bias
print(full.shape, full[0, :3], full.argmax(dim=1))
capped = nn.Embedding(4, 3, max_norm=1.0)
with torch.no_grad():
    capped.weight.copy_(torch.tensor([[3.0, 4.0, 0.0], [0.1, 0.1, 0.1], [1.0, 1.0, 1.0], [0.0, 0.0, 2.0]]))
out = capped(torch.tensor([0, 1, 2]))
print(out, capped.weight.norm(dim=1))
sp = nn.Embedding(5, 2, sparse=True)
sp(torch.tensor([1, 1, 3])).sum().backward()
print(sp.weight.grad.to_dense() if sp.weight.grad.is_sparse else sp.weight.grad)
print(nn.Embedding.from_pretrained(torch.eye(3), freeze=False).weight.requires_grad, nn.Embedding.from_pretrained(torch.eye(3), padding_idx=0)(torch.tensor([0, 2])))
print(F.embedding(torch.tensor([[0, 2], [1, 1]]), torch.arange(6.0).view(3, 2)), F.one_hot(torch.tensor([[0, 2], [1, 1]]), num_classes=4).shape)
