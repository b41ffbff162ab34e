"""torch.nn.utils beyond clipping: parameters_to_vector / vector_to_parameters, the parametrize
module (a Symmetric and a positive parametrization, original tensors, cached, removal, state_dict,
training through it), parametrizations.weight_norm, deepcopy; the hook-based weight_norm and
remove_weight_norm."""
import copy
import numpy as np
import fluxgrad as torch
import fluxgrad.nn as nn
import fluxgrad.nn.utils.parametrize as parametrize
from fluxgrad.nn.utils import parameters_to_vector, vector_to_parameters
from fluxgrad.nn.utils.parametrizations import weight_norm

rng = np.random.default_rng(97)
model = nn.Sequential(nn.Linear(3, 2), nn.Tanh(), nn.Linear(2, 1))
with torch.no_grad():
    for p in model.parameters():
        p.copy_(torch.from_numpy(rng.uniform(-0.5, 0.5, tuple(p.shape)).astype(np.float32)))
vec = parameters_to_vector(model.parameters())
print(vec.shape, vec[:4], vec.requires_grad)
vector_to_parameters(torch.arange(vec.numel(), dtype=torch.float32) / 10, model.parameters())
print(model[0].weight, model[2].bias, model[0].weight.requires_grad)


class Symmetric(nn.Module):
    def forward(self, X):
        return X.triu() + X.triu(1).transpose(-1, -2)


class Positive(nn.Module):
    def forward(self, X):
        return X.exp()

    def right_inverse(self, Y):
        return Y.log()


layer = nn.Linear(3, 3)
with torch.no_grad():
    layer.weight.copy_(torch.from_numpy(rng.uniform(-1, 1, (3, 3)).astype(np.float32)))
    layer.bias.fill_(1.0)
parametrize.register_parametrization(layer, "weight", Symmetric())
print(torch.allclose(layer.weight, layer.weight.T), parametrize.is_parametrized(layer), parametrize.is_parametrized(layer, "bias"))
print(sorted(n for n, _ in layer.named_parameters()), type(layer).__name__)
print(layer.parametrizations.weight.original.shape, layer.weight)
x = torch.from_numpy(rng.standard_normal((2, 3)).astype(np.float32))
layer(x).sum().backward()
print(layer.parametrizations.weight.original.grad)
parametrize.register_parametrization(layer, "bias", Positive())
print(layer.bias, layer.parametrizations.bias.original)
layer.bias = torch.tensor([2.0, 3.0, 4.0])
print(layer.bias, layer.parametrizations.bias.original)
with parametrize.cached():
    print(layer.weight is layer.weight)
parametrize.remove_parametrizations(layer, "weight", leave_parametrized=True)
print(parametrize.is_parametrized(layer, "weight"), type(layer.weight).__name__, sorted(n for n, _ in layer.named_parameters()))
print(list(layer.state_dict().keys()))
wn = weight_norm(nn.Linear(3, 2), name="weight", dim=0)
with torch.no_grad():
    wn.parametrizations.weight.original0.copy_(torch.tensor([[2.0], [0.5]]))
    wn.parametrizations.weight.original1.copy_(torch.tensor([[3.0, 4.0, 0.0], [1.0, 0.0, 0.0]]))
print(wn.weight, wn.weight.norm(dim=1), sorted(wn.state_dict().keys()))
wn(x).sum().backward()
print(wn.parametrizations.weight.original0.grad, wn.parametrizations.weight.original1.grad)
clone = copy.deepcopy(model)
print(torch.equal(clone[0].weight, model[0].weight), clone[0].weight is model[0].weight)
sym = nn.Linear(2, 2)
parametrize.register_parametrization(sym, "weight", Symmetric())
print(sym, parametrize.type_before_parametrizations(sym).__name__)
opt = torch.optim.SGD(sym.parameters(), lr=0.1)
with torch.no_grad():
    sym.parametrizations.weight.original.copy_(torch.tensor([[1.0, 2.0], [3.0, 4.0]]))
    sym.bias.zero_()
for _ in range(2):
    opt.zero_grad()
    sym(torch.tensor([[1.0, -1.0]])).pow(2).sum().backward()
    opt.step()
print(sym.weight, sym.parametrizations.weight.original)
restored = nn.Linear(2, 2)
parametrize.register_parametrization(restored, "weight", Symmetric())
print(restored.load_state_dict(sym.state_dict()), torch.equal(restored.weight, sym.weight))
parametrize.remove_parametrizations(sym, "weight", leave_parametrized=False)
print(sym.weight, type(sym).__name__, hasattr(sym, "parametrizations"))
try:
    parametrize.register_parametrization(nn.Linear(2, 3), "weight", Symmetric())
except RuntimeError as e:
    print("RuntimeError")
old = nn.Linear(3, 2)
with torch.no_grad():
    old.weight.copy_(torch.tensor([[3.0, 4.0, 0.0], [0.0, 0.0, 2.0]]))
    old.bias.zero_()
old = nn.utils.weight_norm(old, name="weight")
print(sorted(n for n, _ in old.named_parameters()), old.weight_g.squeeze(), old.weight_v.shape)
with torch.no_grad():
    old.weight_g.mul_(2)
print(old(torch.ones(1, 3)), old.weight)
nn.utils.remove_weight_norm(old)
print(sorted(n for n, _ in old.named_parameters()), old.weight)
conv = weight_norm(nn.Conv1d(2, 3, 2), dim=None)
print(conv.parametrizations.weight.original0.shape, conv.parametrizations.weight.original1.shape, torch.allclose(conv.weight, conv.parametrizations.weight.original1))
