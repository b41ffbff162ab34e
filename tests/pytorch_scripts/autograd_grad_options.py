"""torch.autograd.grad and backward with their options, as research code calls them:
grad_outputs for a vector output, allow_unused (None) and materialize_grads (zeros), retain_graph
for two calls, create_graph for a second derivative, is_grads_batched for many vector-Jacobian
products at once, torch.autograd.backward with grad_tensors over several roots, backward(inputs=)
accumulating into chosen leaves only, .grad accumulation across calls and zeroing, errors for a
second backward without retain_graph and for grad of a tensor that does not require it, and the
grad-mode switches (no_grad as decorator, enable_grad, set_grad_enabled, inference_mode)."""
import fluxgrad as torch

x = torch.tensor([1.0, 2.0, 3.0], requires_grad=True)
w = torch.tensor([0.5, -1.0, 2.0], requires_grad=True)
unused = torch.tensor([4.0], requires_grad=True)
y = x ** 2 * w
g, = torch.autograd.grad(y, x, grad_outputs=torch.tensor([1.0, 0.5, 0.25]), retain_graph=True)
print(g)
gx, gu = torch.autograd.grad(y.sum(), [x, unused], allow_unused=True, retain_graph=True)
print(gx, gu)
gx, gu = torch.autograd.grad(y.sum(), [x, unused], allow_unused=True, materialize_grads=True, retain_graph=True)
print(gu)
try:
    torch.autograd.grad(y.sum(), [x, unused], retain_graph=True)
except RuntimeError as e:
    print("RuntimeError", "allow_unused" in str(e))
eye = torch.eye(3)
jac, = torch.autograd.grad(y, x, grad_outputs=eye, is_grads_batched=True, retain_graph=True)
print(jac)
d1, = torch.autograd.grad(y.sum(), x, create_graph=True)
d2, = torch.autograd.grad(d1.sum(), x)
print(d1, d1.requires_grad, d2)

a = torch.tensor([1.0, -1.0], requires_grad=True)
b = torch.tensor([2.0], requires_grad=True)
out1 = a * b
out2 = (a ** 3).sum()
torch.autograd.backward([out1, out2], grad_tensors=[torch.tensor([1.0, 2.0]), torch.tensor(0.5)])
print(a.grad, b.grad)
a.grad = None
b.grad = None
loss = (a * b).sum() + b.pow(2).sum()
loss.backward(inputs=[b])
print(a.grad, b.grad)
(a * b).sum().backward()
print(a.grad, b.grad)
(a * b).sum().backward()
print(a.grad, b.grad)
a.grad.zero_()
b.grad = None
print(a.grad, b.grad)

z = (x * 2).sum()
z.backward()
try:
    z.backward()
except RuntimeError as e:
    print("RuntimeError", "second time" in str(e))
try:
    torch.autograd.grad(torch.tensor([1.0]).sum(), torch.tensor([1.0]))
except RuntimeError as e:
    print("RuntimeError", "does not require grad" in str(e))
v = x * 3
v.backward(torch.tensor([1.0, 0.0, -1.0]))
print(x.grad)
with torch.no_grad():
    q = x * 2
print(q.requires_grad, q.grad_fn, (x * 2).detach().requires_grad, x.detach().is_leaf)
with torch.enable_grad():
    print((x * 2).requires_grad)
torch.set_grad_enabled(False)
print((x * 2).requires_grad, torch.is_grad_enabled())
torch.set_grad_enabled(True)


@torch.no_grad()
def evaluate(t):
    return t * 2


print(evaluate(x).requires_grad)
with torch.inference_mode():
    r = x * 2
print(r.requires_grad, torch.is_inference_mode_enabled(), r.is_inference())
