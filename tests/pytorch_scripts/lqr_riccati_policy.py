"""Linear-quadratic control as a controls course writes it with tensors: a double integrator
discretised, the infinite-horizon discrete Riccati equation by fixed-point iteration, the gain
K = (R + B^T P B)^-1 B^T P A with linalg.solve, closed-loop eigenvalue magnitudes (via the
characteristic polynomial of the 2x2 system), batched rollouts as row-vector matmuls, the
finite-horizon cost, and policy-gradient style optimisation of K by autograd through the rollout,
which approaches the Riccati gain."""
import numpy as np
import fluxgrad as torch

dt = 0.1
A = torch.tensor([[1.0, dt], [0.0, 1.0]], dtype=torch.float64)
B = torch.tensor([[0.5 * dt ** 2], [dt]], dtype=torch.float64)
Q = torch.diag(torch.tensor([1.0, 0.1], dtype=torch.float64))
R = torch.tensor([[0.01]], dtype=torch.float64)

P = Q.clone()
for it in range(500):
    K = torch.linalg.solve(R + B.T @ P @ B, B.T @ P @ A)
    P_next = Q + A.T @ P @ A - A.T @ P @ B @ K
    if (P_next - P).abs().max() < 1e-12:
        break
    P = P_next
print(it, P, K)
residual = Q + A.T @ P @ A - A.T @ P @ B @ torch.linalg.inv(R + B.T @ P @ B) @ B.T @ P @ A - P
print(residual.abs().max() < 1e-9, torch.linalg.eigvalsh(P) > 0)

Acl = A - B @ K
tr, det = torch.trace(Acl), torch.linalg.det(Acl)
disc = tr ** 2 - 4 * det
mags = torch.sqrt(det) if disc < 0 else ((tr.abs() + disc.sqrt()) / 2)
print(Acl, round(tr.item(), 6), round(det.item(), 6), mags < 1)

rng = np.random.default_rng(3)
x0 = torch.from_numpy(rng.normal(size=(8, 2)))


def rollout_cost(gain, x0, horizon=30):
    x, cost = x0, torch.zeros((), dtype=torch.float64)
    for _ in range(horizon):
        u = -x @ gain.T
        cost = cost + ((x @ Q) * x).sum() + ((u @ R) * u).sum()
        x = x @ A.T + u @ B.T
    return cost / x0.shape[0], x


cost_opt, x_final = rollout_cost(K, x0)
print(round(cost_opt.item(), 6), x_final.norm(dim=1).max() < 0.05, torch.einsum("bi,ij,bj->b", x0, P, x0).mean())

gain = torch.tensor([[1.0, 1.0]], dtype=torch.float64, requires_grad=True)
opt = torch.optim.Adam([gain], lr=0.5)
for step in range(24):
    opt.zero_grad()
    cost, _ = rollout_cost(gain, x0)
    cost.backward()
    opt.step()
    if step % 8 == 0:
        print(step, round(cost.item(), 5), gain.grad)
print(gain.detach(), K, round(rollout_cost(gain.detach(), x0)[0].item(), 5))
