"""Eigen-decompositions in real use: spectral clustering of two moons-free blobs (an RBF affinity
from torch.cdist, the normalised Laplacian, torch.linalg.eigh, the Fiedler vector's sign as the
cluster), PCA by eigh of the covariance with the explained variance ratio, sampling from a GP prior
by Cholesky with jitter and checking the empirical covariance, and the Mahalanobis distance by
solve_triangular."""
import numpy as np
import fluxgrad as torch

rng = np.random.default_rng(42)
blob_a = rng.normal([0, 0], 0.3, size=(10, 2))
blob_b = rng.normal([3, 3], 0.3, size=(10, 2))
X = torch.from_numpy(np.concatenate([blob_a, blob_b]).astype(np.float64))

dist = torch.cdist(X, X)
W = torch.exp(-dist ** 2 / (2 * 0.5 ** 2))
W.fill_diagonal_(0)
deg = W.sum(1)
D_inv_sqrt = torch.diag(deg.rsqrt())
L_sym = torch.eye(20, dtype=torch.float64) - D_inv_sqrt @ W @ D_inv_sqrt
evals, evecs = torch.linalg.eigh(L_sym)
print(evals[:3].round(decimals=6), torch.linalg.eigvalsh(L_sym)[2], evals.min() > -1e-9)
fiedler = evecs[:, 1]
labels = (fiedler * fiedler[0].sign() > 0).long()
print(labels, labels[:10].sum().item(), labels[10:].sum().item())

data = torch.from_numpy(rng.normal(size=(200, 3)) @ np.array([[2.0, 0.0, 0.0], [1.0, 0.5, 0.0], [0.0, 0.2, 0.1]]))
centered = data - data.mean(0, keepdim=True)
cov = centered.T @ centered / (data.shape[0] - 1)
print(torch.allclose(cov, torch.cov(data.T)), cov.shape)
vals, vecs = torch.linalg.eigh(cov)
order = vals.argsort(descending=True)
vals, vecs = vals[order], vecs[:, order]
ratio = vals / vals.sum()
proj = centered @ vecs[:, :2]
print(ratio, ratio.cumsum(0), proj.var(0), vals[:2])
recon = proj @ vecs[:, :2].T
print("recon error", ((recon - centered) ** 2).sum(1).mean(), vals[2])

xs = torch.linspace(0, 5, 25, dtype=torch.float64).unsqueeze(1)
K = torch.exp(-0.5 * torch.cdist(xs, xs) ** 2 / 1.0 ** 2)
Lk = torch.linalg.cholesky(K + 1e-6 * torch.eye(25, dtype=torch.float64))
eps = torch.from_numpy(rng.normal(size=(25, 4000)))
samples = Lk @ eps
emp_cov = samples @ samples.T / 4000
print((emp_cov - K).abs().max() < 0.1, samples.shape, torch.linalg.eigvalsh(K).min() > -1e-8)
try:
    torch.linalg.cholesky(K - 0.5 * torch.eye(25, dtype=torch.float64))
except torch.linalg.LinAlgError as err:
    print("not positive definite:", isinstance(err, RuntimeError))
Lc, info = torch.linalg.cholesky_ex(K - 0.5 * torch.eye(25, dtype=torch.float64))
print(info.item() > 0)

mu = data.mean(0)
Lcov = torch.linalg.cholesky(cov)
queries = torch.tensor([[0.0, 0.0, 0.0], [2.0, 1.0, 0.2], [0.0, 2.0, 0.0]], dtype=torch.float64)
z = torch.linalg.solve_triangular(Lcov, (queries - mu).T, upper=False)
maha = z.pow(2).sum(0).sqrt()
direct = ((queries - mu) @ torch.linalg.inv(cov) * (queries - mu)).sum(1).sqrt()
print(maha, torch.allclose(maha, direct))
