"""Indexing corner cases PyTorch scripts run into: integer and boolean lists and tensors, a list
of lists read as a tuple of indices (with PyTorch's warning silenced), float lists (truncated),
None and Ellipsis, negative indices, advanced indices separated by a slice, assignments that
broadcast or carry leading size-1 dimensions, index_put_ with accumulate, and the errors."""
import warnings
import numpy as np
import fluxgrad as torch

warnings.simplefilter("ignore")
x = torch.arange(24.).reshape(2, 3, 4)
print(x[1, [0, 2]], x[[1, 0], :, [3, 1]])
print(x[:, [0, 2], 1:3].shape, x[..., [True, False, True, False]].shape)
print(x[None, 1, ..., None].shape, x[-1, -1, -2:], x[[-1]].shape)
print(x[0][[[0, 1], [2, 3]]], x[0, [[0, 1], [2, 0]]].shape)
print(x[0, [1.7]], x[[1, 0.2]].shape, x[0, np.array([2.9, 0.1])])
print(x[0][x[0] > 5], x[x.sum(-1) > 30].shape)
print(x[torch.tensor(1)].shape, x[torch.tensor([[0], [1]]), torch.tensor([2, 0])].shape)
print(x[1, :, [0]].shape, x[:, 1, [0, 3]])
print(x[0, 1:, np.int64(2)], x[np.array([1]), 0])
y = torch.zeros(3, 4)
y[[0, 2]] = torch.tensor([1., 2., 3., 4.])
y[1, [0, 3]] = 7
y[y == 0] = -1
y[0, 0] = torch.tensor([9.])
y[2] = torch.full((1, 1, 4), 5.)
print(y)
y[[1.2]] = 0
y[[[0, 2], [1, 1]]] = 8
print(y)
z = torch.zeros(5)
z.index_put_((torch.tensor([0, 0, 3]),), torch.tensor([1., 2., 3.]), accumulate=True)
print(z)
z[torch.tensor([1, 1])] = torch.tensor([4., 5.])
print(z[1] in (4.0, 5.0), z.shape)
z[[True, False, True, False, True]] += 10
print(z)
m = torch.zeros(2, 3)
m[:, 1:] = torch.tensor([[1., 2.]])
m[..., 0] = torch.arange(2.)
print(m)
g = torch.arange(6., requires_grad=True)
h = g * 1
h[[1, 3]] = torch.tensor([10., 20.])
(h * torch.arange(6.)).sum().backward()
print(h, g.grad)
for bad in [lambda: x[2], lambda: x[0, 5], lambda: x[[0, 3]], lambda: x[0, 0, 0, 0],
            lambda: x[torch.tensor([0.5])], lambda: x["a"]]:
    try:
        bad()
    except (IndexError, TypeError) as e:
        print(type(e).__name__)
