"""Integer arithmetic semantics that bite people porting code: floor_divide / // rounding toward
-inf, torch.div rounding_mode trunc/floor, remainder vs fmod with negative operands, true
division of ints giving floats, bitwise and/or/xor/not on ints and bools, shifts, integer
overflow wrapping, abs/neg of ints, and bit tricks (popcount by hand, masks, parity)."""
import fluxgrad as torch

a = torch.tensor([7, -7, 7, -7, 0, 5])
b = torch.tensor([2, 2, -2, -2, 3, 5])
print(torch.floor_divide(a, b), a // b, a // 2, -7 // torch.tensor(2))
print(torch.div(a, b, rounding_mode="trunc"), torch.div(a, b, rounding_mode="floor"))
print(a / b, torch.true_divide(a, b).dtype, torch.div(a, b).dtype)
print(torch.remainder(a, b), a % b, torch.fmod(a, b), a % 3, torch.remainder(-7, torch.tensor([3, -3])))
print(torch.fmod(torch.tensor([-3.5, 3.5]), 2), torch.remainder(torch.tensor([-3.5, 3.5]), 2))
f = torch.tensor([-2.5, -1.5, -0.5, 0.5, 1.5, 2.5])
print(torch.floor_divide(f, 1.0), f // 2, torch.round(f), torch.trunc(f), f.floor(), f.ceil())

u = torch.tensor([12, 10, 255, 0], dtype=torch.int32)
w = torch.tensor([10, 6, 15, 1], dtype=torch.int32)
print(u & w, u | w, u ^ w, ~u, torch.bitwise_and(u, 3), torch.bitwise_not(w))
print(u << 2, u >> 1, torch.bitwise_left_shift(w, 3), torch.bitwise_right_shift(u, w % 4))
print(torch.tensor([1]) << torch.tensor([0, 1, 2, 3, 10]), torch.tensor(-16) >> 2)
flags = torch.tensor([True, False, True])
print(flags & torch.tensor([True, True, False]), flags | False, flags ^ True, ~flags, flags.logical_not())
print(torch.logical_xor(torch.tensor([1, 0, 2]), torch.tensor([1, 1, 0])), torch.logical_and(u, w))

bits = torch.tensor([0, 1, 7, 8, 255, 1023])
count = torch.zeros_like(bits)
n = bits.clone()
for _ in range(10):
    count += n & 1
    n >>= 1
print(count, count % 2, (bits & (bits - 1)) == 0)
print(torch.tensor([127], dtype=torch.int8) + 1, torch.tensor([255], dtype=torch.uint8) + 1)
print(torch.tensor([-128], dtype=torch.int8).abs(), -torch.tensor([0, 5], dtype=torch.uint8))
print(torch.tensor([2 ** 31 - 1], dtype=torch.int32) + 1, torch.tensor([3], dtype=torch.int16) * 20000)
print(torch.tensor([5, -3]).abs(), torch.tensor([5, -3]).sign(), torch.tensor([6, 4]).gcd(torch.tensor([4, 10])), torch.lcm(torch.tensor([6]), torch.tensor([4])))
print(torch.tensor([2, 3]) ** 3, torch.pow(2, torch.tensor([0, 1, 10])), torch.tensor([4, 9]).sqrt())
idx = torch.arange(10)
print(idx[idx % 3 == 0], (idx * idx) % 7, torch.clamp(idx - 5, min=0), idx.float().mean())
