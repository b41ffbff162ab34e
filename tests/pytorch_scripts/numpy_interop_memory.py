"""Tensors and NumPy arrays in both directions: which conversions share memory (from_numpy,
as_tensor, .numpy(), views) and which copy (tensor, as_tensor with another dtype, clone), the
dtype each NumPy dtype becomes, numpy() refusing tensors that require grad, non-writable
arrays, NumPy functions applied to tensors, and .tolist() / item() types."""
import warnings
import numpy as np
import fluxgrad as torch

for dt in [np.float64, np.float32, np.float16, np.int64, np.int32, np.int16, np.int8, np.uint8,
           np.bool_]:
    t = torch.from_numpy(np.zeros(2, dtype=dt))
    print(np.dtype(dt).name, t.dtype, t.element_size())
a = np.arange(6, dtype=np.float32).reshape(2, 3)
shared = torch.from_numpy(a)
also_shared = torch.as_tensor(a)
copied = torch.tensor(a)
converted = torch.as_tensor(a, dtype=torch.float64)
a[0, 0] = 100
print(shared[0, 0].item(), also_shared[0, 0].item(), copied[0, 0].item(), converted[0, 0].item())
shared[1, 2] = -5
print(a[1, 2], shared.data_ptr() == also_shared.data_ptr())
col = shared[:, 1]
col.fill_(7)
print(a)
back = shared.numpy()
back[0] = 1
print(shared)
print(np.shares_memory(back, a), np.shares_memory(copied.numpy(), a))
w = torch.ones(3, requires_grad=True)
try:
    w.numpy()
except RuntimeError as e:
    print("numpy() of a tensor that requires grad: RuntimeError", "detach" in str(e))
print(w.detach().numpy(), type(w.detach().numpy()).__name__)
print(np.asarray(torch.arange(3)), np.array(torch.tensor([1.5, 2.5])).dtype)
t = torch.tensor([[1.0, -2.0], [3.0, 4.0]])
print(np.abs(t.numpy()), np.linalg.norm(t.numpy()), float(np.sum(t.numpy())))
print(torch.from_numpy(np.exp(t.numpy())))
print(t.tolist(), type(t.tolist()[0][0]).__name__, torch.tensor([1, 2]).tolist())
print(type(torch.tensor(3).item()).__name__, type(torch.tensor(3.0).item()).__name__,
      type(torch.tensor(True).item()).__name__)
print(torch.tensor(np.float32(2.5)).dtype, torch.tensor(np.int16(3)).dtype, torch.tensor(2.5).dtype,
      torch.tensor([np.float64(1.0)]).dtype)
print(torch.tensor(np.array(5)).shape, torch.from_numpy(np.array(5.0)).shape)
ro = np.arange(4.0)
ro.flags.writeable = False
with warnings.catch_warnings():
    warnings.simplefilter("ignore")
    t_ro = torch.from_numpy(ro)
print(t_ro + 1)
fortran = np.asfortranarray(np.arange(6.0).reshape(2, 3))
tf = torch.from_numpy(fortran)
print(tf, tf.stride(), tf.is_contiguous(), tf.t().is_contiguous())
tr = np.arange(6.0).reshape(2, 3).T
print(torch.from_numpy(tr).stride(), torch.from_numpy(tr).contiguous().stride())
print(torch.from_numpy(np.arange(4.0)[::-1].copy()))
print(torch.from_numpy(np.arange(8.0)[::2]), torch.from_numpy(np.arange(8.0)[::2]).stride())
big = torch.zeros(2, 2, dtype=torch.int32)
big_np = big.numpy()
big_np += 3
print(big, big.dtype)
