"""Logistic regression fitted three ways: Newton's method with the Hessian from
torch.autograd.functional.hessian and torch.linalg.solve, iteratively reweighted least
squares in closed form (X^T W X), and LBFGS with a strong-Wolfe line search; the three
coefficient vectors agree, and the gradient at the optimum vanishes."""
import numpy as np
import fluxgrad as torch
import fluxgrad.nn.functional as F
from fluxgrad.autograd.functional import hessian, jacobian

rng = np.random.default_rng(67)
n, d = 40, 3
X = torch.tensor(np.c_[np.ones(n), rng.standard_normal((n, d - 1))], dtype=torch.float64)
true_w = torch.tensor([0.5, -1.0, 2.0], dtype=torch.float64)
y = torch.tensor(rng.uniform(size=n), dtype=torch.float64) < torch.sigmoid(X @ true_w)
y = y.double()


def nll(w):
    return F.binary_cross_entropy_with_logits(X @ w, y, reduction="sum") + 0.05 * (w ** 2).sum()


w = torch.zeros(d, dtype=torch.float64)
for it in range(6):
    g = jacobian(nll, w)
    H = hessian(nll, w)
    w = w - torch.linalg.solve(H, g)
    print(f"newton {it}: nll {nll(w).item():.8f} |g| {g.norm().item():.3e}")

v = torch.zeros(d, dtype=torch.float64)
for it in range(6):
    p = torch.sigmoid(X @ v)
    W = p * (1 - p)
    H = X.T @ (W[:, None] * X) + 0.1 * torch.eye(d, dtype=torch.float64)
    grad = X.T @ (p - y) + 0.1 * v
    v = v - torch.linalg.solve(H, grad)
print(w, v, torch.allclose(w, v, atol=1e-8))

u = torch.zeros(d, dtype=torch.float64, requires_grad=True)
opt = torch.optim.LBFGS([u], lr=1, max_iter=50, line_search_fn="strong_wolfe", tolerance_grad=1e-10)


def closure():
    opt.zero_grad()
    loss = nll(u)
    loss.backward()
    return loss


opt.step(closure)
print(u.detach(), torch.allclose(u.detach(), w, atol=1e-5), u.grad.abs().max().item() < 1e-6)
print(torch.linalg.eigvalsh(hessian(nll, w)), torch.linalg.cond(hessian(nll, w)))
