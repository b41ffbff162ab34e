"""Arithmetic details that trip people up: type promotion between int/float/bool tensors and Python
scalars, true division of ints, div rounding_mode ('trunc', 'floor'), floor_divide, remainder vs fmod
with negatives, integer overflow-free pow, bitwise and shift ops, comparisons returning bool, in-place
ops that can't change dtype, result_type/promote_types/can_cast, and finfo/iinfo."""
import fluxgrad as torch

i = torch.tensor([7, -7, 5, -5])
f = torch.tensor([2.0, 2.0, -2.0, -2.0])
print((i + 1).dtype, (i + 1.5).dtype, (i * True).dtype, (i / 2).dtype, (i // 2), (torch.tensor([True]) + True).dtype)
print(i / 2, torch.div(i, 2, rounding_mode="trunc"), torch.div(i, 2, rounding_mode="floor"), torch.floor_divide(i, 2), i // -2)
print(torch.remainder(i, 3), torch.fmod(i, 3), i % -3, torch.fmod(i.float(), -3), torch.remainder(-1.5, torch.tensor(1.0)))
print(i.float() / f, torch.true_divide(i, 2), i.div(f), (i.to(torch.int32) + torch.tensor(1, dtype=torch.int64)).dtype)
print((torch.ones(2, dtype=torch.int32) + torch.ones(2, dtype=torch.int64)).dtype, (torch.ones(2, dtype=torch.float16) + torch.ones(2)).dtype)
print((torch.ones(2, dtype=torch.int8) * 1.5).dtype, (torch.ones(2, dtype=torch.uint8) + 1).dtype, (torch.ones(2, dtype=torch.uint8) - 2))
print((torch.tensor([1.0], dtype=torch.float64) * torch.tensor(2.0)).dtype, (torch.tensor(2, dtype=torch.int64) * torch.ones(2, dtype=torch.float16)).dtype)
print(torch.tensor([2, 3]) ** 2, torch.tensor([2, 3]) ** 0.5, 2 ** torch.tensor([1, 2]), torch.pow(torch.tensor([2.0]), torch.tensor([-1])), torch.tensor([4]).pow(2).dtype)
b1 = torch.tensor([0b1100, 0b1010])
print(b1 & 0b1000, b1 | 1, b1 ^ 0b0110, ~b1, b1 << 2, b1 >> 1, torch.bitwise_and(b1, torch.tensor([4, 2])), torch.bitwise_not(torch.tensor([True, False])))
print(torch.tensor([True, False]) & torch.tensor([True, True]), torch.logical_xor(torch.tensor([1, 0]), torch.tensor([1, 1])), torch.logical_not(torch.tensor([0.0, 2.0])))
c = torch.tensor([1, 2, 3])
print(c > 2, (c > 2).dtype, c == torch.tensor([1.0, 0.0, 3.0]), c.eq(2), c.ne(2).sum(), (c >= 2).all(), (c < 0).any(), torch.gt(c, 1.5))
try:
    c += 0.5
except RuntimeError as e:
    print("RuntimeError", "can't be cast" in str(e) or "cast" in str(e))
cf = c.float()
cf += 1
cf.mul_(torch.tensor(2))
print(cf, cf.dtype)
ci = torch.tensor([1, 2, 3])
ci *= 2
ci.add_(torch.tensor([1, 1, 1]))
print(ci, ci.dtype)
print(torch.result_type(torch.tensor([1]), 1.0), torch.promote_types(torch.int32, torch.float32), torch.can_cast(torch.float64, torch.int32), torch.can_cast(torch.int32, torch.float64))
print(torch.finfo(torch.float32).eps, torch.finfo(torch.float16).max, torch.finfo(torch.float64).tiny, torch.finfo().bits, torch.iinfo(torch.int8).min, torch.iinfo(torch.int32).max)
print(torch.tensor(3.7).int(), torch.tensor(-3.7).long(), torch.tensor([1.5, 2.5, -0.5]).round(), torch.tensor([1.234567]).round(decimals=2), torch.tensor([300]).to(torch.uint8))
print(torch.tensor([0.1, 0.2]).sum().item() == 0.30000001192092896, torch.tensor(0.1, dtype=torch.float64) + 0.2, torch.tensor([1e20]).float() * 1e20)
print(torch.tensor([1.0, -1.0, 0.0]) / 0, torch.tensor([0.0]) / 0, torch.isnan(torch.tensor([float("nan"), 1.0])), torch.isinf(torch.tensor([float("-inf")])), torch.isfinite(torch.tensor([1.0, float("inf")])))
print(torch.nan_to_num(torch.tensor([float("nan"), float("inf"), -float("inf"), 1.0])), torch.nan_to_num(torch.tensor([float("nan"), float("inf")]), nan=0.0, posinf=9.0))
print(torch.sign(torch.tensor([-2.0, 0.0, 3.0])), torch.sgn(torch.tensor([-2, 0])), torch.signbit(torch.tensor([-0.0, 1.0])), torch.copysign(torch.tensor([1.0, 2.0]), -1), torch.abs(torch.tensor([-3])).dtype)
print(torch.tensor([5, 3]).float().mean(), torch.mean(torch.tensor([1.0, 2.0]), dtype=torch.float64), torch.tensor([1, 2, 3]).sum().dtype, torch.tensor([True, True]).sum(), torch.tensor([1, 2]).prod().dtype)
print(torch.tensor([2, 4]).float().var(), torch.tensor([1.0, 2.0, 4.0]).std(unbiased=False), torch.tensor([1.0, 2.0, 4.0]).var(correction=0), torch.std_mean(torch.tensor([1.0, 3.0])))
print(torch.gcd(torch.tensor([12, 18]), torch.tensor([8, 27])), torch.lcm(torch.tensor([4, 6]), torch.tensor([6, 4])), torch.tensor([7]).bitwise_left_shift(1), torch.clamp(torch.tensor([1, 5, 9]), 2, 6).dtype)
print(torch.tensor([1.0, 2.0]).to(torch.int64).dtype, torch.tensor([1, 2]).to(dtype=torch.float16), torch.zeros(2, dtype=torch.bool).to(torch.float32), torch.tensor([0.5]).bool(), torch.tensor([256.7]).byte())
print(torch.tensor(5) // torch.tensor(2.0), torch.tensor([-5]) // 2, torch.tensor([5.5]) // 2, divmod(7, 2), torch.tensor(7) % 2.5, 7 // torch.tensor(2), 7 % torch.tensor([3, -3]))
