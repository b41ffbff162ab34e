"""A Hamiltonian neural network (Greydanus et al.) on a mass-spring system: the network outputs
H(q, p), the time derivatives come from torch.autograd.grad(H.sum(), x, create_graph=True)
(dq/dt = dH/dp, dp/dt = -dH/dq), the loss compares them with the true ones and backpropagates
through the gradient, then a leapfrog rollout with the learned field under torch.enable_grad."""
import numpy as np
import fluxgrad as torch
import fluxgrad.nn as nn

rng = np.random.default_rng(9)


class HNN(nn.Module):
    def __init__(self):
        super().__init__()
        self.net = nn.Sequential(nn.Linear(2, 16), nn.Tanh(), nn.Linear(16, 16), nn.Tanh(), nn.Linear(16, 1))

    def forward(self, x):
        return self.net(x)

    def time_derivative(self, x):
        if not x.requires_grad:
            x = x.requires_grad_()
        H = self(x)
        dH = torch.autograd.grad(H.sum(), x, create_graph=True)[0]
        dHdq, dHdp = dH.unbind(-1)
        return torch.stack([dHdp, -dHdq], dim=-1)


model = HNN()
with torch.no_grad():
    for p in model.parameters():
        p.copy_(torch.from_numpy(rng.uniform(-0.5, 0.5, tuple(p.shape)).astype(np.float32)))
states = torch.from_numpy(rng.uniform(-1, 1, (32, 2)).astype(np.float32))
true_deriv = torch.stack([states[:, 1], -states[:, 0]], dim=1)
print(model.time_derivative(states.clone())[:2])
opt = torch.optim.Adam(model.parameters(), lr=0.01)
for step in range(30):
    opt.zero_grad()
    pred = model.time_derivative(states.clone())
    loss = (pred - true_deriv).pow(2).mean()
    loss.backward()
    opt.step()
    if step % 10 == 9:
        print(step, f"{loss.item():.6f}")
print(model.net[0].weight.grad.norm() > 0, pred.requires_grad)

x0 = torch.tensor([[1.0, 0.0]])
H0 = model(x0).item()
traj = [x0]
dt = 0.1
with torch.enable_grad():
    x = x0
    for _ in range(10):
        d = model.time_derivative(x.detach().clone())
        p_half = x[:, 1] + 0.5 * dt * d[:, 1]
        q_new = x[:, 0] + dt * model.time_derivative(torch.stack([x[:, 0], p_half], 1).detach())[:, 0]
        d_new = model.time_derivative(torch.stack([q_new, p_half], 1).detach())
        x = torch.stack([q_new, p_half + 0.5 * dt * d_new[:, 1]], 1).detach()
        traj.append(x)
traj = torch.cat(traj)
with torch.no_grad():
    energies = model(traj).squeeze(1)
print(traj[::3], f"{H0:.5f}", f"{(energies - H0).abs().max().item():.5f}")
x = torch.tensor([[0.3, -0.2]], requires_grad=True)
H = model(x).sum()
g, = torch.autograd.grad(H, x, create_graph=True)
hess = torch.stack([torch.autograd.grad(g[0, i], x, retain_graph=True)[0][0] for i in range(2)])
print(g.detach(), hess, torch.allclose(hess, hess.t(), atol=1e-6))
