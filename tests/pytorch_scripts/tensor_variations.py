"""Tensor operations with the details that bite: ties, nan, duplicates, accumulate, dims of unique,
in-place on views under autograd, type strings, scalar dtypes in where/full/clamp."""
import fluxgrad as torch

t = torch.tensor([[3, 1, 3], [2, 2, 0]])
print(torch.unique(t, dim=0), torch.unique(t, dim=1, return_counts=True), torch.unique(t, sorted=True, return_inverse=True))
v = torch.tensor([2.0, 5.0, 5.0, 1.0, 5.0])
print(v.argmax(), v.argmin(), v.topk(2).values, v.sort(stable=True, descending=True), v.max(0))
n = torch.tensor([1.0, float("nan"), 3.0])
print(n.max(), n.argmax(), n.sort(), torch.nanmean(n), torch.nansum(n), n.clamp(0, 2), torch.maximum(n, torch.ones(3)))
z = torch.zeros(5)
z.index_put_((torch.tensor([0, 0, 2]),), torch.tensor([1.0, 2.0, 3.0]), accumulate=True)
print(z)
z2 = torch.zeros(5)
z2[torch.tensor([1, 1, 3])] += 1
print(z2)
m = torch.zeros(2, 3)
m.masked_scatter_(torch.tensor([[True, False, True], [False, True, False]]), torch.tensor([7.0, 8.0, 9.0]))
print(m)
src = torch.tensor([1.0, 2.0, 3.0, 4.0])
idx = torch.tensor([0, 1, 0, 1])
print(torch.zeros(2).scatter_reduce(0, idx, src, reduce="mean", include_self=False),
      torch.ones(2).scatter_reduce(0, idx, src, reduce="prod"), torch.zeros(2).index_reduce(0, idx, src, "amax", include_self=False))
print(torch.where(torch.tensor([True, False]), 1, 0).dtype, torch.where(torch.tensor([True, False]), 1.0, torch.tensor([2, 3])),
      torch.full((2,), 3).dtype, torch.full((2,), True).dtype, torch.tensor([1, 2]).clamp(min=1.5))
print(torch.ones(2, 3).type(), torch.ones(2, dtype=torch.int64).type(), torch.ones(1).type(torch.float64).dtype, torch.ones(1).type("torch.IntTensor").dtype)
a = torch.tensor([1.0, 2.0, 3.0, 4.0], requires_grad=True)
b = a * 1
view = b[1:3]
view.mul_(10)
b.sum().backward()
print(b, a.grad)
c = a.clone()
c[c > 2] = 0
(c ** 2).sum().backward()
print(a.grad)
d = torch.arange(6.).view(2, 3)
d.t_()
print(d.shape, d.unsqueeze_(0).shape, d.squeeze_().shape, d.transpose_(0, 1).shape)
e = torch.arange(12).view(3, 4)
print(e[[0, 2]][:, [1, 3]], e[1:, [0, 0, 1]], e[torch.tensor([[0], [2]]), torch.tensor([1, 2])], e[..., None, 1].shape)
e[e % 2 == 0] = -e[e % 2 == 0]
print(e, e.abs().sum(dim=-1, keepdim=True), e.float().mean(dim=(0, 1)), e.sum(dtype=torch.float32))
f = torch.arange(10.)
print(f[f > 4][::2], f.view(2, 5)[:, ::-1] if False else f.view(2, 5).flip(1), f.reshape(5, 2)[[-1, 0]], f[-3:-1])
g = torch.zeros(3, 4)
g[:, 1:3] = torch.tensor([1.0, 2.0])
g[0] = 9
g[1:, -1] = torch.tensor([[5.0], [6.0]]).squeeze(1)
print(g, g.count_nonzero(), torch.count_nonzero(g, dim=0))
print(torch.tensor([1, 2, 3]).bincount(minlength=5), torch.tensor([0, 1, 1]).bincount(weights=torch.tensor([0.5, 1.0, 2.0])))
print(torch.arange(5).flip(0).cumsum(0), torch.tensor([1, 2, 3]).cumprod(0), torch.tensor([3., 1., 2.]).cummax(0), torch.tensor([3., 1., 2.]).cummin(0))
print(torch.tensor([[1, 2], [3, 4]]).repeat(2, 1, 1).shape, torch.tensor([1, 2]).tile((2, 2)), torch.tensor([1, 2]).expand(3, -1))
print(torch.stack([torch.tensor(1), torch.tensor(2)]), torch.cat([torch.tensor([1]), torch.tensor([2.5])]), torch.cat([torch.zeros(0), torch.ones(2)]))
print(torch.tensor([[1., 2.], [3., 4.]]).std(dim=0, keepdim=True), torch.tensor([1., 2., 4.]).var(correction=0), torch.tensor([2.]).std())
print(torch.tensor([0.5, 1.5, 2.5, -0.5, -1.5]).round(), torch.tensor([7, -7]).div(2, rounding_mode="floor"), torch.tensor([7, -7]).div(2, rounding_mode="trunc"))
print(torch.tensor([5, 6]).float().lerp(torch.tensor([1.0, 0.0]), torch.tensor([0.5, 0.25])), torch.logical_xor(torch.tensor([True, False]), torch.tensor([True, True])))
print(torch.tensor([1, 2, 3]) @ torch.tensor([4, 5, 6]), torch.tensor([[1, 2]]) @ torch.tensor([[3], [4]]), (torch.ones(2, 3, 4) @ torch.ones(4)).shape)
print(torch.isin(torch.tensor([1, 2, 3]), torch.tensor([2, 5])), torch.tensor([3, 1, 2]).argsort(descending=True), torch.searchsorted(torch.tensor([1, 3]), torch.tensor([2]), right=True))
import numpy as np
x = torch.tensor([[1.0, 2.0], [3.0, 4.0]])
print(2.0 in x, 5 in x, torch.tensor(3.0) in x, torch.tensor([7]) in torch.tensor([1, 7]))
print(x + np.float64(1.0), np.float64(2.0) * x, x * np.float32(0.5), torch.tensor([1, 2]) * np.int64(3), (x - np.float64(1)).dtype)
q = torch.tensor([[0.5, -1.0], [2.0, 0.25]])
scores = q @ q.T / np.sqrt(q.size(-1))
print(scores.dtype, torch.softmax(scores, dim=-1) @ torch.nn.Linear(2, 2).weight.detach().zero_() + 1, 1.0 / np.float64(4.0) * q)
