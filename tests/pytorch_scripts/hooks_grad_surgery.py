"""Hooks as debugging and research code uses them beyond feature extraction: register_forward_pre_hook
that rewrites the input (and with_kwargs=True), forward hooks that replace the output, full backward
hooks that scale grad_input, register_full_backward_pre_hook changing grad_output, tensor hooks that
clip or zero gradients (and retain_grad on intermediates), a hook on a leaf that counts calls,
Module.register_module_forward_hook-free global patterns via apply, handle.remove() and the order
several hooks run in."""
import numpy as np
import fluxgrad as torch
import fluxgrad.nn as nn

rng = np.random.default_rng(17)


def fill(module):
    with torch.no_grad():
        for p in module.parameters():
            p.copy_(torch.from_numpy(rng.uniform(-0.5, 0.5, tuple(p.shape)).astype(np.float32)))
    return module


net = fill(nn.Sequential(nn.Linear(3, 4), nn.ReLU(), nn.Linear(4, 2)))
x = torch.from_numpy(rng.standard_normal((2, 3)).astype(np.float32))
calls = []


def double_input(module, args):
    calls.append("pre")
    return (args[0] * 2,)


def add_one(module, args, output):
    calls.append("fwd")
    return output + 1


h1 = net[0].register_forward_pre_hook(double_input)
h2 = net[2].register_forward_hook(add_one)
print(net(x), calls)
h1.remove()
h2.remove()
print(net(x))


def kw_pre(module, args, kwargs):
    return args, kwargs


class Scaled(nn.Module):
    def forward(self, x, scale=1.0):
        return x * scale


scaled = Scaled()
scaled.register_forward_pre_hook(lambda m, args, kwargs: (args, {"scale": kwargs.get("scale", 1.0) * 10}),
                                 with_kwargs=True)
scaled.register_forward_hook(lambda m, args, kwargs, out: out - kwargs["scale"], with_kwargs=True)
print(scaled(torch.ones(2), scale=0.5))

order = []
net[0].register_forward_hook(lambda m, i, o: order.append("a"))
net[0].register_forward_hook(lambda m, i, o: order.append("b"), prepend=True)
net(x)
print(order)

grad_log = {}


def scale_grad_input(module, grad_input, grad_output):
    grad_log[type(module).__name__] = (grad_input[0].clone(), grad_output[0].clone())
    return (grad_input[0] * 0.5,)


def zero_first(module, grad_output):
    g = grad_output[0].clone()
    g[:, 0] = 0
    return (g,)


xr = x.clone().requires_grad_()
hr = net[1].register_full_backward_hook(scale_grad_input)
hp = net[2].register_full_backward_pre_hook(zero_first)
net(xr).sum().backward()
print(grad_log["ReLU"][0], grad_log["ReLU"][1])
print(xr.grad, net[2].bias.grad, net[0].bias.grad)
hr.remove()
hp.remove()
net.zero_grad()
xr.grad = None
net(xr).sum().backward()
print(xr.grad, net[2].bias.grad)

w = torch.tensor([1.0, -2.0, 3.0], requires_grad=True)
count = [0]


def clip_hook(grad):
    count[0] += 1
    return grad.clamp(-1, 1)


hw = w.register_hook(clip_hook)
(w * torch.tensor([5.0, 0.5, -3.0])).sum().backward()
print(w.grad, count)
hw.remove()
w.grad = None
(w * torch.tensor([5.0, 0.5, -3.0])).sum().backward()
print(w.grad, count)

a = torch.tensor([0.5, 1.5], requires_grad=True)
h = a * 3
h.retain_grad()
h.register_hook(lambda g: g * 10)
z = h ** 2
z.register_hook(lambda g: print("z grad", g))
z.sum().backward()
print(h.grad, a.grad)

frozen_grads = []
for name, p in net.named_parameters():
    p.register_hook(lambda g, name=name: frozen_grads.append((name, tuple(g.shape))))
net(x).sum().backward()
print(frozen_grads)

activations = []


def hook_all(module):
    if isinstance(module, (nn.Linear, nn.ReLU)):
        module.register_forward_hook(lambda m, i, o: activations.append((type(m).__name__, round(o.abs().mean().item(), 5))))


net.apply(hook_all)
net(x)
print(activations)
