"""Autograd beyond the tutorial: tensor hooks, backward(inputs=), gradient penalty with
create_graph, Function ctx features (needs_input_grad, mark_non_differentiable, set_materialize_grads,
once_differentiable), forward-mode AD, jacobian options, anomaly detection, grad of views."""
import fluxgrad as torch
import fluxgrad.autograd.forward_ad as fwAD
from fluxgrad.autograd.function import once_differentiable

x = torch.tensor([1.0, -2.0, 3.0], requires_grad=True)
h = x.register_hook(lambda g: g * 2)
(x ** 2).sum().backward()
print(x.grad)
h.remove()
x.grad = None
y = x * 3
y.register_hook(lambda g: print("hook sees", g))
y.retain_grad()
z = (y ** 2).mean()
z.backward()
print(y.grad, x.grad, y.is_leaf, y.retains_grad, z.grad_fn is not None)
a = torch.tensor(2.0, requires_grad=True)
b = torch.tensor(3.0, requires_grad=True)
c = a * b + b ** 2
c.backward(inputs=[a])
print(a.grad, b.grad)
torch.autograd.backward([a * 2, b * 3], [torch.tensor(1.0), torch.tensor(2.0)])
print(a.grad, b.grad)
w = torch.tensor([[0.5, -1.0], [2.0, 0.1]], requires_grad=True)
inp = torch.tensor([[1.0, 2.0], [0.5, -0.5]], requires_grad=True)
out = (inp @ w).tanh().sum()
g, = torch.autograd.grad(out, inp, create_graph=True)
penalty = ((g.norm(2, dim=1) - 1) ** 2).mean()
penalty.backward()
print(penalty, w.grad)


class Clamp(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x, lo, hi):
        ctx.save_for_backward(x)
        ctx.lo, ctx.hi = lo, hi
        return x.clamp(lo, hi)

    @staticmethod
    def backward(ctx, grad_out):
        x, = ctx.saved_tensors
        mask = (x >= ctx.lo) & (x <= ctx.hi)
        print("needs", ctx.needs_input_grad)
        return grad_out * mask, None, None


class SortWithIndex(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x):
        values, idx = x.sort()
        ctx.mark_non_differentiable(idx)
        ctx.save_for_backward(idx)
        return values, idx

    @staticmethod
    def backward(ctx, grad_values, grad_idx):
        idx, = ctx.saved_tensors
        return torch.zeros_like(grad_values).scatter(0, idx, grad_values)


class Square(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x):
        ctx.set_materialize_grads(False)
        ctx.save_for_backward(x)
        return x * x, x + 1

    @staticmethod
    @once_differentiable
    def backward(ctx, g1, g2):
        x, = ctx.saved_tensors
        total = torch.zeros_like(x)
        if g1 is not None:
            total = total + 2 * x * g1
        if g2 is not None:
            total = total + g2
        return total


v = torch.tensor([-1.0, 0.5, 2.0], requires_grad=True)
Clamp.apply(v, -0.5, 1.0).sum().backward()
print(v.grad)
v.grad = None
vals, idx = SortWithIndex.apply(torch.tensor([3.0, 1.0, 2.0], requires_grad=True) * 1)
print(vals, idx, idx.requires_grad)
(vals * torch.tensor([1.0, 10.0, 100.0])).sum().backward()
sq, plus = Square.apply(v)
sq.sum().backward()
print(v.grad)
primal = torch.tensor([1.0, 2.0])
tangent = torch.tensor([1.0, 0.0])
with fwAD.dual_level():
    dual = fwAD.make_dual(primal, tangent)
    out = dual.sin() * dual
    p, t = fwAD.unpack_dual(out)
print(p, t)


def f(x, y):
    return torch.stack([x[0] * y[1], x[1] ** 2 + y[0]])


xs = (torch.tensor([1.0, 2.0]), torch.tensor([3.0, 4.0]))
print(torch.autograd.functional.jacobian(f, xs, vectorize=True))
print(tuple(torch.autograd.functional.jacobian(f, xs, strategy="forward-mode", vectorize=True)))
print(torch.autograd.functional.hessian(lambda t: (t ** 3).sum() * t[0], torch.tensor([1.0, 2.0]), create_graph=False))
with torch.autograd.set_detect_anomaly(True):
    q = torch.tensor([4.0], requires_grad=True)
    q.sqrt().backward()
print(q.grad, torch.is_anomaly_enabled())
base = torch.tensor([1.0, 2.0, 3.0, 4.0], requires_grad=True)
view = base.view(2, 2)
(view[0] * view[1]).sum().backward()
print(base.grad)
leaf = torch.zeros(3, requires_grad=True)
clone = leaf.clone()
clone[1] = 5.0
(clone * torch.tensor([1.0, 2.0, 3.0])).sum().backward()
print(leaf.grad, clone.grad_fn is not None)
s = torch.tensor([2.0], requires_grad=True)
out = s ** 3
g1, = torch.autograd.grad(out, s, create_graph=True)
g2, = torch.autograd.grad(g1, s, create_graph=True)
g3, = torch.autograd.grad(g2, s)
print(g1, g2, g3)
