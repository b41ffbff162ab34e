"""Grad modes as decorators and context managers: @torch.no_grad() on an evaluate function,
@torch.enable_grad() inside a no_grad block, torch.set_grad_enabled(False) as a function call,
a context and a decorator, torch.inference_mode (decorator and context, is_inference tensors),
is_grad_enabled at each point, and the errors and results people meet (updating weights in
no_grad, inference tensors refused by autograd)."""
import fluxgrad as torch
import fluxgrad.nn as nn

w = torch.tensor([1.0, -2.0, 3.0], requires_grad=True)
x = torch.tensor([0.5, 0.5, 2.0])


@torch.no_grad()
def evaluate(v):
    print("eval grad enabled:", torch.is_grad_enabled())
    return (w * v).sum()


@torch.enable_grad()
def loss_with_grad(v):
    return (w * v).pow(2).sum()


@torch.inference_mode()
def predict(v):
    return w * v


out = evaluate(x)
print(out, out.requires_grad, torch.is_grad_enabled())
with torch.no_grad():
    inner = loss_with_grad(x)
    plain = (w * x).sum()
print(inner.requires_grad, plain.requires_grad, inner)
inner.backward()
print(w.grad)
p = predict(x)
print(p, p.requires_grad, p.is_inference(), x.is_inference(), torch.is_inference_mode_enabled())

with torch.set_grad_enabled(False):
    y = w * 2
print(y.requires_grad, torch.is_grad_enabled())
torch.set_grad_enabled(False)
z = w * 3
torch.set_grad_enabled(True)
print(z.requires_grad, (w * 3).requires_grad)


@torch.set_grad_enabled(False)
def frozen_double(v):
    return v * 2


print(frozen_double(w).requires_grad)
for train in (True, False):
    with torch.set_grad_enabled(train):
        print(train, (w * x).sum().requires_grad)

with torch.no_grad():
    with torch.enable_grad():
        a = w * 2
    b = w * 2
print(a.requires_grad, b.requires_grad)
with torch.enable_grad():
    with torch.no_grad():
        print(torch.is_grad_enabled(), (w + 1).requires_grad)

with torch.inference_mode():
    t = torch.ones(2) * 3
    print(t.is_inference(), torch.is_inference_mode_enabled(), torch.is_grad_enabled())
    with torch.inference_mode(False):
        print(torch.is_inference_mode_enabled(), (torch.ones(1) * 2).is_inference())
print(t.is_inference(), t.requires_grad, t.clone().is_inference())

model = nn.Linear(3, 1)
with torch.no_grad():
    model.weight.fill_(0.5)
    model.bias.zero_()
    model.weight -= 0.1 * torch.ones(1, 3)
print(model.weight, model.weight.requires_grad, model.weight.grad_fn)
lr = 0.1
for step in range(2):
    loss = (model(x.unsqueeze(0)) - 1).pow(2).mean()
    loss.backward()
    with torch.no_grad():
        for param in model.parameters():
            param -= lr * param.grad
            param.grad.zero_()
    print(step, round(loss.item(), 5), model.bias)
try:
    model.weight -= 1.0
except RuntimeError:
    print("in-place update of a leaf that requires grad needs no_grad")
print(torch.no_grad()(lambda v: v * w)(x).requires_grad)
