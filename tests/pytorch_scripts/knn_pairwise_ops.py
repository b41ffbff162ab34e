"""Nearest-neighbour code from course notebooks: pairwise squared distances by broadcasting
and by the expanded form, torch.topk(largest=False) for the k nearest, kNN classification by
mode/bincount votes, a leave-one-out accuracy, cosine similarity matrices with
F.normalize, and torch.cdist with p=1 and p=inf."""
import numpy as np
import fluxgrad as torch
import fluxgrad.nn.functional as F

rng = np.random.default_rng(37)
centers = np.array([[0, 0], [3, 3], [0, 4]], dtype=np.float32)
labels_np = np.repeat(np.arange(3), 5)
points_np = centers[labels_np] + rng.normal(0, 0.8, (15, 2)).astype(np.float32)
X, y = torch.from_numpy(points_np), torch.from_numpy(labels_np)
queries = torch.tensor([[0.5, 0.2], [2.5, 3.1], [0.1, 3.5], [1.5, 2.0]])

d_broadcast = ((queries[:, None, :] - X[None, :, :]) ** 2).sum(-1)
d_expanded = (queries ** 2).sum(1, keepdim=True) - 2 * queries @ X.T + (X ** 2).sum(1)
print(torch.allclose(d_broadcast, d_expanded, atol=1e-4), d_broadcast.shape)
dist, idx = torch.topk(d_broadcast, k=3, dim=1, largest=False)
print(dist, idx)
votes = y[idx]
pred = torch.mode(votes, dim=1).values
print(votes, pred)
print(torch.stack([torch.bincount(v, minlength=3) for v in votes]))

D = torch.cdist(X, X)
D.fill_diagonal_(float("inf"))
nearest = D.argmin(dim=1)
print("leave-one-out accuracy", (y[nearest] == y).float().mean().item())
print(torch.cdist(queries, X[:3], p=1), torch.cdist(queries, X[:3], p=float("inf")))

Z = F.normalize(X, dim=1)
S = Z @ Z.T
print(S.diagonal().sum().item(), torch.allclose(S, F.cosine_similarity(X[:, None], X[None], dim=-1), atol=1e-5))
print(S[:3, :3], S.triu(diagonal=1).max().item())
order = torch.argsort(d_broadcast[3], stable=True)
print(order[:5], torch.sort(d_broadcast[3]).values[:5])
