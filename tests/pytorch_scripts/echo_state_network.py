"""An echo state network (reservoir computing) as the tutorials build it: a random sparse
reservoir from NumPy rescaled so that its spectral norm (torch.linalg.svdvals, an upper bound on the
spectral radius; matrix_norm(ord=2) agrees) is 0.9, leaky-integrator state updates with tanh, a
washout, a ridge-regression readout solved in closed form with torch.linalg.solve and with
cholesky_solve, one-step-ahead prediction of a sine mix, and a free-running forecast."""
import numpy as np
import fluxgrad as torch

rng = np.random.default_rng(99)
n_res, leak, ridge = 40, 0.3, 1e-4
W_raw = rng.normal(size=(n_res, n_res)) * (rng.uniform(size=(n_res, n_res)) < 0.2)
W = torch.from_numpy(W_raw)
norm = torch.linalg.svdvals(W)[0]
print(round(norm.item(), 5), round(torch.linalg.matrix_norm(W, ord=2).item(), 5))
W = W * (0.9 / norm)
print(round(torch.linalg.svdvals(W).max().item(), 6))
W_in = torch.from_numpy(rng.uniform(-0.5, 0.5, (n_res, 2)))

t = torch.arange(400, dtype=torch.float64) * 0.1
u = torch.sin(t) + 0.5 * torch.sin(2.3 * t)
states = torch.zeros(400, n_res, dtype=torch.float64)
x = torch.zeros(n_res, dtype=torch.float64)
for i in range(400):
    pre = W_in @ torch.stack([torch.tensor(1.0, dtype=torch.float64), u[i]]) + W @ x
    x = (1 - leak) * x + leak * torch.tanh(pre)
    states[i] = x
washout = 50
S = states[washout:-1]
Y = u[washout + 1:]
A = S.T @ S + ridge * torch.eye(n_res, dtype=torch.float64)
W_out = torch.linalg.solve(A, S.T @ Y)
pred = S @ W_out
nrmse = ((pred - Y).pow(2).mean().sqrt() / Y.std())
print(W_out.shape, round(nrmse.item(), 5), pred[:4], Y[:4])

L = torch.linalg.cholesky(A)
print(torch.allclose(torch.cholesky_solve((S.T @ Y).unsqueeze(1), L).squeeze(1), W_out))
with torch.no_grad():
    forecast, value = [], u[-1]
    for i in range(10):
        pre = W_in @ torch.stack([torch.tensor(1.0, dtype=torch.float64), value]) + W @ x
        x = (1 - leak) * x + leak * torch.tanh(pre)
        value = x @ W_out
        forecast.append(value)
truth = torch.sin(t[-1] + 0.1 * torch.arange(1, 11)) + 0.5 * torch.sin(2.3 * (t[-1] + 0.1 * torch.arange(1, 11)))
print(torch.stack(forecast), (torch.stack(forecast) - truth).abs().max() < 0.5)
