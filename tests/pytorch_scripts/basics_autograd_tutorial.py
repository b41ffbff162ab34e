"""'Learn the Basics: Automatic Differentiation with torch.autograd': the one-layer network with
binary_cross_entropy_with_logits, gradients of w and b, disabling tracking (no_grad, detach), and
the 'optional reading' Jacobian-vector product with accumulation over calls."""
import numpy as np
import fluxgrad as torch

rng = np.random.default_rng(11)
x = torch.ones(5)
y = torch.zeros(3)
w = torch.from_numpy(rng.standard_normal((5, 3)).astype(np.float32)).requires_grad_()
b = torch.tensor(rng.standard_normal(3).astype(np.float32), requires_grad=True)
z = torch.matmul(x, w) + b
loss = torch.nn.functional.binary_cross_entropy_with_logits(z, y)
print(loss.grad_fn is not None, z.grad_fn is not None, x.grad_fn)
loss.backward()
print(w.grad)
print(b.grad)
print(w.is_leaf, z.is_leaf, z.requires_grad)
with torch.no_grad():
    z = torch.matmul(x, w) + b
print(z.requires_grad)
z = torch.matmul(x, w) + b
z_det = z.detach()
print(z_det.requires_grad, z.requires_grad)
inp = torch.eye(4, 5, requires_grad=True)
out = (inp + 1).pow(2).t()
out.backward(torch.ones_like(out), retain_graph=True)
print(f"First call\n{inp.grad}")
out.backward(torch.ones_like(out), retain_graph=True)
print(f"\nSecond call\n{inp.grad}")
inp.grad.zero_()
out.backward(torch.ones_like(out), retain_graph=True)
print(f"\nCall after zeroing gradients\n{inp.grad}")
try:
    out.sum().backward()
    out.sum().backward()
except RuntimeError:
    print("second backward without retain_graph: RuntimeError")
v = torch.tensor([[1.0, 0.5, 0.0, -1.0, 2.0]]).t().expand(5, 4)
inp.grad = None
out = (inp + 1).pow(2).t()
out.backward(v)
print(inp.grad)
a = torch.tensor([2.0, 3.0], requires_grad=True)
q = 3 * a ** 3 - a ** 2
q.backward(gradient=torch.tensor([1.0, 1.0]))
print(a.grad, 9 * a ** 2 - 2 * a == a.grad)
s = torch.tensor(1.5, requires_grad=True)
t = s.exp().sin()
g, = torch.autograd.grad(t, s, create_graph=True)
g2, = torch.autograd.grad(g, s)
print(round(g.item(), 5), round(g2.item(), 5))
