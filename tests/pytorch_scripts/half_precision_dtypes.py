"""Mixed dtypes the way inference and data code meets them: .half() / .to(torch.float16) casts and
back, float16 arithmetic and its rounding (finfo eps/max/tiny, overflow to inf), promotion between
float16 and float32 / float64 / int / Python scalars, a model cast with .half() / .double() and its
parameter dtypes, integer tensors (// and % with negatives, true division, bitwise ops and shifts,
int8/uint8 wraparound, clamp of ints), bool arithmetic, type_as, and result_type / promote_types /
can_cast."""
import numpy as np
import fluxgrad as torch
import fluxgrad.nn as nn

rng = np.random.default_rng(47)
x = torch.from_numpy(rng.standard_normal((2, 3)).astype(np.float32))
h = x.half()
print(h, h.dtype, h.element_size(), h.float().dtype)
print(torch.tensor([1.0, 2049.0, 65504.0, 70000.0]).to(torch.float16))
print(torch.tensor([0.1], dtype=torch.float16).item(), torch.tensor(1 / 3, dtype=torch.float16))
print(torch.finfo(torch.float16).eps, torch.finfo(torch.float16).max, torch.finfo(torch.float16).tiny)
print(torch.finfo(torch.float32).eps, torch.finfo(torch.float64).resolution, torch.iinfo(torch.int8).min,
      torch.iinfo(torch.int32).max, torch.iinfo(torch.uint8).bits)
print((h + h).dtype, (h + x).dtype, (h + 1).dtype, (h + 1.5).dtype, (h * torch.tensor(2)).dtype,
      (h + torch.tensor(1.0, dtype=torch.float64)).dtype, (h + x.double()).dtype)
big = torch.tensor([60000.0], dtype=torch.float16)
print(big * 2, (big * 2).isinf(), big.float() * 2)
s = torch.ones(3000, dtype=torch.float16).sum()
print(s, s.dtype, torch.ones(3000, dtype=torch.float16).cumsum(0)[-1])
print(torch.tensor([1.0, 1e-4], dtype=torch.float16) + torch.tensor(1.0, dtype=torch.float16))

model = nn.Sequential(nn.Linear(3, 4), nn.ReLU(), nn.Linear(4, 2))
with torch.no_grad():
    for p in model.parameters():
        p.copy_(torch.from_numpy(rng.uniform(-0.5, 0.5, tuple(p.shape)).astype(np.float32)))
out32 = model(x)
model.double()
print({n: p.dtype for n, p in model.named_parameters()})
out64 = model(x.double())
print(out64.dtype, torch.allclose(out32.double(), out64, atol=1e-6))
model.float()
print(model[0].weight.dtype, model(x).dtype)
try:
    model(x.double())
except RuntimeError as e:
    print("RuntimeError")

a = torch.tensor([7, -7, 5, -5])
b = torch.tensor([2, 2, -3, -3])
print(a // b, a % b, torch.div(a, b), torch.div(a, b, rounding_mode="trunc"), torch.div(a, b, rounding_mode="floor"))
print(torch.fmod(a, b), torch.remainder(a, b), a / 2, (a / 2).dtype, a * 1.5, (a * 1.5).dtype)
print(a & 3, a | 8, a ^ 1, ~a, a << 2, torch.tensor([64, -64]) >> 3)
print(torch.bitwise_and(torch.tensor([12, 10]), torch.tensor([10, 6])), torch.bitwise_not(torch.tensor([0, 1], dtype=torch.uint8)))
u = torch.tensor([250, 5], dtype=torch.uint8)
print(u + 10, (u + 10).dtype, u - 10, torch.tensor([120], dtype=torch.int8) + torch.tensor([10], dtype=torch.int8))
print(u.to(torch.int8), torch.tensor([-1, 256, 300]).to(torch.uint8))
print(torch.tensor([1.7, -1.7, 2.5, -0.5]).to(torch.int64), torch.tensor([1.7, -1.7, 2.5]).round().long())
print(a.clamp(-6, 6), a.clamp(min=0).dtype, a.abs(), a.sign(), a.pow(2), (a ** 2).dtype)
mask = torch.tensor([True, False, True])
print(mask.sum(), mask.sum().dtype, mask.float().mean(), mask + mask, (mask * 2).dtype, mask & ~mask)
print(torch.tensor([3, 4]).type_as(x), x.type(torch.int32), x.to(torch.int16).dtype)
print(torch.result_type(torch.tensor([1]), 1.0), torch.promote_types(torch.float16, torch.int32),
      torch.promote_types(torch.uint8, torch.int8), torch.can_cast(torch.float32, torch.int32),
      torch.can_cast(torch.int32, torch.float32))
print(torch.tensor([1, 2]).float().dtype, torch.tensor([1, 2]).half().dtype, torch.tensor([1.5]).int(), torch.tensor([1.5]).bool())
print(torch.arange(5).float().mean(), torch.arange(5).sum(), torch.arange(5).sum().dtype, torch.arange(5, dtype=torch.int32).sum().dtype)
print(torch.tensor([1, 2, 3], dtype=torch.int32).prod().dtype, torch.tensor([1, 2], dtype=torch.int16).cumsum(0).dtype)
