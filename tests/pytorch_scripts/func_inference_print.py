"""torch.func.functional_call with swapped and tied parameters and buffers, stack_module_state for
ensembles, torch.inference_mode (is_inference, decorators, nesting with no_grad), torch.no_grad as a
decorator, set_grad_enabled, and torch.set_printoptions (precision, sci_mode, threshold, edgeitems,
linewidth, profile) restored at the end."""
import copy
import fluxgrad as torch
import fluxgrad.nn as nn
from fluxgrad.func import functional_call, grad, stack_module_state, vmap

model = nn.Sequential(nn.Linear(3, 2), nn.BatchNorm1d(2))
with torch.no_grad():
    model[0].weight.copy_(torch.tensor([[0.1, 0.2, 0.3], [-0.3, 0.2, -0.1]]))
    model[0].bias.fill_(0.5)
model.eval()
x = torch.tensor([[1.0, 2.0, 3.0], [0.0, -1.0, 1.0]])
params = dict(model.named_parameters())
buffers = dict(model.named_buffers())
print(sorted(params), sorted(buffers))
new_params = {k: v * 2 for k, v in params.items()}
print(functional_call(model, (new_params, buffers), (x,)))
print(functional_call(model, {"0.weight": torch.zeros(2, 3)}, x), model[0].weight[0])
print(functional_call(model, {**params, "1.running_mean": torch.tensor([1.0, 1.0])}, (x,), strict=False))


def loss_fn(p, inputs, targets):
    return ((functional_call(model, p, (inputs,)) - targets) ** 2).mean()


detached = {k: v.detach() for k, v in params.items()}
g = grad(loss_fn)(detached, x, torch.zeros(2, 2))
print({k: v for k, v in g.items()})
models = [nn.Linear(3, 2) for _ in range(3)]
for i, m in enumerate(models):
    with torch.no_grad():
        m.weight.fill_(0.1 * (i + 1))
        m.bias.fill_(-0.1 * i)
stacked_params, stacked_buffers = stack_module_state(models)
print({k: tuple(v.shape) for k, v in stacked_params.items()}, stacked_buffers)
base = copy.deepcopy(models[0]).to("meta")


def fmodel(p, b, inp):
    return functional_call(base, (p, b), (inp,))


print(vmap(fmodel, in_dims=(0, 0, None))(stacked_params, stacked_buffers, x))
with torch.inference_mode():
    y = model(x)
    print(torch.is_inference_mode_enabled(), torch.is_grad_enabled())
print(y.requires_grad, torch.is_inference_mode_enabled())
with torch.inference_mode(mode=False):
    z = model(x)
print(z.requires_grad, torch.is_inference_mode_enabled())


@torch.inference_mode()
def predict(inp):
    return model(inp).argmax(dim=1)


@torch.no_grad()
def predict_probs(inp):
    return model(inp).softmax(dim=1)


print(predict(x), predict_probs(x), predict_probs(x).requires_grad)
with torch.no_grad():
    with torch.enable_grad():
        w = torch.ones(2, requires_grad=True) * 2
    v = torch.ones(2, requires_grad=True) * 2
print(w.requires_grad, v.requires_grad, torch.is_grad_enabled())
with torch.set_grad_enabled(False):
    print(torch.is_grad_enabled(), (torch.ones(1, requires_grad=True) * 1).requires_grad, torch.is_inference_mode_enabled())
torch.set_grad_enabled(True)
print(torch.is_grad_enabled())
t = torch.tensor([1.123456789, 2000.5, 0.000123])
torch.set_printoptions(precision=2)
print(t, torch.tensor([[1.0, 2.5], [3.25, 4.125]]))
torch.set_printoptions(sci_mode=False)
print(t)
torch.set_printoptions(precision=6)
print(t, torch.tensor([0.1, 0.2]))
torch.set_printoptions(threshold=5, edgeitems=2)
print(torch.arange(10), torch.arange(20.0).view(4, 5))
torch.set_printoptions(profile="default")
print(torch.arange(10), t)
torch.set_printoptions(linewidth=40)
print(torch.arange(12.0) / 3)
torch.set_printoptions(profile="short")
print(torch.tensor([1.23456, 2.0]))
torch.set_printoptions(profile="default", sci_mode=None)
print(torch.tensor([1e-8, 1.0]), torch.tensor([123456789.0]), torch.tensor([1.5, 2.5]))
