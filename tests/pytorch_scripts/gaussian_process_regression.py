"""Gaussian process regression from scratch (the GPyTorch-free version in course notebooks):
an RBF kernel from torch.cdist, Cholesky of K + noise, the posterior mean and variance by
cholesky_solve / solve_triangular, the log marginal likelihood, and its hyperparameters
(log lengthscale, log signal, log noise) fitted with Adam through the Cholesky factor."""
import math
import numpy as np
import fluxgrad as torch

torch.set_default_dtype(torch.float64)
rng = np.random.default_rng(4)
X = torch.from_numpy(np.sort(rng.uniform(-3, 3, 12))).unsqueeze(1)
y = torch.sin(X).squeeze(1) + 0.1 * torch.from_numpy(rng.standard_normal(12))
Xs = torch.linspace(-3, 3, 7).unsqueeze(1)


def rbf(a, b, log_ell, log_sf):
    d2 = torch.cdist(a, b).pow(2)
    return torch.exp(2 * log_sf) * torch.exp(-0.5 * d2 / torch.exp(2 * log_ell))


def posterior(log_ell, log_sf, log_sn):
    K = rbf(X, X, log_ell, log_sf) + torch.exp(2 * log_sn) * torch.eye(len(X))
    L = torch.linalg.cholesky(K)
    alpha = torch.cholesky_solve(y.unsqueeze(1), L)
    Ks = rbf(X, Xs, log_ell, log_sf)
    mean = (Ks.t() @ alpha).squeeze(1)
    v = torch.linalg.solve_triangular(L, Ks, upper=False)
    var = torch.exp(2 * log_sf) - (v * v).sum(0)
    return mean, var


def neg_log_marginal(log_ell, log_sf, log_sn):
    K = rbf(X, X, log_ell, log_sf) + torch.exp(2 * log_sn) * torch.eye(len(X))
    L = torch.linalg.cholesky(K)
    alpha = torch.cholesky_solve(y.unsqueeze(1), L)
    return (0.5 * (y.unsqueeze(1) * alpha).sum() + torch.log(torch.diagonal(L)).sum()
            + 0.5 * len(X) * math.log(2 * math.pi))


params = [torch.tensor(0.5, requires_grad=True), torch.tensor(0.0, requires_grad=True), torch.tensor(-1.0, requires_grad=True)]
K0 = rbf(X, X, params[0], params[1]).detach()
print(K0.shape, K0.diagonal()[:3], torch.allclose(K0, K0.t()))
L0 = torch.linalg.cholesky(K0 + 0.01 * torch.eye(12))
print(torch.allclose(L0 @ L0.t(), K0 + 0.01 * torch.eye(12)), L0[:3, :3])
print(f"{neg_log_marginal(*params).item():.6f}")
mean, var = posterior(*params)
print(mean.detach(), var.detach())

opt = torch.optim.Adam(params, lr=0.05)
for it in range(40):
    opt.zero_grad()
    loss = neg_log_marginal(*params)
    loss.backward()
    opt.step()
    if it % 10 == 0:
        print(it, f"{loss.item():.6f}", [f"{p.item():.4f}" for p in params])
print([f"{torch.exp(p).item():.4f}" for p in params])
with torch.no_grad():
    mean, var = posterior(*params)
    print(mean, var.clamp_min(0).sqrt())
    print(torch.linalg.cholesky_ex(torch.tensor([[1.0, 2.0], [2.0, 1.0]])).info)
    sign, logdet = torch.linalg.slogdet(rbf(X, X, *params[:2]) + torch.exp(2 * params[2]) * torch.eye(12))
    print(sign, f"{logdet.item():.6f}")
torch.set_default_dtype(torch.float32)
