"""The torch.func 'model ensembling' and 'per-sample gradients' tutorials."""
import copy

import numpy as np
import fluxgrad as torch
import fluxgrad.nn as nn
import fluxgrad.nn.functional as F
from fluxgrad.func import functional_call, grad, stack_module_state, vmap

rng = np.random.default_rng(12)


class SimpleMLP(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc1 = nn.Linear(6, 8)
        self.fc2 = nn.Linear(8, 4)
        self.fc3 = nn.Linear(4, 3)

    def forward(self, x):
        x = x.flatten(1)
        x = F.relu(self.fc1(x))
        x = F.relu(self.fc2(x))
        return self.fc3(x)


def make():
    m = SimpleMLP()
    with torch.no_grad():
        for p in m.parameters():
            p.copy_(torch.from_numpy(rng.standard_normal(tuple(p.shape)).astype(np.float32) * 0.5))
    return m


num_models = 4
models = [make() for _ in range(num_models)]
data = torch.from_numpy(rng.standard_normal((num_models, 5, 2, 3)).astype(np.float32))
minibatch = data[0]
predictions_diff_minibatch_loop = [model(mb) for model, mb in zip(models, data)]
predictions1_vmap = None
params, buffers = stack_module_state(models)
print({k: v.shape for k, v in params.items()}, params["fc1.weight"].requires_grad, buffers)
base_model = copy.deepcopy(models[0])


def fmodel(params, buffers, x):
    return functional_call(base_model, (params, buffers), (x,))


predictions1_vmap = vmap(fmodel, in_dims=(0, 0, None))(params, buffers, minibatch)
print(predictions1_vmap.shape, torch.allclose(predictions1_vmap[1], models[1](minibatch), atol=1e-6))
predictions2_vmap = vmap(fmodel)(params, buffers, data)
print(torch.allclose(predictions2_vmap, torch.stack(predictions_diff_minibatch_loop), atol=1e-6))
print(predictions2_vmap[2])
model = models[0]
targets = torch.tensor([0, 1, 2, 1, 0])
params = {k: v.detach() for k, v in model.named_parameters()}
buffers = {k: v.detach() for k, v in model.named_buffers()}


def compute_loss(params, buffers, sample, target):
    batch = sample.unsqueeze(0)
    targets = target.unsqueeze(0)
    predictions = functional_call(model, (params, buffers), (batch,))
    return F.cross_entropy(predictions, targets)


ft_compute_grad = grad(compute_loss)
ft_compute_sample_grad = vmap(ft_compute_grad, in_dims=(None, None, 0, 0))
ft_per_sample_grads = ft_compute_sample_grad(params, buffers, minibatch, targets)
for name, g in ft_per_sample_grads.items():
    manual = torch.stack([torch.autograd.grad(F.cross_entropy(model(minibatch[i:i + 1]), targets[i:i + 1]),
                                              dict(model.named_parameters())[name])[0] for i in range(5)])
    print(name, g.shape, torch.allclose(g, manual, atol=1e-6))
print(ft_per_sample_grads["fc3.bias"])
