"""'Learn the Basics: Tensors' end to end: initializing (from data, NumPy, another tensor, a shape),
attributes, indexing and slicing, joining, arithmetic (three ways to matmul and multiply, out=),
single-element tensors, in-place ops, and the bridge with NumPy (shared memory both ways)."""
import numpy as np
import fluxgrad as torch

data = [[1, 2], [3, 4]]
x_data = torch.tensor(data)
np_array = np.array(data)
x_np = torch.from_numpy(np_array)
print(x_data, x_np, x_data.dtype, x_np.dtype)
x_ones = torch.ones_like(x_data)
print(f"Ones Tensor: \n {x_ones} \n")
x_rand = torch.from_numpy(np.random.default_rng(0).random((2, 2))).float()
x_rand_like = torch.ones_like(x_data, dtype=torch.float) * x_rand
print(f"Random Tensor: \n {x_rand_like} \n")
shape = (2, 3,)
ones_tensor = torch.ones(shape)
zeros_tensor = torch.zeros(shape)
print(f"Ones Tensor: \n {ones_tensor} \n")
print(f"Zeros Tensor: \n {zeros_tensor}")
tensor = torch.from_numpy(np.random.default_rng(1).random((3, 4)).astype(np.float32))
print(f"Shape of tensor: {tensor.shape}")
print(f"Datatype of tensor: {tensor.dtype}")
print(f"Device tensor is stored on: {tensor.device}")
if torch.cuda.is_available():
    tensor = tensor.to("cuda")
print(torch.accelerator.is_available() if hasattr(torch, "accelerator") else False)
tensor = torch.ones(4, 4)
print(f"First row: {tensor[0]}")
print(f"First column: {tensor[:, 0]}")
print(f"Last column: {tensor[..., -1]}")
tensor[:, 1] = 0
print(tensor)
t1 = torch.cat([tensor, tensor, tensor], dim=1)
print(t1, t1.shape)
print(torch.stack([tensor[0], tensor[1]]).shape, torch.hstack([tensor, tensor]).shape)
y1 = tensor @ tensor.T
y2 = tensor.matmul(tensor.T)
y3 = torch.rand_like(y1)
torch.matmul(tensor, tensor.T, out=y3)
print(y1, torch.equal(y1, y2), torch.equal(y2, y3))
z1 = tensor * tensor
z2 = tensor.mul(tensor)
z3 = torch.rand_like(tensor)
torch.mul(tensor, tensor, out=z3)
print(z1, torch.equal(z1, z3), torch.allclose(z2, z3))
agg = tensor.sum()
agg_item = agg.item()
print(agg_item, type(agg_item))
print(f"{tensor} \n")
tensor.add_(5)
print(tensor)
t = torch.ones(5)
print(f"t: {t}")
n = t.numpy()
print(f"n: {n}")
t.add_(1)
print(f"t: {t}")
print(f"n: {n}")
n = np.ones(5)
t = torch.from_numpy(n)
np.add(n, 1, out=n)
print(f"t: {t}")
print(f"n: {n}")
n[0] = -3
print(t, t.dtype)
copied = torch.tensor(n)
n[1] = 100
print(copied[1].item(), t[1].item())
shared = torch.as_tensor(n)
n[2] = 7
print(shared[2].item(), shared.dtype)
v = torch.arange(6.).view(2, 3)
w = v.numpy()
w[1, 2] = -1
print(v)
