"""3-D rotations as robotics and point-cloud code writes them: a skew-symmetric "hat" matrix,
torch.linalg.matrix_exp of it against Rodrigues' formula, rotation checks (R^T R = I, det = 1),
the Kabsch algorithm aligning two point clouds by SVD with the reflection fix, the recovered
angle from the trace, batched rotations with einsum, and fitting an axis-angle vector by gradient
descent through matrix_exp."""
import math

import numpy as np
import fluxgrad as torch

rng = np.random.default_rng(5)


def hat(w):
    zero = torch.zeros_like(w[..., 0])
    return torch.stack([torch.stack([zero, -w[..., 2], w[..., 1]], -1),
                        torch.stack([w[..., 2], zero, -w[..., 0]], -1),
                        torch.stack([-w[..., 1], w[..., 0], zero], -1)], -2)


def rodrigues(w):
    theta = w.norm()
    k = hat(w / theta)
    return torch.eye(3) + torch.sin(theta) * k + (1 - torch.cos(theta)) * (k @ k)


w = torch.tensor([0.3, -0.4, 1.2])
R = torch.linalg.matrix_exp(hat(w))
print(R)
print(torch.allclose(R, rodrigues(w), atol=1e-6), torch.allclose(R.T @ R, torch.eye(3), atol=1e-6), torch.linalg.det(R))
angle = torch.acos((torch.trace(R) - 1) / 2)
print(angle, w.norm(), torch.allclose(torch.linalg.matrix_exp(-hat(w)), R.T, atol=1e-6))

points = torch.from_numpy(rng.normal(size=(20, 3)).astype(np.float32))
t_true = torch.tensor([1.0, -2.0, 0.5])
moved = points @ R.T + t_true + 0.01 * torch.from_numpy(rng.normal(size=(20, 3)).astype(np.float32))


def kabsch(P, Q):
    p_mean, q_mean = P.mean(0), Q.mean(0)
    H = (P - p_mean).T @ (Q - q_mean)
    U, S, Vh = torch.linalg.svd(H)
    d = torch.sign(torch.linalg.det(Vh.T @ U.T))
    D = torch.diag(torch.tensor([1.0, 1.0, d.item()]))
    R_est = Vh.T @ D @ U.T
    return R_est, q_mean - p_mean @ R_est.T


R_est, t_est = kabsch(points, moved)
rmsd = ((points @ R_est.T + t_est - moved) ** 2).sum(1).mean().sqrt()
print((R_est - R).abs().max() < 1e-2, t_est, rmsd < 0.02, torch.linalg.det(R_est))

axes = torch.from_numpy(rng.normal(size=(4, 3)).astype(np.float32))
Rs = torch.linalg.matrix_exp(hat(axes))
vecs = torch.from_numpy(rng.normal(size=(4, 3)).astype(np.float32))
rotated = torch.einsum("bij,bj->bi", Rs, vecs)
print(Rs.shape, rotated.norm(dim=1), vecs.norm(dim=1), torch.linalg.det(Rs))

target = torch.linalg.matrix_exp(hat(torch.tensor([0.0, 0.0, math.pi / 3])))
omega = torch.tensor([0.1, 0.1, 0.1], requires_grad=True)
opt = torch.optim.SGD([omega], lr=0.2)
for step in range(30):
    opt.zero_grad()
    loss = (torch.linalg.matrix_exp(hat(omega)) - target).pow(2).sum()
    loss.backward()
    opt.step()
    if step % 10 == 0:
        print(step, round(loss.item(), 6), omega.grad)
print(omega.detach(), math.pi / 3)
