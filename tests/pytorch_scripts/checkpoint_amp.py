"""Memory and precision utilities as training scripts call them on the CPU: torch.utils.checkpoint
(checkpoint with use_reentrant=False, with kwargs and several outputs, checkpoint_sequential),
equal gradients with and without it; torch.autocast(device_type='cpu', enabled=False), a disabled
GradScaler (scale/step/update pass through), torch.amp spellings, and torch.backends flags."""
import numpy as np
import fluxgrad as torch
import fluxgrad.nn as nn
from fluxgrad.utils.checkpoint import checkpoint, checkpoint_sequential

rng = np.random.default_rng(103)


def make():
    model = nn.Sequential(nn.Linear(4, 8), nn.Tanh(), nn.Linear(8, 8), nn.GELU(), nn.Linear(8, 2))
    local = np.random.default_rng(0)
    with torch.no_grad():
        for p in model.parameters():
            p.copy_(torch.from_numpy(local.uniform(-0.5, 0.5, tuple(p.shape)).astype(np.float32)))
    return model


x = torch.from_numpy(rng.standard_normal((3, 4)).astype(np.float32)).requires_grad_()
plain = make()
plain(x).pow(2).sum().backward()
g_plain = [p.grad.clone() for p in plain.parameters()]
gx = x.grad.clone()
x.grad = None
ck = make()


def block(inp, scale=1.0):
    return ck[2](ck[1](ck[0](inp))) * scale


h = checkpoint(block, x, use_reentrant=False, scale=1.0)
out = ck[4](ck[3](h))
out.pow(2).sum().backward()
print(all(torch.allclose(a, b.grad, atol=1e-6) for a, b in zip(g_plain, ck.parameters())), torch.allclose(gx, x.grad, atol=1e-6))
x.grad = None
seq = make()
out = checkpoint_sequential(seq, 2, x, use_reentrant=False)
out.pow(2).sum().backward()
print(out.shape, all(torch.allclose(a, b.grad, atol=1e-6) for a, b in zip(g_plain, seq.parameters())))


def two_outputs(a, b):
    return a * b, a + b


a = torch.tensor([1.0, 2.0], requires_grad=True)
b = torch.tensor([3.0, 4.0], requires_grad=True)
p, s = checkpoint(two_outputs, a, b, use_reentrant=False)
(p.sum() + (s ** 2).sum()).backward()
print(p, s, a.grad, b.grad)
model = make()
opt = torch.optim.SGD(model.parameters(), lr=0.1)
scaler = torch.amp.GradScaler("cpu", enabled=False)
for step in range(2):
    opt.zero_grad()
    with torch.autocast(device_type="cpu", enabled=False):
        loss = model(x.detach()).pow(2).mean()
    print(loss.dtype, torch.is_autocast_enabled() if hasattr(torch, "is_autocast_enabled") else False)
    scaler.scale(loss).backward()
    scaler.step(opt)
    scaler.update()
    print(step, round(loss.item(), 6), scaler.get_scale(), scaler.is_enabled())
with torch.autocast("cpu", enabled=False):
    print(torch.mm(torch.ones(2, 2), torch.ones(2, 2)).dtype)
print(torch.backends.cudnn.enabled in (True, False), torch.backends.mps.is_available(), torch.cuda.is_available(), torch.cuda.device_count())
torch.backends.cudnn.benchmark = True
torch.backends.cudnn.deterministic = True
torch.use_deterministic_algorithms(False)
print(torch.are_deterministic_algorithms_enabled(), torch.get_num_threads() >= 1, torch.get_default_dtype())
torch.set_default_dtype(torch.float64)
print(torch.tensor([1.0]).dtype, torch.zeros(1).dtype, nn.Linear(1, 1).weight.dtype, torch.tensor([1]).dtype)
torch.set_default_dtype(torch.float32)
print(torch.tensor([1.0]).dtype)
