"""Integer and bool arithmetic the way image and audio code hits it: uint8 pixels wrapping around
on + and - (200 + 100 == 44), the fix by widening to int16 and clamping back, uint8 -> float / 255
and back with round, mu-law companding to 8-bit codes and back, packing 8 bools into a byte with
shifts, bool tensors summed and multiplied (counting, AND as *), mean of a bool refused, integer
division and remainder of negatives in index arithmetic, and bucketize for quantization."""
import math

import fluxgrad as torch

img = torch.tensor([[0, 100, 200], [250, 30, 128]], dtype=torch.uint8)
print(img + 100, img - 150, img * 2, img.dtype, (img + 100).dtype)
brighter = (img.to(torch.int16) + 100).clamp(0, 255).to(torch.uint8)
print(brighter, 255 - img, img // 3, img.max(), img.float().mean())
f = img.float() / 255
back = (f * 255).round().to(torch.uint8)
print(f, torch.equal(back, img), img.to(torch.float32).div(255).mul(2).sub(1))
print(img.sum(), img.sum().dtype, img.to(torch.int64).sum(), img.prod(dim=1), torch.tensor([3], dtype=torch.uint8) - 5)

mu = 255
audio = torch.linspace(-1, 1, 9)
compressed = torch.sign(audio) * torch.log1p(mu * audio.abs()) / math.log1p(mu)
codes = ((compressed + 1) / 2 * mu + 0.5).to(torch.int64)
decoded = 2 * codes.float() / mu - 1
expanded = torch.sign(decoded) * ((1 + mu) ** decoded.abs() - 1) / mu
print(codes, codes.dtype, expanded, (expanded - audio).abs().max() < 0.02)

bits = torch.tensor([[1, 0, 1, 1, 0, 0, 1, 0], [0, 0, 0, 0, 1, 1, 1, 1]], dtype=torch.bool)
weights = 2 ** torch.arange(7, -1, -1)
packed = (bits.long() * weights).sum(1).to(torch.uint8)
unpacked = (packed.unsqueeze(1) >> torch.arange(7, -1, -1).to(torch.uint8)) & 1
print(packed, unpacked, torch.equal(unpacked.bool(), bits))

a = torch.tensor([True, False, True, True])
b = torch.tensor([True, True, False, True])
print(a.sum(), a.sum().dtype, a * b, (a * b).dtype, a + b, a & b, a | b, a ^ b, ~a, a.int().cumsum(0))
print(a.float().mean(), torch.count_nonzero(a), a.any(), a.all(), a.long() - b.long(), (a == b).sum().item())
try:
    a.mean()
except RuntimeError as err:
    print("bool mean refused", "Bool" in str(err))
try:
    a - b
except RuntimeError as err:
    print("bool subtraction refused", "-" in str(err) or "subtract" in str(err))

pos = torch.tensor([-7, -1, 0, 5, 13])
width = 4
print(pos // width, pos % width, torch.div(pos, width, rounding_mode="trunc"), torch.fmod(pos, width), torch.remainder(pos, -width))
rows, cols = torch.div(torch.arange(10), 4, rounding_mode="floor"), torch.arange(10) % 4
print(rows, cols, rows * 4 + cols)
boundaries = torch.tensor([0.25, 0.5, 0.75])
values = torch.tensor([0.0, 0.25, 0.3, 0.5, 0.99, 1.0])
print(torch.bucketize(values, boundaries), torch.bucketize(values, boundaries, right=True), torch.searchsorted(boundaries, values))
print(torch.iinfo(torch.uint8), torch.iinfo(torch.int8).min, torch.tensor([127], dtype=torch.int8) + 1, torch.tensor([-128], dtype=torch.int8).abs())
