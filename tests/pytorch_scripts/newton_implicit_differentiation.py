"""Numerical recipes with autograd: Newton's method for a scalar root (the derivative from
torch.autograd.grad), Newton for a 2-d system with torch.autograd.functional.jacobian and
linalg.solve, a backtracking (Armijo) line search in gradient descent, and implicit
differentiation of a fixed point z* = tanh(W z* + x) (a tiny deep-equilibrium layer): forward
iteration under no_grad, then the implicit-function-theorem gradient through a backward hook,
checked against unrolled differentiation."""
import numpy as np
import fluxgrad as torch
from fluxgrad.autograd.functional import jacobian

x = torch.tensor(1.0, requires_grad=True)
for it in range(6):
    f = x ** 3 - 2 * x - 5
    (df,) = torch.autograd.grad(f, x)
    with torch.no_grad():
        x -= f / df
    print(it, round(x.item(), 8), round(f.item(), 8))


def system(v):
    a, b = v[0], v[1]
    return torch.stack([a ** 2 + b ** 2 - 4, torch.exp(a) + b - 1])


v = torch.tensor([1.0, -1.0], dtype=torch.float64)
for it in range(6):
    J = jacobian(system, v)
    step = torch.linalg.solve(J, system(v))
    v = v - step
    print(it, v, system(v).norm().item() < 1e-3)


def rosen(p):
    return (1 - p[0]) ** 2 + 100 * (p[1] - p[0] ** 2) ** 2


p = torch.tensor([-1.2, 1.0], dtype=torch.float64, requires_grad=True)
for it in range(5):
    loss = rosen(p)
    (g,) = torch.autograd.grad(loss, p)
    t, c, rho = 1.0, 1e-4, 0.5
    with torch.no_grad():
        while rosen(p - t * g) > loss - c * t * g.dot(g):
            t *= rho
        p -= t * g
    print(it, "t=%.6f" % t, round(loss.item(), 6), round(rosen(p).item(), 6))

rng = np.random.default_rng(0)
W = torch.from_numpy(rng.normal(0, 0.3, (4, 4)))
inp = torch.from_numpy(rng.normal(size=4)).requires_grad_()


def f(z, x):
    return torch.tanh(W @ z + x)


with torch.no_grad():
    z = torch.zeros(4, dtype=torch.float64)
    for _ in range(100):
        z = f(z, inp)
z_star = f(z.requires_grad_(), inp)
print("residual", (z_star - z).norm().item() < 1e-10)

z0 = z_star.detach().requires_grad_()
f0 = f(z0, inp)


def backward_hook(grad):
    g = grad
    for _ in range(100):
        g = torch.autograd.grad(f0, z0, g, retain_graph=True)[0] + grad
    return g


z_star.register_hook(backward_hook)
loss = z_star.pow(2).sum()
loss.backward()
implicit = inp.grad.clone()

inp.grad = None
z = torch.zeros(4, dtype=torch.float64)
for _ in range(100):
    z = f(z, inp)
z.pow(2).sum().backward()
print(implicit, inp.grad, torch.allclose(implicit, inp.grad, atol=1e-8))
