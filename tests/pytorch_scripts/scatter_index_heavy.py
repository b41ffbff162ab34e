"""Segment and routing code built from scatter ops, as in GNN message passing, MoE routing and
sparse bookkeeping: scatter_reduce with sum/mean/amax/amin/prod and include_self, scatter_add_,
index_add_ with alpha, index_put_ with accumulate and duplicate indices, index_copy_, index_fill_,
masked_scatter_, torch.where with broadcasting and scalars, put_/take, nonzero(as_tuple),
argwhere, and gradients through scatter and gather."""
import numpy as np
import fluxgrad as torch

rng = np.random.default_rng(31)
src = torch.from_numpy(rng.standard_normal((6, 3)).astype(np.float32))
seg = torch.tensor([0, 2, 0, 1, 2, 2])
index = seg.unsqueeze(1).expand(-1, 3)
for reduce in ("sum", "mean", "amax", "amin", "prod"):
    out = torch.zeros(3, 3).scatter_reduce(0, index, src, reduce=reduce, include_self=False)
    out_self = torch.ones(3, 3).scatter_reduce(0, index, src, reduce=reduce)
    print(reduce, out, out_self[1])
print(torch.zeros(4, 3).scatter_add_(0, index, src))
print(torch.zeros(3, 3).index_add_(0, seg, src, alpha=0.5))
counts = torch.zeros(3).index_add_(0, seg, torch.ones(6))
print(counts, torch.bincount(seg), torch.bincount(seg, weights=torch.arange(6.0)))

x = torch.zeros(3, 4)
rows = torch.tensor([0, 2, 0, 0])
cols = torch.tensor([1, 3, 1, 2])
x.index_put_((rows, cols), torch.tensor([1.0, 2.0, 3.0, 4.0]), accumulate=True)
print(x)
x.index_put_((torch.tensor([1]),), torch.tensor(9.0))
print(x)
x[rows, cols] = -1.0
print(x)
y = torch.arange(12.0).reshape(3, 4)
y.index_copy_(1, torch.tensor([3, 0]), torch.tensor([[10.0, 20.0], [30.0, 40.0], [50.0, 60.0]]))
print(y)
print(y.index_fill(0, torch.tensor([0, 2]), -5.0))
mask = y > 20
print(y.masked_scatter(mask, torch.arange(100.0, 112.0)))
print(torch.where(mask, y, 0.0), torch.where(mask, 1, -1), torch.where(y > 30))
print(torch.nonzero(mask), torch.nonzero(mask, as_tuple=True), torch.argwhere(mask))
z = torch.arange(6.0).reshape(2, 3)
z.put_(torch.tensor([0, 5]), torch.tensor([-1.0, -2.0]))
print(z, torch.take(z, torch.tensor([[1, 5], [0, 0]])))
z.put_(torch.tensor([1, 1]), torch.tensor([1.0, 2.0]), accumulate=True)
print(z)

# top-1 routing of tokens to experts, then combining outputs back in place
tokens = torch.from_numpy(rng.standard_normal((5, 4)).astype(np.float32)).requires_grad_()
gate_w = torch.from_numpy(rng.standard_normal((4, 3)).astype(np.float32)).requires_grad_()
experts = torch.from_numpy(rng.standard_normal((3, 4, 4)).astype(np.float32)).requires_grad_()
probs = torch.softmax(tokens @ gate_w, dim=-1)
weight, expert = probs.max(dim=-1)
out = torch.zeros_like(tokens)
for e in range(3):
    sel = (expert == e).nonzero(as_tuple=True)[0]
    if sel.numel() == 0:
        continue
    y_e = tokens[sel] @ experts[e]
    out = out.index_add(0, sel, y_e * weight[sel, None])
load = torch.zeros(3).scatter_add(0, expert, torch.ones(5))
print(expert, load, out[0])
out.pow(2).sum().backward()
print(tokens.grad[1], gate_w.grad[0], experts.grad.sum(dim=(1, 2)))

v = torch.tensor([1.0, 2.0, 3.0, 4.0], requires_grad=True)
m = torch.tensor([0.5, 0.5, 0.5]).scatter_reduce(0, torch.tensor([0, 1, 1, 2]), v, reduce="amax")
m.sum().backward()
print(m, v.grad)
v.grad = None
g = torch.gather(v.unsqueeze(0).expand(2, -1), 1, torch.tensor([[3, 3], [0, 1]]))
(g * torch.tensor([[1.0, 2.0], [3.0, 4.0]])).sum().backward()
print(g, v.grad)
v.grad = None
p = torch.ones(3).scatter_reduce(0, torch.tensor([0, 0, 1, 2]), v, reduce="prod", include_self=False)
p.sum().backward()
print(p, v.grad)
