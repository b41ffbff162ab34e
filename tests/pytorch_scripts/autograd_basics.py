"""The autograd tutorial: requires_grad, backward, retain_graph, zeroing .grad, no_grad, detach."""
import fluxgrad as torch

x = torch.ones(5)
y = torch.zeros(3)
w = torch.tensor([[0.1, -0.2, 0.3], [0.4, 0.5, -0.6], [-0.7, 0.8, 0.9], [1.0, -1.1, 1.2], [0.0, 0.1, -0.2]],
                 requires_grad=True)
b = torch.tensor([0.1, 0.2, 0.3], requires_grad=True)
z = torch.matmul(x, w) + b
loss = torch.nn.functional.binary_cross_entropy_with_logits(z, y)
print(loss, z.requires_grad, loss.grad_fn is not None, z.is_leaf, w.is_leaf)
loss.backward()
print(w.grad)
print(b.grad)
with torch.no_grad():
    z = torch.matmul(x, w) + b
print(z.requires_grad)
z_det = (torch.matmul(x, w) + b).detach()
print(z_det.requires_grad)
inp = torch.eye(4, 5, requires_grad=True)
out = (inp + 1).pow(2).t()
out.backward(torch.ones_like(out), retain_graph=True)
print(f"First call\n{inp.grad}")
out.backward(torch.ones_like(out), retain_graph=True)
print(f"\nSecond call\n{inp.grad}")
inp.grad.zero_()
out.backward(torch.ones_like(out), retain_graph=True)
print(f"\nCall after zeroing gradients\n{inp.grad}")
a = torch.tensor([2., 3.], requires_grad=True)
q = 3 * a ** 3 - a ** 2
q.backward(gradient=torch.tensor([1., 1.]))
print(a.grad, 9 * a ** 2 - 2 * a == a.grad)
p = torch.tensor(1.5, requires_grad=True)
r = p * p
r.retain_grad()
s = r.exp()
s.backward()
print(p.grad, r.grad)
u = torch.randn(3).requires_grad_()
print(u.requires_grad, u.detach().requires_grad, u.clone().requires_grad, u.data.requires_grad)
v = torch.tensor([1.0, 2.0], requires_grad=True)
try:
    (v * v).sum().backward()
    (v * v).sum().backward()
    print(v.grad)
except RuntimeError as e:
    print("error")
h = (v * 2).sum()
h.backward(retain_graph=True)
h.backward()
print(v.grad)
v.grad = None
k = v.sum()
k.backward()
print(v.grad)
torch.set_grad_enabled(False)
print((v * 2).requires_grad, torch.is_grad_enabled())
torch.set_grad_enabled(True)
with torch.enable_grad():
    print((v * 2).requires_grad)

@torch.no_grad()
def doubled(t):
    return t * 2

print(doubled(v).requires_grad)
with torch.inference_mode():
    print((v + 1).requires_grad)
m = torch.tensor([1., 2., 3.], requires_grad=True)
n = m.detach()
n[0] = 10
print(m)
l2 = torch.tensor([0.5, -0.5], requires_grad=True)
f = torch.where(l2 > 0, l2 ** 2, -l2)
f.sum().backward()
print(l2.grad)
