"""A Kalman filter and RTS smoother as a tracking tutorial writes them with tensors: a
constant-velocity model, predict/update with the innovation covariance and the gain by
torch.linalg.solve (not inv), the Joseph-form covariance update, the log-likelihood from
MultivariateNormal(innovation) log_prob, the Rauch-Tung-Striebel backward pass, and fitting the
log of the observation noise by gradient descent through the whole filter."""
import numpy as np
import fluxgrad as torch
from fluxgrad.distributions import MultivariateNormal

rng = np.random.default_rng(1960)
dt, T = 1.0, 16
F_ = torch.tensor([[1.0, dt], [0.0, 1.0]], dtype=torch.float64)
H = torch.tensor([[1.0, 0.0]], dtype=torch.float64)
q = 0.05
Q = q * torch.tensor([[dt ** 3 / 3, dt ** 2 / 2], [dt ** 2 / 2, dt]], dtype=torch.float64)
true_r = 0.5
x = np.array([0.0, 1.0])
truth, obs = [], []
for t in range(T):
    x = F_.numpy() @ x + rng.multivariate_normal(np.zeros(2), Q.numpy())
    truth.append(x.copy())
    obs.append(x[0] + rng.normal(0, np.sqrt(true_r)))
truth = torch.tensor(np.array(truth))
ys = torch.tensor(obs, dtype=torch.float64).unsqueeze(1)


def kalman(ys, R):
    m = torch.zeros(2, dtype=torch.float64)
    P = torch.eye(2, dtype=torch.float64) * 10
    means, covs, preds, log_lik = [], [], [], torch.zeros((), dtype=torch.float64)
    I = torch.eye(2, dtype=torch.float64)
    for y in ys:
        m_pred = F_ @ m
        P_pred = F_ @ P @ F_.T + Q
        preds.append((m_pred, P_pred))
        S = H @ P_pred @ H.T + R
        innovation = y - H @ m_pred
        log_lik = log_lik + MultivariateNormal(torch.zeros(1, dtype=torch.float64), S).log_prob(innovation)
        K = torch.linalg.solve(S, H @ P_pred).T
        m = m_pred + K @ innovation
        IKH = I - K @ H
        P = IKH @ P_pred @ IKH.T + K @ R @ K.T
        means.append(m)
        covs.append(P)
    return torch.stack(means), torch.stack(covs), preds, log_lik


R = torch.tensor([[true_r]], dtype=torch.float64)
means, covs, preds, ll = kalman(ys, R)
print(means.shape, covs.shape, round(ll.item(), 5))
print("filter rmse", ((means[:, 0] - truth[:, 0]) ** 2).mean().sqrt().item(), "obs rmse", ((ys[:, 0] - truth[:, 0]) ** 2).mean().sqrt().item())
print(covs[-1], torch.linalg.eigvalsh(covs[-1]) > 0)

smoothed = [means[-1]]
smoothed_cov = [covs[-1]]
for t in range(T - 2, -1, -1):
    m_pred, P_pred = preds[t + 1]
    G = torch.linalg.solve(P_pred, F_ @ covs[t]).T
    smoothed.insert(0, means[t] + G @ (smoothed[0] - m_pred))
    smoothed_cov.insert(0, covs[t] + G @ (smoothed_cov[0] - P_pred) @ G.T)
smoothed = torch.stack(smoothed)
print("smoother rmse", ((smoothed[:, 0] - truth[:, 0]) ** 2).mean().sqrt().item(), torch.stack(smoothed_cov)[:, 0, 0][:4])

log_r = torch.tensor(0.0, dtype=torch.float64, requires_grad=True)
opt = torch.optim.Adam([log_r], lr=0.1)
for step in range(9):
    opt.zero_grad()
    _, _, _, ll = kalman(ys, log_r.exp().view(1, 1))
    (-ll).backward()
    opt.step()
    if step % 4 == 0:
        print(step, round(-ll.item(), 5), log_r.grad.item())
print(log_r.exp().item())
