"""Numerical ODE code written with tensors: fixed-step Euler, midpoint and RK4 integrators for the
harmonic oscillator (error against the closed form shrinking with the step), a damped pendulum
trajectory stacked over torch.linspace, a tiny neural ODE trained by backpropagating through the
RK4 solver to fit a spiral, the adjoint-free gradient of the final state w.r.t. the initial state
(against the closed form), and an adaptive step with error control written with torch.where."""
import math

import numpy as np
import fluxgrad as torch
import fluxgrad.nn as nn


def harmonic(t, y):
    return torch.stack([y[..., 1], -y[..., 0]], dim=-1)


def euler_step(f, t, y, dt):
    return y + dt * f(t, y)


def midpoint_step(f, t, y, dt):
    return y + dt * f(t + dt / 2, y + dt / 2 * f(t, y))


def rk4_step(f, t, y, dt):
    k1 = f(t, y)
    k2 = f(t + dt / 2, y + dt / 2 * k1)
    k3 = f(t + dt / 2, y + dt / 2 * k2)
    k4 = f(t + dt, y + dt * k3)
    return y + dt / 6 * (k1 + 2 * k2 + 2 * k3 + k4)


def odeint(f, y0, ts, step=rk4_step):
    ys = [y0]
    y = y0
    for t0, t1 in zip(ts[:-1], ts[1:]):
        y = step(f, t0, y, t1 - t0)
        ys.append(y)
    return torch.stack(ys)


y0 = torch.tensor([1.0, 0.0], dtype=torch.float64)
for n in (10, 20, 40):
    ts = torch.linspace(0, math.pi, n + 1, dtype=torch.float64)
    exact = torch.tensor([-1.0, 0.0], dtype=torch.float64)
    errs = [(odeint(harmonic, y0, ts, s)[-1] - exact).norm().item() for s in (euler_step, midpoint_step, rk4_step)]
    print(n, [f"{e:.3e}" for e in errs])


def pendulum(t, y, damping=0.3):
    theta, omega = y[..., 0], y[..., 1]
    return torch.stack([omega, -damping * omega - 9.81 * torch.sin(theta)], dim=-1)


ts = torch.linspace(0, 2, 41)
traj = odeint(pendulum, torch.tensor([[1.0, 0.0], [0.2, 1.0]]), ts)
print(traj.shape, traj[::10, 0], traj[-1])
energy = 0.5 * traj[..., 1] ** 2 + 9.81 * (1 - torch.cos(traj[..., 0]))
print(energy[::10, 1], bool((energy[1:] <= energy[:-1] + 1e-4).all()))

y0 = torch.tensor([0.3, -0.7], dtype=torch.float64, requires_grad=True)
yT = odeint(harmonic, y0, torch.linspace(0, 1.0, 21, dtype=torch.float64))[-1]
jac = torch.stack([torch.autograd.grad(yT[i], y0, retain_graph=True)[0] for i in range(2)])
c, s = math.cos(1.0), math.sin(1.0)
print(jac, torch.tensor([[c, s], [-s, c]]))


class ODEFunc(nn.Module):
    def __init__(self):
        super().__init__()
        self.net = nn.Sequential(nn.Linear(2, 16), nn.Tanh(), nn.Linear(16, 2))

    def forward(self, t, y):
        return self.net(y)


func = ODEFunc()
local = np.random.default_rng(5)
with torch.no_grad():
    for p in func.parameters():
        p.copy_(torch.from_numpy(local.uniform(-0.3, 0.3, tuple(p.shape)).astype(np.float32)))
true_A = torch.tensor([[-0.1, 2.0], [-2.0, -0.1]])
ts = torch.linspace(0.0, 1.0, 11)
true_y = odeint(lambda t, y: y @ true_A.T, torch.tensor([2.0, 0.0]), ts)
opt = torch.optim.Adam(func.parameters(), lr=0.01)
for it in range(5):
    opt.zero_grad()
    pred = odeint(func, torch.tensor([2.0, 0.0]), ts)
    loss = (pred - true_y).abs().mean()
    loss.backward()
    opt.step()
    print(it, f"{loss.item():.5f}", f"{func.net[0].weight.grad.norm().item():.5f}")


def adaptive(f, y, t_end, dt=0.5, tol=1e-6):
    t, steps = 0.0, 0
    while t < t_end - 1e-12:
        dt = min(dt, t_end - t)
        big = rk4_step(f, t, y, dt)
        half = rk4_step(f, t + dt / 2, rk4_step(f, t, y, dt / 2), dt / 2)
        err = (big - half).abs().max().item()
        if err < tol:
            t, y, steps = t + dt, half, steps + 1
        dt = dt * min(2.0, max(0.2, 0.9 * (tol / max(err, 1e-16)) ** 0.2))
    return y, steps


y, steps = adaptive(harmonic, torch.tensor([1.0, 0.0], dtype=torch.float64), math.pi)
print(y, steps)
