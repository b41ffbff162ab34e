"""Learning-to-rank losses as ranking libraries implement them in PyTorch: NDCG@k from sorted
relevance with torch.sort/gather and log2 discounts, ListNet (cross entropy between softmaxed
labels and scores), ListMLE (Plackett-Luce likelihood with logcumsumexp over a flipped sort),
a RankNet pairwise loss over all pairs with BCE-with-logits, LambdaRank weights by |delta NDCG|
of swapping pairs, padded lists masked with -inf, and a linear scorer trained on them."""
import numpy as np
import fluxgrad as torch
import fluxgrad.nn.functional as F

rng = np.random.default_rng(2005)
n_queries, n_docs, n_feat = 4, 6, 5
feats = torch.from_numpy(rng.normal(size=(n_queries, n_docs, n_feat)).astype(np.float32))
w_true = torch.from_numpy(rng.normal(size=n_feat).astype(np.float32))
labels = torch.clamp(torch.round(feats @ w_true + 1.5), 0, 4)
mask = torch.ones(n_queries, n_docs, dtype=torch.bool)
mask[1, 4:] = False
mask[3, 5:] = False
print(labels, mask.sum(1))


def dcg_at_k(rels, k):
    discounts = 1.0 / torch.log2(torch.arange(2, rels.shape[-1] + 2, dtype=torch.float32))
    gains = (2 ** rels - 1) * discounts
    return gains[..., :k].sum(-1)


def ndcg_at_k(scores, rels, mask, k=3):
    scores = scores.masked_fill(~mask, float("-inf"))
    _, order = torch.sort(scores, descending=True, dim=-1)
    ranked = torch.gather(rels * mask, -1, order)
    ideal, _ = torch.sort(rels * mask, descending=True, dim=-1)
    return dcg_at_k(ranked, k) / dcg_at_k(ideal, k).clamp(min=1e-10)


def listnet_loss(scores, rels, mask):
    scores = scores.masked_fill(~mask, float("-inf"))
    target = torch.softmax(rels.masked_fill(~mask, float("-inf")), dim=-1)
    return -(target * torch.log_softmax(scores, dim=-1).masked_fill(~mask, 0.0)).sum(-1).mean()


def listmle_loss(scores, rels, mask):
    rels = rels.masked_fill(~mask, -1.0)
    _, order = rels.sort(descending=True, dim=-1)
    s = torch.gather(scores, -1, order)
    m = torch.gather(mask, -1, order)
    s = s.masked_fill(~m, float("-inf"))
    cums = torch.logcumsumexp(s.flip(-1), dim=-1).flip(-1)
    return ((cums - s).masked_fill(~m, 0.0)).sum(-1).mean()


def ranknet_loss(scores, rels, mask, lambda_weights=False):
    diff = scores.unsqueeze(-1) - scores.unsqueeze(-2)
    target = (rels.unsqueeze(-1) > rels.unsqueeze(-2)).float()
    valid = (rels.unsqueeze(-1) != rels.unsqueeze(-2)) & mask.unsqueeze(-1) & mask.unsqueeze(-2)
    weight = valid.float()
    if lambda_weights:
        with torch.no_grad():
            ranks = torch.argsort(torch.argsort(scores.masked_fill(~mask, float("-inf")), dim=-1, descending=True), dim=-1)
            disc = 1.0 / torch.log2(ranks.float() + 2)
            gain = 2 ** rels - 1
            ideal = dcg_at_k(torch.sort(rels * mask, descending=True, dim=-1).values, n_docs).clamp(min=1e-10)
            delta = ((gain.unsqueeze(-1) - gain.unsqueeze(-2)) * (disc.unsqueeze(-1) - disc.unsqueeze(-2))).abs()
            weight = weight * delta / ideal[:, None, None]
    loss = F.binary_cross_entropy_with_logits(diff, target, weight=weight, reduction="sum")
    return loss / valid.sum()


scores0 = feats @ torch.ones(n_feat)
print(ndcg_at_k(scores0, labels, mask), ndcg_at_k(labels, labels, mask))
print(listnet_loss(scores0, labels, mask), listmle_loss(scores0, labels, mask), ranknet_loss(scores0, labels, mask), ranknet_loss(scores0, labels, mask, True))

for name, loss_fn in (("listnet", listnet_loss), ("listmle", listmle_loss), ("lambdarank", lambda s, r, m: ranknet_loss(s, r, m, True))):
    w = torch.zeros(n_feat, requires_grad=True)
    opt = torch.optim.SGD([w], lr=0.5)
    for step in range(20):
        opt.zero_grad()
        loss = loss_fn(feats @ w, labels, mask)
        loss.backward()
        opt.step()
    print(name, round(loss.item(), 5), ndcg_at_k((feats @ w).detach(), labels, mask).mean().item(), F.cosine_similarity(w.detach(), w_true, dim=0).item())
