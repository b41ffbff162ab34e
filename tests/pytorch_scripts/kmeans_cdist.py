"""k-means and nearest-neighbour code written with tensor ops: cdist (p=2 and p=1, batched),
argmin assignments, centroid updates with index_add_ / bincount and empty-cluster handling,
inertia, k-means++ seeding from NumPy draws, a kNN classifier with topk(largest=False) and mode,
pairwise distances by the ||a||^2 - 2ab + ||b||^2 expansion, and the gradient of a soft assignment
loss through cdist."""
import numpy as np
import fluxgrad as torch

rng = np.random.default_rng(37)
centers_true = np.array([[0.0, 0.0], [4.0, 4.0], [-4.0, 3.0]])
pts = np.concatenate([c + 0.6 * rng.standard_normal((8, 2)) for c in centers_true]).astype(np.float32)
X = torch.from_numpy(pts)

first = int(rng.integers(len(pts)))
chosen = [first]
for _ in range(2):
    d = torch.cdist(X, X[chosen]).min(dim=1).values ** 2
    p = (d / d.sum()).numpy().astype(np.float64)
    chosen.append(int(rng.choice(len(pts), p=p / p.sum())))
centroids = X[chosen].clone()
print(chosen, centroids)

for it in range(6):
    dist = torch.cdist(X, centroids)
    assign = dist.argmin(dim=1)
    counts = torch.bincount(assign, minlength=3).float()
    sums = torch.zeros_like(centroids).index_add_(0, assign, X)
    new = torch.where(counts[:, None] > 0, sums / counts.clamp(min=1)[:, None], centroids)
    inertia = dist.gather(1, assign[:, None]).pow(2).sum()
    shift = (new - centroids).norm(dim=1).max()
    centroids = new
    print(it, counts.tolist(), f"{inertia.item():.4f}", f"{shift.item():.5f}")
    if shift < 1e-6:
        break
order = centroids[:, 0].argsort()
print(centroids[order])

a = X[:5]
b = X[-4:]
expanded = (a.pow(2).sum(1, keepdim=True) - 2 * a @ b.T + b.pow(2).sum(1)).clamp_min(0).sqrt()
print(torch.allclose(expanded, torch.cdist(a, b), atol=1e-5), torch.cdist(a, b, p=1.0))
print(torch.cdist(a.unsqueeze(0).expand(2, -1, -1), b.unsqueeze(0), p=2).shape)
print(torch.cdist(a, b, p=float("inf")), torch.pairwise_distance(a[:4], b))
print(torch.nn.functional.pdist(a), torch.cdist(a, a).diagonal())

labels = torch.tensor([0] * 8 + [1] * 8 + [2] * 8)
queries = torch.tensor([[0.5, 0.2], [3.5, 3.0], [-3.0, 2.0], [0.0, 3.0]])
d = torch.cdist(queries, X)
knn_d, knn_i = d.topk(5, dim=1, largest=False)
votes = labels[knn_i]
pred = votes.mode(dim=1).values
print(knn_i, votes, pred, knn_d[:, 0])

C = centroids.clone().requires_grad_()
soft = torch.softmax(-torch.cdist(X, C) ** 2 / 0.5, dim=1)
loss = (soft * torch.cdist(X, C) ** 2).sum() / len(X)
loss.backward()
print(f"{loss.item():.5f}", C.grad)
Y = X[:3].clone().requires_grad_()
torch.cdist(Y, X[3:6], p=1).sum().backward()
print(Y.grad)
