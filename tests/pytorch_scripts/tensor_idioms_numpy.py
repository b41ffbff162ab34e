"""Everyday tensor idioms from StackOverflow answers: .item() / .tolist() / .numpy(),
torch.from_numpy sharing memory both ways, torch.tensor copying, .clone().detach() vs .detach(),
expand vs repeat (views and copies), Tensor.unfold windows, contiguous after transpose, and
data_ptr-free checks of sharing (writing through one name, reading through the other)."""
import numpy as np
import fluxgrad as torch

t = torch.tensor([[1.5, 2.5], [3.5, 4.5]])
print(t.sum().item(), type(t.sum().item()).__name__, t.tolist(), type(t.tolist()[0][0]).__name__)
print(torch.tensor(7).item(), type(torch.tensor(7).item()).__name__, torch.tensor([True]).item())
print(torch.arange(4).tolist(), torch.tensor(3.25).tolist(), t[0].numpy(), t.numpy().dtype)
a = np.arange(6, dtype=np.float64).reshape(2, 3)
shared = torch.from_numpy(a)
copied = torch.tensor(a)
as_tensor = torch.as_tensor(a)
a[0, 0] = 100
print(shared[0, 0].item(), copied[0, 0].item(), as_tensor[0, 0].item(), shared.dtype)
shared[1, 2] = -5
print(a[1, 2])
back = shared.numpy()
back[0, 1] = 42
print(a[0, 1], shared[0, 1].item())
ints = torch.from_numpy(np.array([1, 2, 3], dtype=np.int32))
print(ints.dtype, (ints * 2).numpy(), torch.from_numpy(np.array([1.0], dtype=np.float32)).dtype)

w = torch.tensor([1.0, 2.0, 3.0], requires_grad=True)
d = w.detach()
c = w.clone().detach()
d[0] = 10.0
c[1] = 20.0
print(w, d, c, d.requires_grad, c.requires_grad)
cl = w.clone()
print(cl.requires_grad, cl.grad_fn is not None, w.detach().numpy())
(cl * cl).sum().backward()
print(w.grad)
wd = w.detach().clone().requires_grad_(True)
print(wd.is_leaf, wd.requires_grad)

row = torch.tensor([[1, 2, 3]])
e = row.expand(3, -1)
r = row.repeat(3, 1)
print(e, r, e.shape == r.shape, e.stride(), r.stride(), e.is_contiguous())
print(row.repeat(2, 2), torch.tensor([1, 2]).repeat(3), torch.tensor([1, 2]).repeat_interleave(2))
print(torch.tensor([[1], [2]]).expand(2, 4), torch.ones(3, 1).expand_as(torch.zeros(3, 2)))
col = torch.zeros(3, 1)
view = col.expand(3, 4)
col[1, 0] = 9
print(view[1])

x = torch.arange(1.0, 9.0)
print(x.unfold(0, 3, 1), x.unfold(0, 4, 4), x.unfold(0, 2, 3))
m = torch.arange(12).view(3, 4)
print(m.unfold(1, 2, 2), m.unfold(0, 2, 1).shape)
mt = m.t()
print(mt.is_contiguous(), mt.contiguous().is_contiguous(), mt.contiguous().view(-1), mt.reshape(-1))
try:
    mt.view(-1)
except RuntimeError:
    print("view on non-contiguous needs reshape")
print(m.flatten().tolist() == list(range(12)), m.numel(), m.dim(), m.size(), m.size(1), m.shape[-1])
print(torch.zeros_like(t), torch.ones_like(m).dtype, torch.full_like(t, 7), torch.empty_like(t).shape)
print(t.new_zeros(2), t.new_ones((1, 2)), t.new_full((2,), 3.0), t.new_tensor([1, 2]).dtype)
