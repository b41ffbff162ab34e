"""Custom autograd Functions beyond the basics: an in-place op that calls ctx.mark_dirty,
a function returning an index output marked non-differentiable, needs_input_grad to skip
work, None for a non-tensor argument's gradient, a function with two outputs whose backward
gets None/zero for the unused one (set_materialize_grads), and gradcheck in float64."""
import numpy as np
import fluxgrad as torch
from fluxgrad.autograd import Function, gradcheck

rng = np.random.default_rng(71)


class InplaceClampMin(Function):
    @staticmethod
    def forward(ctx, x, floor):
        mask = x < floor
        x.masked_fill_(mask, floor)
        ctx.mark_dirty(x)
        ctx.save_for_backward(mask)
        return x

    @staticmethod
    def backward(ctx, grad):
        mask, = ctx.saved_tensors
        return grad.masked_fill(mask, 0.0), None


class SortWithIndices(Function):
    @staticmethod
    def forward(ctx, x):
        values, idx = torch.sort(x, dim=-1)
        ctx.mark_non_differentiable(idx)
        ctx.save_for_backward(idx)
        return values, idx

    @staticmethod
    def backward(ctx, grad_values, grad_idx):
        idx, = ctx.saved_tensors
        return torch.zeros_like(grad_values).scatter_(-1, idx, grad_values)


class ScaledMatmul(Function):
    calls = []

    @staticmethod
    def forward(ctx, a, b, scale):
        ctx.save_for_backward(a, b)
        ctx.scale = scale
        return a @ b * scale

    @staticmethod
    def backward(ctx, grad):
        a, b = ctx.saved_tensors
        ScaledMatmul.calls.append(tuple(ctx.needs_input_grad))
        grad_a = grad @ b.t() * ctx.scale if ctx.needs_input_grad[0] else None
        grad_b = a.t() @ grad * ctx.scale if ctx.needs_input_grad[1] else None
        return grad_a, grad_b, None


class SplitHalves(Function):
    @staticmethod
    def forward(ctx, x):
        ctx.set_materialize_grads(False)
        n = x.shape[0] // 2
        return x[:n].clone() * 2, x[n:].clone() * 3

    @staticmethod
    def backward(ctx, g1, g2):
        parts = [g1 * 2 if g1 is not None else None, g2 * 3 if g2 is not None else None]
        print("grads given:", [p is not None for p in parts])
        n1 = parts[0] if parts[0] is not None else torch.zeros(2, dtype=parts[1].dtype)
        n2 = parts[1] if parts[1] is not None else torch.zeros(2, dtype=parts[0].dtype)
        return torch.cat([n1, n2])


x = torch.tensor([-1.0, 0.5, 2.0, -0.2], requires_grad=True)
y = x * 1
z = InplaceClampMin.apply(y, 0.0)
print(z is y, z, z.grad_fn is not None)
(z * torch.arange(1.0, 5.0)).sum().backward()
print(x.grad)

v = torch.tensor(rng.standard_normal((2, 4)), requires_grad=True)
values, idx = SortWithIndices.apply(v)
print(values, idx, idx.requires_grad, values.requires_grad)
(values * torch.tensor([1.0, 2.0, 3.0, 4.0], dtype=torch.float64)).sum().backward()
print(v.grad)
print(gradcheck(lambda t: SortWithIndices.apply(t)[0], (v.detach().requires_grad_(),)))

a = torch.tensor(rng.standard_normal((2, 3)), requires_grad=True)
b = torch.tensor(rng.standard_normal((3, 2)))
ScaledMatmul.apply(a, b, 0.5).sum().backward()
ScaledMatmul.apply(a.detach(), b.requires_grad_(), 2.0).sum().backward()
print(ScaledMatmul.calls, a.grad, b.grad)
print(gradcheck(ScaledMatmul.apply, (a.detach().requires_grad_(), b.detach().requires_grad_(), 1.5)))

s = torch.arange(4.0, requires_grad=True)
first, second = SplitHalves.apply(s)
first.sum().backward()
print(s.grad)
s.grad = None
first, second = SplitHalves.apply(s)
(first.sum() + (second * second).sum()).backward()
print(s.grad)
