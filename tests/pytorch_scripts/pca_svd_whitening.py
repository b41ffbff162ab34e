"""Principal component analysis as notebooks write it: centring, torch.linalg.svd with
full_matrices=False and a deterministic sign convention, explained variance ratios,
agreement with torch.linalg.eigh of the covariance (torch.cov), projection and
reconstruction error per number of components, and ZCA whitening (identity covariance)."""
import numpy as np
import fluxgrad as torch

rng = np.random.default_rng(73)
latent = rng.standard_normal((50, 2))
mixing = np.array([[3.0, 0.5, 1.0, 0.0], [0.0, 1.0, -1.0, 0.5]])
X = torch.tensor(latent @ mixing + 0.1 * rng.standard_normal((50, 4)), dtype=torch.float64)
mean = X.mean(dim=0, keepdim=True)
Xc = X - mean
U, S, Vh = torch.linalg.svd(Xc, full_matrices=False)
signs = torch.sign(Vh[torch.arange(Vh.size(0)), Vh.abs().argmax(dim=1)])
Vh = Vh * signs[:, None]
U = U * signs
explained = S ** 2 / (X.size(0) - 1)
print(S, explained / explained.sum(), torch.cumsum(explained / explained.sum(), 0))
cov = torch.cov(X.T)
evals, evecs = torch.linalg.eigh(cov)
print(torch.allclose(evals.flip(0), explained), torch.allclose(cov, Xc.T @ Xc / 49))
print(torch.allclose((evecs.flip(1).T @ Vh.T).abs(), torch.eye(4, dtype=torch.float64), atol=1e-8))
print(Vh)
for k in range(1, 5):
    Z = Xc @ Vh[:k].T
    recon = Z @ Vh[:k] + mean
    print(k, ((X - recon) ** 2).sum().item(), torch.allclose(Z, U[:, :k] * S[:k]))
W = evecs @ torch.diag(1.0 / torch.sqrt(evals + 1e-8)) @ evecs.T
white = Xc @ W
print(torch.cov(white.T).diagonal(), torch.allclose(torch.cov(white.T), torch.eye(4, dtype=torch.float64), atol=1e-6))
print(torch.linalg.matrix_rank(Xc), torch.linalg.norm(Xc, ord="fro"), torch.linalg.norm(Xc, ord=2), S[0])
