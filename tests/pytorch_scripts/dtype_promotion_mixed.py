"""dtype promotion of mixed int / float / bool scalars and tensors (PyTorch's rules): Python
scalars don't promote a tensor's category-same dtype, 0-d tensors act like scalars, bool + int,
int tensor + float scalar gives the default float, float16 / float64 mixes, torch.result_type,
promote_types, can_cast, comparisons giving bool, and in-place ops refusing to demote."""
import fluxgrad as torch

i32 = torch.tensor([1, 2], dtype=torch.int32)
i64 = torch.tensor([1, 2])
f16 = torch.tensor([1.0, 2.0], dtype=torch.float16)
f32 = torch.tensor([1.0, 2.0])
f64 = torch.tensor([1.0, 2.0], dtype=torch.float64)
bo = torch.tensor([True, False])
u8 = torch.tensor([1, 2], dtype=torch.uint8)
print((i32 + 1).dtype, (i32 + 1.5).dtype, (i32 * True).dtype, (bo + bo).dtype, (bo + 1).dtype, (bo + 1.0).dtype)
print((i32 + i64).dtype, (u8 + i32).dtype, (u8 + torch.tensor([1], dtype=torch.int8)).dtype, (u8 + 300).dtype)
print((f16 + 1.0).dtype, (f16 + f32).dtype, (f32 + f64).dtype, (f16 + i64).dtype, (i64 / 2).dtype, (i32 / i32).dtype)
print((f32 + torch.tensor(1.0, dtype=torch.float64)).dtype, (i32 + torch.tensor(1.5, dtype=torch.float64)).dtype)
print((i32 + torch.tensor(7)).dtype, (u8 + torch.tensor(-1)).dtype, (f16 * torch.tensor(2.0)).dtype, (bo * torch.tensor(2)).dtype)
print(torch.result_type(i32, 1.0), torch.result_type(u8, i32), torch.result_type(bo, 2), torch.result_type(torch.tensor(1), torch.tensor([1.0], dtype=torch.float16)))
print(torch.promote_types(torch.int32, torch.float16), torch.promote_types(torch.uint8, torch.int8), torch.promote_types(torch.bool, torch.int16))
print(torch.can_cast(torch.float32, torch.int32), torch.can_cast(torch.int32, torch.float32), torch.can_cast(torch.float64, torch.float16))
print((i32 > 1.5).dtype, (f32 == 1).tolist(), (i64 < f32).tolist(), (bo == 1).tolist())
print(torch.where(bo, i32, 2.5).dtype, torch.where(bo, i32, i64).dtype, torch.cat([i32, f16]).dtype, torch.stack([u8, bo]).dtype)
print(i32.sum().dtype, u8.sum().dtype, bo.sum().dtype, f16.sum().dtype, i32.prod().dtype, bo.float().mean())
print(i32.mean(dtype=torch.float32), torch.mean(f16.float()), i64.max().dtype, (i64.float() ** 0.5).dtype, (i64 ** 2).dtype, (i64 ** 0.5).dtype)
print((2 ** i32).dtype, (2.0 ** i32).dtype, torch.tensor([1, 2]).dtype, torch.tensor([1, 2.0]).dtype, torch.tensor([True, 1]).dtype, torch.tensor(1.5).dtype)
x = torch.zeros(2, dtype=torch.int64)
try:
    x += 1.5
except RuntimeError:
    print("can't add a float in place into an int tensor")
y = torch.zeros(2)
y += torch.tensor([1, 2])
z = torch.zeros(2, dtype=torch.float64)
z.add_(torch.tensor([0.1, 0.2], dtype=torch.float32))
print(y, y.dtype, z.dtype)
print(i32.to(torch.float16) / 3, (i32.double() / 3).dtype, torch.tensor([3.7, -3.7]).int(), torch.tensor([3.7, -3.7]).long(), torch.tensor([0.0, 2.0]).bool())
print(torch.tensor([300]).to(torch.uint8), torch.tensor([1.5]).to(torch.int32), f32.type(torch.int32), f32.type())
print(torch.get_default_dtype(), torch.is_floating_point(i32), torch.is_floating_point(f16), f64.is_floating_point(), bo.dtype.is_floating_point, torch.int32.is_signed)
print(torch.finfo(torch.float16).max, torch.iinfo(torch.int8).min, torch.finfo().eps, torch.finfo(torch.float64).tiny)
