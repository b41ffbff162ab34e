"""Meta-learning with torch.func: functional_call on a dict of parameters and buffers (a model with
BatchNorm), Reptile on sine tasks (inner SGD on a functional copy, outer step towards the adapted
weights), and MAML's second-order meta-gradient via torch.func.grad of an inner-loop function,
cross-checked with torch.autograd.grad(create_graph=True)."""
import numpy as np
import fluxgrad as torch
import fluxgrad.nn as nn
from fluxgrad.func import functional_call, grad

rng = np.random.default_rng(14)
model = nn.Sequential(nn.Linear(1, 12), nn.BatchNorm1d(12), nn.Tanh(), nn.Linear(12, 1))
with torch.no_grad():
    for p in model.parameters():
        p.copy_(torch.from_numpy(rng.uniform(-0.6, 0.6, tuple(p.shape)).astype(np.float32)))
params = {k: v.detach() for k, v in model.named_parameters()}
buffers = {k: v.clone() for k, v in model.named_buffers()}
x = torch.linspace(-2, 2, 10).unsqueeze(1)
out = functional_call(model, (params, buffers), (x,))
print(out[:3].squeeze(1), buffers["1.running_mean"][:3], model[1].running_mean[:3])
print(sorted(buffers), buffers["1.num_batches_tracked"])
model.eval()
print(torch.allclose(functional_call(model, {**params, **buffers}, x), model(x)))


def task(seed):
    g = np.random.default_rng(seed)
    amp, phase = g.uniform(0.5, 2.0), g.uniform(0, np.pi)
    xs = torch.from_numpy(g.uniform(-3, 3, (10, 1)).astype(np.float32))
    return xs, amp * torch.sin(xs + phase)


def loss_fn(p, xs, ys):
    return (functional_call(model, (p, buffers), (xs,)) - ys).pow(2).mean()


meta = {k: v.clone() for k, v in params.items()}
for it in range(4):
    xs, ys = task(it)
    fast = {k: v.clone() for k, v in meta.items()}
    for _ in range(3):
        g = grad(loss_fn)(fast, xs, ys)
        fast = {k: fast[k] - 0.05 * g[k] for k in fast}
    meta = {k: meta[k] + 0.5 * (fast[k] - meta[k]) for k in meta}
    print(it, f"{loss_fn(meta, xs, ys).item():.5f}", f"{loss_fn(fast, xs, ys).item():.5f}")

xs, ys = task(100)
xq, yq = task(101)


def adapted_query_loss(p):
    g = grad(loss_fn)(p, xs, ys)
    return loss_fn({k: p[k] - 0.1 * g[k] for k in p}, xq, yq)


meta_grad = grad(adapted_query_loss)(meta)
leaves = {k: v.clone().requires_grad_() for k, v in meta.items()}
inner = torch.autograd.grad(loss_fn(leaves, xs, ys), list(leaves.values()), create_graph=True)
fast = {k: leaves[k] - 0.1 * gk for k, gk in zip(leaves, inner)}
outer = torch.autograd.grad(loss_fn(fast, xq, yq), list(leaves.values()))
print(all(torch.allclose(meta_grad[k], o, atol=1e-5) for k, o in zip(leaves, outer)))
print(meta_grad["0.weight"][:4].squeeze(1), meta_grad["3.bias"])
