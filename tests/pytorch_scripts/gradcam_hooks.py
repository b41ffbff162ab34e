"""Grad-CAM on a small CNN, written with hooks as the tutorials do: a forward hook storing the
last conv block's activations, a full backward hook and a tensor hook storing their
gradients (they agree), channel weights by global-average-pooling the gradients, the ReLU
of the weighted sum upsampled with F.interpolate, and the hook handles removed."""
import numpy as np
import fluxgrad as torch
import fluxgrad.nn as nn
import fluxgrad.nn.functional as F

rng = np.random.default_rng(113)


class SmallCNN(nn.Module):
    def __init__(self):
        super().__init__()
        self.features = nn.Sequential(nn.Conv2d(1, 4, 3, padding=1), nn.ReLU(), nn.MaxPool2d(2),
                                      nn.Conv2d(4, 6, 3, padding=1), nn.ReLU())
        self.classifier = nn.Linear(6, 3)

    def forward(self, x):
        h = self.features(x)
        return self.classifier(h.mean(dim=(2, 3)))


model = SmallCNN()
with torch.no_grad():
    for p in model.parameters():
        p.copy_(torch.tensor(rng.uniform(-0.6, 0.6, tuple(p.shape)), dtype=torch.float32))
model.eval()
store = {}


def save_activation(module, inputs, output):
    store["act"] = output.detach()
    output.register_hook(lambda g: store.__setitem__("tensor_grad", g.detach()))


def save_gradient(module, grad_input, grad_output):
    store["grad"] = grad_output[0].detach()


target_layer = model.features[4]
handles = [target_layer.register_forward_hook(save_activation),
           target_layer.register_full_backward_hook(save_gradient)]
image = torch.tensor(rng.uniform(0, 1, (1, 1, 8, 8)), dtype=torch.float32, requires_grad=True)
logits = model(image)
cls = logits.argmax(dim=1).item()
model.zero_grad()
logits[0, cls].backward()
print(logits, cls, store["act"].shape, store["grad"].shape)
print(torch.allclose(store["grad"], store["tensor_grad"]))
weights = store["grad"].mean(dim=(2, 3), keepdim=True)
cam = F.relu((weights * store["act"]).sum(dim=1, keepdim=True))
cam = F.interpolate(cam, size=image.shape[-2:], mode="bilinear", align_corners=False)
cam = (cam - cam.min()) / (cam.max() - cam.min() + 1e-8)
print(weights.flatten(), cam[0, 0, :3, :3], cam.shape)
print(image.grad.abs().sum().item(), image.grad.shape)
for h in handles:
    h.remove()
store.clear()
model(image)
print(store, len(target_layer._forward_hooks), len(target_layer._backward_hooks))
