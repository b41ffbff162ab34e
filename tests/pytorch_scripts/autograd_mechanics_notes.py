"""'Autograd mechanics' notes: how requires_grad propagates and freezes a pretrained part,
grad modes (default, no_grad, inference_mode, set_grad_enabled) and model.eval() being separate,
in-place correctness checks (the version counter error), retain_grad on non-leaves, backward
hooks on tensors, gradients of non-differentiable points (relu at 0, abs at 0, sqrt at 0), and
leaf tensors modified under no_grad."""
import numpy as np
import fluxgrad as torch
import fluxgrad.nn as nn

rng = np.random.default_rng(14)
x = torch.randn(5, 5)
y = torch.randn(5, 5)
z = torch.randn((5, 5), requires_grad=True)
a = x + y
print(a.requires_grad)
b = a + z
print(b.requires_grad)
backbone = nn.Sequential(nn.Linear(4, 6), nn.ReLU(), nn.Linear(6, 6))
for param in backbone.parameters():
    param.requires_grad = False
head = nn.Linear(6, 2)
with torch.no_grad():
    for p in list(backbone.parameters()) + list(head.parameters()):
        p.copy_(torch.from_numpy(rng.normal(0, 0.5, tuple(p.shape)).astype(np.float32)))
optimizer = torch.optim.SGD(head.parameters(), lr=1e-2, momentum=0.9)
inp = torch.from_numpy(rng.standard_normal((3, 4)).astype(np.float32))
out = head(backbone(inp)).sum()
out.backward()
print(backbone[0].weight.grad, head.bias.grad)
print(torch.is_grad_enabled())
with torch.no_grad():
    print(torch.is_grad_enabled(), (z * 2).requires_grad)
with torch.inference_mode():
    w = z * 2
    print(torch.is_inference_mode_enabled(), w.requires_grad, w.is_inference())
print(z.is_inference(), torch.is_inference_mode_enabled())
with torch.set_grad_enabled(False):
    print((z * 2).requires_grad)
torch.set_grad_enabled(True)
model = nn.Dropout(0.5)
model.eval()
print(model.training, (model(z) * 1).requires_grad, torch.equal(model(z), z))
a = torch.tensor([0.5, -1.0, 2.0], requires_grad=True)
s = a.sigmoid()
s.mul_(2)
try:
    s.sum().backward()
except RuntimeError as e:
    print("in-place on a saved tensor: RuntimeError", "modified by an inplace operation" in str(e))
a2 = a.clone()
e = a2.exp()
a2.add_(1)
e.sum().backward()
print(a.grad)
a.grad = None
h = a * 3
h.retain_grad()
q = (h ** 2).sum()
q.backward()
print(h.grad, a.grad)
a.grad = None
seen = []
handle = a.register_hook(lambda g: seen.append(g.clone()) or g * 10)
(a * a).sum().backward()
print(seen[0], a.grad)
handle.remove()
a.grad = None
(a * a).sum().backward()
print(a.grad)
p = torch.tensor([0.0, -0.0, 1.0], requires_grad=True)
(torch.relu(p) + p.abs() + torch.clamp(p, min=0.0)).sum().backward()
print(p.grad)
r = torch.tensor([0.0, 4.0], requires_grad=True)
r.sqrt().sum().backward()
print(r.grad)
m = torch.tensor([1.0, 1.0, 2.0], requires_grad=True)
m.max().backward()
print(m.grad)
m.grad = None
torch.amax(m, 0).backward()
print(m.grad)
leaf = torch.ones(3, requires_grad=True)
with torch.no_grad():
    leaf.mul_(3)
print(leaf, leaf.is_leaf, leaf.requires_grad, leaf.grad_fn)
try:
    leaf.mul_(3)
except RuntimeError:
    print("in-place on a leaf that requires grad: RuntimeError")
