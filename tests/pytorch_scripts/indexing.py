"""Indexing, slicing, advanced indexing and index assignment."""
import fluxgrad as torch

t = torch.arange(24).reshape(2, 3, 4)
print(t[0], t[1, 2], t[:, 1], t[..., -1], t[0, :, ::2])
print(t[:, None].shape, t[None, ..., None].shape, t[1, 1:, 1:3])
print(t[t > 15], t[[0, 1], [2, 0]], t[:, [0, 2]], t[torch.tensor([1, 0])].shape)
print(t[0, [0, 2], 1:3], t[[1], :, [3]])
x = torch.zeros(4, 4)
x[1, :] = 1
x[:, 2] = torch.tensor([5., 6., 7., 8.])
x[x > 6] = -1
x[0, 0] += 3
x[[0, 3], [3, 0]] = 9
print(x)
mask = torch.tensor([True, False, True, False])
x[mask] = 2.5
print(x)
y = torch.arange(10.)
y[2:8:2] = 0
y[-1] = 100
print(y, y[-3:], y.flip(0)[:3])
idx = torch.tensor([[0, 1], [2, 3]])
print(y[idx])
z = torch.arange(12).view(3, 4)
print(z[1:, 2:], z.t()[1], z[:, -1].tolist(), z[torch.arange(3), torch.tensor([0, 1, 3])])
z[torch.tensor([0, 2])] = torch.tensor([-1, -2, -3, -4])
print(z)
print(z.index_select(1, torch.tensor([0, 3])), torch.masked_select(z, z > 5), z.nonzero()[:3])
print(torch.nonzero(z < 0, as_tuple=True))
w = torch.zeros(5)
w.index_add_(0, torch.tensor([0, 1, 1, 4]), torch.tensor([1., 2., 3., 4.]))
print(w, w.masked_fill(w > 2, -7.0), w.index_fill(0, torch.tensor([2]), 3.3))
v = torch.zeros(3, 3)
v.index_put_((torch.tensor([0, 2]), torch.tensor([1, 1])), torch.tensor([1., 2.]))
print(v, v[1:, 1:].sum(), v[..., 1])
print(t[1][2][3].item(), int(t[0, 0, 1]), float(t[1, 0, 0]))
