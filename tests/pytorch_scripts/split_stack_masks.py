"""Splitting and joining tensors the way data pipelines and multi-head code do: torch.stack vs
torch.cat, chunk (uneven last chunk), split by size and by sections, tensor_split by count and by
indices, unbind, and masked_fill / masked_select / where for masking, with gradients."""
import fluxgrad as torch

x = torch.arange(10.0)
print(torch.chunk(x, 3), x.chunk(4))
print(torch.split(x, 4), x.split([2, 3, 5]))
print(torch.tensor_split(x, 3), torch.tensor_split(x, [2, 7]), x.tensor_split((1, 1, 4)))
m = torch.arange(12).view(3, 4)
print(m.chunk(2, dim=1), m.split(1, dim=0), torch.tensor_split(m, 3, dim=1))
print(torch.unbind(m, dim=1), m.unbind())
a, b = torch.tensor([1, 2]), torch.tensor([3, 4])
print(torch.stack([a, b]), torch.stack([a, b], dim=1), torch.cat([a, b]), torch.stack((a, b), -1).shape)
print(torch.hstack([a, b]), torch.vstack([a, b]), torch.dstack([a, b]).shape, torch.column_stack([a, b]), torch.row_stack([a, b]))
print(torch.cat([m, m], dim=1).shape, torch.cat([m[:1], m[2:]]), torch.cat([torch.tensor([]), a.float()]))
heads = torch.arange(24.0).view(2, 12).chunk(3, dim=-1)
print(len(heads), heads[1], torch.cat(heads, -1).equal(torch.arange(24.0).view(2, 12)))

scores = torch.tensor([[0.5, 1.0, -2.0], [3.0, 0.0, 1.5]], requires_grad=True)
pad = torch.tensor([[False, False, True], [False, True, True]])
masked = scores.masked_fill(pad, float("-inf"))
attn = masked.softmax(-1)
print(masked, attn)
(attn * torch.tensor([1.0, 2.0, 3.0])).sum().backward()
print(scores.grad)
print(scores.detach().masked_fill(~pad, 0), scores.detach().masked_select(pad), torch.masked_select(m, m % 3 == 0))
y = torch.zeros(2, 3)
y.masked_fill_(pad, 1.5)
print(y, y.masked_scatter(~pad, torch.tensor([7.0, 8.0, 9.0])))
print(torch.where(m > 5, m, -m), torch.where(m % 2 == 0), m[m > 8], (m > 4).nonzero())
print(torch.where(pad, torch.tensor(1.0), torch.tensor(0.0)), torch.where(pad, 1.0, 0.0).dtype)

parts = torch.tensor([1.0, 2.0, 3.0, 4.0], requires_grad=True).split([1, 3])
(parts[0] * 10 + parts[1].sum()).sum().backward()
s = torch.ones(2, 2, requires_grad=True)
t = torch.stack([s, 2 * s, 3 * s], dim=0)
t.sum().backward()
print(s.grad, t.shape)
