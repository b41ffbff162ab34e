"""Hooks as people use them: feature extraction with register_forward_hook into a dict (activation
maps of a small CNN), a forward pre-hook that rescales the input, a forward hook that replaces the
output, register_full_backward_hook recording grad_output norms, tensor.register_hook clipping a
gradient, retain_grad on intermediates, handle.remove(), and hooks with kwargs."""
import numpy as np
import fluxgrad as torch
import fluxgrad.nn as nn

rng = np.random.default_rng(53)


def fill(module):
    with torch.no_grad():
        for p in module.parameters():
            p.copy_(torch.from_numpy(rng.uniform(-0.5, 0.5, tuple(p.shape)).astype(np.float32)))
    return module


model = fill(nn.Sequential(
    nn.Conv2d(1, 2, 3), nn.ReLU(), nn.MaxPool2d(2),
    nn.Flatten(), nn.Linear(2 * 2 * 2, 3),
))
activation = {}


def get_activation(name):
    def hook(model, input, output):
        activation[name] = output.detach()
    return hook


h1 = model[0].register_forward_hook(get_activation("conv"))
h2 = model[2].register_forward_hook(get_activation("pool"))
x = torch.from_numpy(rng.standard_normal((1, 1, 6, 6)).astype(np.float32))
out = model(x)
print(sorted(activation), activation["conv"].shape, activation["pool"][0, 1], activation["conv"].requires_grad)
h1.remove()
h2.remove()
activation.clear()
model(x)
print(activation)


def scale_input(module, args):
    return (args[0] * 2,)


pre = model[4].register_forward_pre_hook(scale_input)
print(model(x), out * 1)
pre.remove()


def replace_output(module, args, output):
    return output.clamp(min=0)


post = model[4].register_forward_hook(replace_output)
print(model(x))
post.remove()
grads = []
bh = model[4].register_full_backward_hook(lambda m, grad_input, grad_output: grads.append((grad_output[0].norm(), grad_input[0].shape)))
model(x).sum().backward()
print(grads, len(grads))
bh.remove()
model.zero_grad()
pre_grads = []
bph = model[4].register_full_backward_pre_hook(lambda m, grad_output: pre_grads.append(grad_output[0].clone()))
(model(x) * torch.tensor([1.0, 2.0, 3.0])).sum().backward()
print(pre_grads)
bph.remove()
a = torch.tensor([1.0, 2.0, 3.0], requires_grad=True)
b = a * 3
b.retain_grad()
hook = b.register_hook(lambda g: g.clamp(max=0.5))
c = (b ** 2).sum()
c.backward()
print(b.grad, a.grad)
hook.remove()
seen = []
w = torch.tensor([2.0], requires_grad=True)
w.register_hook(lambda g: seen.append(g.item()))
(w * 5).backward()
print(seen, w.grad)


class Scaled(nn.Module):
    def forward(self, x, scale=1.0):
        return x * scale


calls = []


def double_scale(module, args, kwargs):
    calls.append(sorted(kwargs))
    return args, {"scale": kwargs.get("scale", 1.0) * 2}


scaled = Scaled()
scaled.register_forward_pre_hook(double_scale, with_kwargs=True)
scaled.register_forward_hook(lambda m, args, kwargs, out: calls.append((kwargs["scale"], out.shape)), with_kwargs=True)
scaled.register_forward_pre_hook(lambda m, args: calls.append("first"), prepend=True)
print(scaled(torch.ones(2), scale=1.5), calls)


class FeatureExtractor(nn.Module):
    def __init__(self, model, layers):
        super().__init__()
        self.model = model
        self._features = {layer: torch.empty(0) for layer in layers}
        for layer_id in layers:
            layer = dict([*self.model.named_modules()])[layer_id]
            layer.register_forward_hook(self.save_outputs_hook(layer_id))

    def save_outputs_hook(self, layer_id):
        def fn(_, __, output):
            self._features[layer_id] = output
        return fn

    def forward(self, x):
        _ = self.model(x)
        return self._features


extractor = FeatureExtractor(model, layers=["1", "3"])
features = extractor(x)
print({name: tuple(f.shape) for name, f in features.items()}, features["3"].grad_fn is not None)
print(len(model[1]._forward_hooks), len(model[0]._forward_hooks))
