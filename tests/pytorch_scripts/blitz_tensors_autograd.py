"""'Deep Learning with PyTorch: a 60 minute blitz', parts 1 and 2 (the classic version): tensors
(empty-free construction, new_ones, randn_like from NumPy data, size(), the add variants with out=
and add_, view with -1, item) and autograd (y = x + 2, z = y * y * 3, requires_grad_, the
vector-Jacobian product of a loop that doubles y until its norm passes 1000, no_grad, detach)."""
import numpy as np
import fluxgrad as torch

rng = np.random.default_rng(2)
x = torch.zeros(5, 3, dtype=torch.long)
print(x)
x = torch.tensor([5.5, 3])
print(x)
x = x.new_ones(5, 3, dtype=torch.double)
print(x)
x = torch.from_numpy(rng.standard_normal((5, 3))).float()
print(x.size(), x.shape == x.size(), x.size(1), len(x.size()))
y = torch.from_numpy(rng.random((5, 3)).astype(np.float32))
print(x + y)
print(torch.add(x, y))
result = torch.zeros(5, 3)
torch.add(x, y, out=result)
print(result)
y.add_(x)
print(y)
print(x[:, 1])
x = torch.from_numpy(rng.standard_normal((4, 4)).astype(np.float32))
y = x.view(16)
z = x.view(-1, 8)
print(x.size(), y.size(), z.size())
x = torch.tensor([0.7315])
print(x, x.item())
a = torch.ones(5)
b = a.numpy()
a.add_(1)
print(a, b)
x = torch.ones(2, 2, requires_grad=True)
print(x)
y = x + 2
print(y)
print(y.grad_fn is not None)
z = y * y * 3
out = z.mean()
print(z, out)
a = torch.from_numpy(rng.standard_normal((2, 2)).astype(np.float32))
a = ((a * 3) / (a - 1))
print(a.requires_grad)
a.requires_grad_(True)
print(a.requires_grad)
b = (a * a).sum()
print(b.grad_fn is not None)
out.backward()
print(x.grad)
x = torch.tensor([0.3, -1.2, 0.8], requires_grad=True)
y = x * 2
steps = 0
while y.data.norm() < 1000:
    y = y * 2
    steps += 1
print(y, steps)
v = torch.tensor([0.1, 1.0, 0.0001], dtype=torch.float)
y.backward(v)
print(x.grad)
print(x.requires_grad)
print((x ** 2).requires_grad)
with torch.no_grad():
    print((x ** 2).requires_grad)
print(x.requires_grad)
y = x.detach()
print(y.requires_grad)
print(x.eq(y).all())
