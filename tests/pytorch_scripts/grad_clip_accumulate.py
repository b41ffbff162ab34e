"""Gradient clipping and accumulation as training loops write them: clip_grad_norm_ returning the
total norm (2, inf and 1 norms, error_if_nonfinite), clip_grad_value_, get_total_norm /
clip_grads_with_norm_, accumulation over micro-batches with loss / accum_steps, skipping a step
with a non-finite gradient, and gradient norms per layer logged the way people log them."""
import math

import numpy as np
import fluxgrad as torch
import fluxgrad.nn as nn
import fluxgrad.nn.functional as F

rng = np.random.default_rng(8)


def model_from_seed():
    model = nn.Sequential(nn.Linear(5, 16), nn.ReLU(), nn.Linear(16, 16), nn.Tanh(), nn.Linear(16, 3))
    local = np.random.default_rng(2)
    with torch.no_grad():
        for p in model.parameters():
            p.copy_(torch.from_numpy(local.uniform(-0.6, 0.6, tuple(p.shape)).astype(np.float32)))
    return model


X = torch.from_numpy(rng.standard_normal((12, 5)).astype(np.float32)) * 3
y = torch.from_numpy(rng.integers(0, 3, 12))

model = model_from_seed()
F.cross_entropy(model(X), y).backward()
norms = {name: p.grad.norm().item() for name, p in model.named_parameters()}
print({k: round(v, 5) for k, v in norms.items()})
total = torch.nn.utils.clip_grad_norm_(model.parameters(), max_norm=0.5)
print(total, math.sqrt(sum(v ** 2 for v in norms.values())))
print(torch.stack([p.grad.norm() for p in model.parameters()]).norm())
model.zero_grad()
F.cross_entropy(model(X), y).backward()
total_inf = torch.nn.utils.clip_grad_norm_(model.parameters(), 0.01, norm_type=float("inf"))
print(total_inf, max(p.grad.abs().max().item() for p in model.parameters()))
model.zero_grad()
F.cross_entropy(model(X), y).backward()
print(torch.nn.utils.clip_grad_norm_(model.parameters(), 100.0, norm_type=1.0))
torch.nn.utils.clip_grad_value_(model.parameters(), clip_value=0.05)
print(model[0].weight.grad[0], model[4].bias.grad)

model.zero_grad()
F.cross_entropy(model(X), y).backward()
grads = [p.grad for p in model.parameters()]
total = torch.nn.utils.get_total_norm(grads, norm_type=2.0)
torch.nn.utils.clip_grads_with_norm_(model.parameters(), max_norm=0.2, total_norm=total)
print(total, torch.nn.utils.get_total_norm([p.grad for p in model.parameters()]))

model[0].weight.grad[0, 0] = float("nan")
try:
    torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0, error_if_nonfinite=True)
except RuntimeError as e:
    print("RuntimeError", "non-finite" in str(e))
print(torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0))

# accumulation: 4 micro-batches of 3 equal one batch of 12
full = model_from_seed()
opt_full = torch.optim.SGD(full.parameters(), lr=0.1, momentum=0.9)
accum = model_from_seed()
opt_accum = torch.optim.SGD(accum.parameters(), lr=0.1, momentum=0.9)
accum_steps = 4
for epoch in range(3):
    opt_full.zero_grad()
    loss = F.cross_entropy(full(X), y)
    loss.backward()
    torch.nn.utils.clip_grad_norm_(full.parameters(), 1.0)
    opt_full.step()
    opt_accum.zero_grad()
    running = 0.0
    for i, (xb, yb) in enumerate(zip(X.split(3), y.split(3))):
        micro = F.cross_entropy(accum(xb), yb) / accum_steps
        micro.backward()
        running += micro.item()
        if (i + 1) % accum_steps == 0:
            norm = torch.nn.utils.clip_grad_norm_(accum.parameters(), 1.0)
            opt_accum.step()
            opt_accum.zero_grad()
    print(epoch, round(loss.item(), 5), round(running, 5), round(norm.item(), 5),
          max((a - b).abs().max().item() for a, b in zip(full.parameters(), accum.parameters())) < 1e-5)

# skip the step when the gradient is not finite (what GradScaler does by hand)
opt = torch.optim.Adam(accum.parameters(), lr=0.01)
before = [p.detach().clone() for p in accum.parameters()]
loss = F.cross_entropy(accum(X * float("inf")), y)
loss.backward()
grad_norm = torch.nn.utils.clip_grad_norm_(accum.parameters(), 1.0)
if torch.isfinite(grad_norm):
    opt.step()
else:
    print("skipped step, grad norm", grad_norm.item())
opt.zero_grad(set_to_none=True)
print(all(torch.equal(a, b) for a, b in zip(before, accum.parameters())), accum[0].weight.grad)
