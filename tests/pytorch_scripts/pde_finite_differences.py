"""PDEs on grids the way scientific-ML notebooks write them with tensors: the 1-d heat equation by
explicit finite differences with torch.roll (periodic) and with F.conv1d and a [1, -2, 1] stencil
(Dirichlet ends via F.pad), its decay against the exact Fourier mode, a 2-d Poisson problem by
Jacobi iterations over shifted slices of a padded grid (the residual by a 5-point conv2d), the
same solved spectrally with fft2 on a periodic grid, and a differentiable solver: the gradient of the final temperature w.r.t. the
diffusivity against a finite difference."""
import math

import fluxgrad as torch
import fluxgrad.nn.functional as F

n, L = 64, 1.0
dx = L / n
x = torch.arange(n, dtype=torch.float64) * dx
u0 = torch.sin(2 * math.pi * x)
alpha, dt, steps = 0.01, 0.001, 200
print("CFL", alpha * dt / dx ** 2)

u = u0.clone()
for _ in range(steps):
    u = u + alpha * dt / dx ** 2 * (torch.roll(u, 1) - 2 * u + torch.roll(u, -1))
exact = math.exp(-alpha * (2 * math.pi) ** 2 * dt * steps) * u0
print(u.abs().max(), exact.abs().max(), (u - exact).abs().max() < 1e-4)

stencil = torch.tensor([[[1.0, -2.0, 1.0]]], dtype=torch.float64)
v = (torch.sin(math.pi * x) * (x <= 0.5 + 1e-12)).view(1, 1, -1)
for _ in range(20):
    lap = F.conv1d(F.pad(v, (1, 1), mode="constant", value=0.0), stencil)
    v = v + alpha * dt / dx ** 2 * lap
print(v.shape, v.sum().item(), v[0, 0, :4])

m = 32
h = 1.0 / (m + 1)
coords = torch.linspace(h, 1 - h, m, dtype=torch.float64)
X, Y = torch.meshgrid(coords, coords, indexing="ij")
f = 2 * math.pi ** 2 * torch.sin(math.pi * X) * torch.sin(math.pi * Y)
exact2 = torch.sin(math.pi * X) * torch.sin(math.pi * Y)
kernel = torch.tensor([[0.0, 1.0, 0.0], [1.0, 0.0, 1.0], [0.0, 1.0, 0.0]], dtype=torch.float64).view(1, 1, 3, 3)
phi = torch.zeros(1, 1, m, m, dtype=torch.float64)
for it in range(300):
    padded = F.pad(phi, (1, 1, 1, 1))
    neighbours = padded[..., :-2, 1:-1] + padded[..., 2:, 1:-1] + padded[..., 1:-1, :-2] + padded[..., 1:-1, 2:]
    phi = (neighbours + h ** 2 * f) / 4
residual = (F.conv2d(F.pad(phi, (1, 1, 1, 1)), kernel) - 4 * phi) / h ** 2 + f
print("jacobi error", (phi[0, 0] - exact2).abs().max().item(), residual.abs().max().item())

N = 32
grid = torch.arange(N, dtype=torch.float64) * (2 * math.pi / N)
GX, GY = torch.meshgrid(grid, grid, indexing="ij")
rhs = -2 * torch.sin(GX) * torch.cos(GY)
k = torch.fft.fftfreq(N, d=1.0 / N).to(torch.float64)
KX, KY = torch.meshgrid(k, k, indexing="ij")
k2 = KX ** 2 + KY ** 2
k2[0, 0] = 1.0
sol_hat = -torch.fft.fft2(rhs) / k2
sol_hat[0, 0] = 0
sol = torch.fft.ifft2(sol_hat).real
print("spectral error", (sol - torch.sin(GX) * torch.cos(GY)).abs().max().item() < 1e-10)


def simulate(a):
    w = u0.clone()
    for _ in range(50):
        w = w + a * dt / dx ** 2 * (torch.roll(w, 1) - 2 * w + torch.roll(w, -1))
    return w.pow(2).sum()


a = torch.tensor(0.01, dtype=torch.float64, requires_grad=True)
energy = simulate(a)
energy.backward()
eps = 1e-6
fd = (simulate(torch.tensor(0.01 + eps, dtype=torch.float64)) - simulate(torch.tensor(0.01 - eps, dtype=torch.float64))) / (2 * eps)
print(energy.item(), a.grad.item(), fd.item(), abs(a.grad.item() - fd.item()) < 1e-4)
