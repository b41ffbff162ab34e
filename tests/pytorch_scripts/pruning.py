"""The 'Pruning Tutorial' on a small LeNet: l1_unstructured and ln_structured on conv and linear
weights (weight_orig, weight_mask, the forward pre-hook), iterative pruning through a
PruningContainer, pruning biases, global_unstructured across layers with sparsity reports,
importance_scores, custom_from_mask, identity, prune.remove making it permanent, is_pruned,
state_dict keys of a pruned model, gradients masked, training a pruned model, and a custom
pruning method (BasePruningMethod subclass)."""
import numpy as np
import fluxgrad as torch
import fluxgrad.nn as nn
import fluxgrad.nn.functional as F
import fluxgrad.nn.utils.prune as prune

rng = np.random.default_rng(41)


class LeNet(nn.Module):
    def __init__(self):
        super().__init__()
        self.conv1 = nn.Conv2d(1, 3, 3)
        self.conv2 = nn.Conv2d(3, 4, 3)
        self.fc1 = nn.Linear(4 * 2 * 2, 10)
        self.fc2 = nn.Linear(10, 3)

    def forward(self, x):
        x = F.max_pool2d(F.relu(self.conv1(x)), 2)
        x = F.relu(self.conv2(x))
        x = x.view(-1, int(x.nelement() / x.shape[0]))
        return self.fc2(F.relu(self.fc1(x)))


model = LeNet()
with torch.no_grad():
    for p in model.parameters():
        p.copy_(torch.from_numpy(rng.uniform(-0.5, 0.5, tuple(p.shape)).astype(np.float32)))
x = torch.from_numpy(rng.standard_normal((2, 1, 10, 10)).astype(np.float32))
module = model.conv1
print(list(module.named_parameters()), list(module.named_buffers()))
prune.l1_unstructured(module, name="weight", amount=0.3)
print([n for n, _ in module.named_parameters()], [n for n, _ in module.named_buffers()])
print(module.weight_mask.sum(), module.weight_mask[1], module.weight[1])
print([type(h).__name__ for h in module._forward_pre_hooks.values()])
prune.l1_unstructured(module, name="bias", amount=1)
print(module.bias, module.bias_mask)
prune.ln_structured(module, name="weight", amount=1, n=2, dim=0)
print(module.weight_mask.sum(dim=(1, 2, 3)), module.weight_mask.sum())
hook = [h for h in module._forward_pre_hooks.values() if h._tensor_name == "weight"][0]
print(type(hook).__name__, [type(h).__name__ for h in hook], hook._tensor_name)
prune.l1_unstructured(module, name="weight", amount=2)
print(module.weight_mask.sum(dim=(1, 2, 3)))
print(list(model.state_dict().keys()))
print(prune.is_pruned(model), prune.is_pruned(nn.Linear(2, 2)))
out = model(x)
out.sum().backward()
print(out, module.weight_orig.grad[0, 0], module.weight_orig.grad.eq(0).sum())

parameters_to_prune = ((model.conv2, "weight"), (model.fc1, "weight"), (model.fc2, "weight"))
prune.global_unstructured(parameters_to_prune, pruning_method=prune.L1Unstructured, amount=0.4)
for m, name in parameters_to_prune:
    w = getattr(m, name)
    print(type(m).__name__, f"{100.0 * float(torch.sum(w == 0)) / float(w.nelement()):.2f}%")
total_zero = sum(float(torch.sum(getattr(m, n) == 0)) for m, n in parameters_to_prune)
total = sum(float(getattr(m, n).nelement()) for m, n in parameters_to_prune)
print(f"Global sparsity: {100.0 * total_zero / total:.2f}%")
print(type(model.fc1._forward_pre_hooks[next(iter(model.fc1._forward_pre_hooks))]).__name__)

scores = torch.arange(30, dtype=torch.float32).view(3, 10)
prune.l1_unstructured(model.fc2, "bias", amount=0.5, importance_scores=torch.tensor([3.0, 1.0, 2.0]))
print(model.fc2.bias_mask)
lin = nn.Linear(10, 3)
prune.l1_unstructured(lin, "weight", amount=5, importance_scores=scores)
print(lin.weight_mask[0])
prune.custom_from_mask(lin, "bias", mask=torch.tensor([0, 1, 0]))
print(lin.bias_mask, lin.bias_mask.dtype, (lin.bias == 0).tolist())
prune.identity(lin, "weight")
print(lin.weight_mask.sum())

prune.remove(module, "weight")
print([n for n, _ in module.named_parameters()], [n for n, _ in module.named_buffers()])
print(type(module.weight).__name__, module.weight.eq(0).sum(), len(module._forward_pre_hooks))
try:
    prune.remove(module, "weight")
except ValueError as e:
    print("ValueError", "has to be pruned" in str(e))
try:
    prune.l1_unstructured(nn.Linear(2, 2), "weight", amount=1.5)
except ValueError as e:
    print("ValueError", str(e))
try:
    prune.ln_structured(nn.Linear(2, 2), "bias", amount=1, n=2, dim=0)
except ValueError as e:
    print("ValueError", "multidimensional" in str(e))

opt = torch.optim.SGD(model.parameters(), lr=0.1)
y = torch.tensor([0, 2])
for step in range(3):
    opt.zero_grad()
    loss = F.cross_entropy(model(x), y)
    loss.backward()
    opt.step()
    print(step, f"{loss.item():.5f}", int((model.fc1.weight == 0).sum()), int((model.fc1.weight_orig == 0).sum()))


class EveryOther(prune.BasePruningMethod):
    PRUNING_TYPE = "unstructured"

    def compute_mask(self, t, default_mask):
        mask = default_mask.clone()
        mask.view(-1)[::2] = 0
        return mask


def every_other(module, name):
    EveryOther.apply(module, name)
    return module


m = every_other(nn.Linear(3, 2), "bias")
print(m.bias_mask, m.bias_mask.sum())
t = torch.tensor([[4.0, -1.0], [0.5, 2.0]])
print(prune.L1Unstructured(amount=0.5).prune(t), prune.LnStructured(amount=1, n=1, dim=1).prune(t))
