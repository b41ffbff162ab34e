"""Entropic optimal transport between two point clouds with log-domain Sinkhorn iterations
(logsumexp over the cost matrix from cdist), the transport plan's marginals, the Sinkhorn
cost, and its gradient with respect to the source points moved by a few gradient steps."""
import numpy as np
import fluxgrad as torch

rng = np.random.default_rng(91)
n, m = 5, 4
x = torch.tensor(rng.standard_normal((n, 2)), dtype=torch.float64, requires_grad=True)
y = torch.tensor(rng.standard_normal((m, 2)) + 2.0, dtype=torch.float64)
a = torch.full((n,), 1.0 / n, dtype=torch.float64)
b = torch.tensor([0.1, 0.2, 0.3, 0.4], dtype=torch.float64)


def sinkhorn(x, y, a, b, eps=0.5, iters=50):
    C = torch.cdist(x, y, p=2) ** 2
    f = torch.zeros_like(a)
    g = torch.zeros_like(b)
    for _ in range(iters):
        f = -eps * torch.logsumexp((g[None, :] - C) / eps + torch.log(b)[None, :], dim=1)
        g = -eps * torch.logsumexp((f[:, None] - C) / eps + torch.log(a)[:, None], dim=0)
    log_P = (f[:, None] + g[None, :] - C) / eps + torch.log(a)[:, None] + torch.log(b)[None, :]
    P = log_P.exp()
    return (P * C).sum(), P, C


cost, P, C = sinkhorn(x, y, a, b)
print(cost.item(), P.sum(1), P.sum(0))
print(P)
cost.backward()
print(x.grad)
opt = torch.optim.SGD([x], lr=0.5)
for it in range(4):
    opt.zero_grad()
    cost, P, _ = sinkhorn(x, y, a, b)
    cost.backward()
    opt.step()
    print(f"iter {it}: cost {cost.item():.6f} grad norm {x.grad.norm().item():.6f}")
print(x.detach(), P.argmax(dim=1))
