"""Metric learning as face-recognition and retrieval tutorials write it: L2-normalized embeddings,
batch-hard triplet mining from a pairwise distance matrix (masks from label equality, max over
positives, min over negatives with masked_fill), TripletMarginLoss (p, margin, swap) and
TripletMarginWithDistanceLoss with a cosine distance, CosineEmbeddingLoss, MarginRankingLoss,
HingeEmbeddingLoss, a supervised-contrastive (SupCon) loss with a temperature, ArcFace-style
angular margins with acos/clamp, and recall@1 evaluation."""
import numpy as np
import fluxgrad as torch
import fluxgrad.nn as nn
import fluxgrad.nn.functional as F

rng = np.random.default_rng(59)
labels = torch.tensor([0, 0, 1, 1, 2, 2, 0, 1])
centres = rng.standard_normal((3, 6))
feats = torch.from_numpy((centres[labels.numpy()] + 0.7 * rng.standard_normal((8, 6))).astype(np.float32))
proj = nn.Linear(6, 4)
with torch.no_grad():
    proj.weight.copy_(torch.from_numpy(rng.uniform(-0.5, 0.5, (4, 6)).astype(np.float32)))
    proj.bias.zero_()


def batch_hard(emb, labels, margin=0.3):
    dist = torch.cdist(emb, emb)
    same = labels[:, None] == labels[None, :]
    eye = torch.eye(len(labels), dtype=torch.bool)
    hardest_pos = (dist * (same & ~eye).float()).max(dim=1).values
    hardest_neg = dist.masked_fill(same, float("inf")).min(dim=1).values
    return F.relu(hardest_pos - hardest_neg + margin).mean(), hardest_pos, hardest_neg


opt = torch.optim.SGD(proj.parameters(), lr=0.2)
for step in range(4):
    emb = F.normalize(proj(feats), dim=1)
    loss, pos, neg = batch_hard(emb, labels)
    opt.zero_grad()
    loss.backward()
    opt.step()
    print(step, f"{loss.item():.5f}", pos[:3], neg[:3])

emb = F.normalize(proj(feats), dim=1).detach().requires_grad_()
anchor, positive, negative = emb[[0, 2, 4]], emb[[1, 3, 5]], emb[[2, 4, 0]]
for kwargs in ({}, {"margin": 0.5, "p": 1.0}, {"swap": True}, {"reduction": "none"}):
    print(kwargs, nn.TripletMarginLoss(**kwargs)(anchor, positive, negative))
cos_dist = lambda a, b: 1.0 - F.cosine_similarity(a, b)
twd = nn.TripletMarginWithDistanceLoss(distance_function=cos_dist, margin=0.2)
print(twd(anchor, positive, negative), nn.TripletMarginWithDistanceLoss()(anchor, positive, negative))
print(F.triplet_margin_loss(anchor, positive, negative, margin=1.0, eps=1e-6))
target = torch.tensor([1, -1, 1])
print(nn.CosineEmbeddingLoss(margin=0.1)(anchor, negative, target), F.cosine_embedding_loss(anchor, positive, target, reduction="none"))
s1, s2 = torch.tensor([0.8, 0.2, 0.5]), torch.tensor([0.3, 0.4, 0.5])
print(nn.MarginRankingLoss(margin=0.1)(s1, s2, target), F.margin_ranking_loss(s1, s2, target, reduction="sum"))
d = torch.tensor([0.3, 1.5, 0.2, 0.9])
print(nn.HingeEmbeddingLoss(margin=1.0)(d, torch.tensor([1, -1, -1, 1])))


def supcon(emb, labels, temperature=0.1):
    sim = emb @ emb.T / temperature
    n = len(labels)
    self_mask = torch.eye(n, dtype=torch.bool)
    sim = sim.masked_fill(self_mask, -1e9)
    log_prob = sim - torch.logsumexp(sim, dim=1, keepdim=True)
    pos = (labels[:, None] == labels[None, :]) & ~self_mask
    return -(log_prob * pos).sum(1).div(pos.sum(1)).mean()


loss = supcon(emb, labels)
loss.backward()
print(loss, emb.grad[0])

W = F.normalize(torch.from_numpy(rng.standard_normal((3, 4)).astype(np.float32)), dim=1).requires_grad_()
cos = F.normalize(emb.detach(), dim=1) @ W.T
theta = torch.acos(cos.clamp(-1 + 1e-7, 1 - 1e-7))
onehot = F.one_hot(labels, 3).bool()
logits = 16.0 * torch.where(onehot, torch.cos(theta + 0.3), cos)
arc = F.cross_entropy(logits, labels)
arc.backward()
print(arc, W.grad[1])

with torch.no_grad():
    e = F.normalize(proj(feats), dim=1)
    d = torch.cdist(e, e).fill_diagonal_(float("inf"))
    nn_idx = d.argmin(dim=1)
    print(nn_idx, (labels[nn_idx] == labels).float().mean())
