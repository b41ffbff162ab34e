"""Expectation-maximisation for a Gaussian mixture in tensor ops, no autograd: the E-step
with MultivariateNormal log-densities and logsumexp, the M-step with weighted means and
covariances (einsum outer products), the log-likelihood climbing each iteration, and
hard assignments; the same responsibilities from log_softmax."""
import numpy as np
import fluxgrad as torch
from fluxgrad.distributions import MultivariateNormal

rng = np.random.default_rng(59)
X_np = np.concatenate([rng.normal([0, 0], 0.5, (20, 2)), rng.normal([3, 2], 0.7, (20, 2))])
X = torch.tensor(X_np, dtype=torch.float64)
K, (N, D) = 2, X.shape
means = X[torch.tensor([0, 39])].clone()
covs = torch.eye(D, dtype=torch.float64).repeat(K, 1, 1)
weights = torch.full((K,), 1.0 / K, dtype=torch.float64)

prev = -float("inf")
for it in range(6):
    log_p = torch.stack([MultivariateNormal(means[k], covs[k]).log_prob(X) for k in range(K)], dim=1)
    weighted = log_p + weights.log()
    ll = torch.logsumexp(weighted, dim=1)
    resp = (weighted - ll[:, None]).exp()
    Nk = resp.sum(0)
    means = resp.T @ X / Nk[:, None]
    diff = X[None, :, :] - means[:, None, :]
    covs = torch.einsum("kn,kni,knj->kij", resp.T, diff, diff) / Nk[:, None, None]
    covs = covs + 1e-6 * torch.eye(D, dtype=torch.float64)
    weights = Nk / N
    total = ll.sum().item()
    print(f"iter {it}: log-likelihood {total:.6f} increased {total >= prev}")
    prev = total
print(means, weights)
print(covs)
print(torch.allclose(resp, torch.softmax(weighted, dim=1)), resp.argmax(1).bincount())
print(torch.linalg.det(covs), torch.linalg.eigvalsh(covs))
