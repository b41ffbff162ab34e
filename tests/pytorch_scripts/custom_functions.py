"""Custom autograd Functions from papers and tutorials: a straight-through estimator (round in the
forward, identity in the backward), a gradient reversal layer with ctx attributes, a clamp whose
backward uses saved outputs, multiple outputs with mark_non_differentiable, needs_input_grad,
set_materialize_grads, once_differentiable, and the LegendrePolynomial3 from the PyTorch tutorial."""
import fluxgrad as torch
from fluxgrad.autograd import Function
from fluxgrad.autograd.function import once_differentiable


class RoundSTE(Function):
    @staticmethod
    def forward(ctx, x):
        return torch.round(x)

    @staticmethod
    def backward(ctx, grad_output):
        return grad_output


class GradReverse(Function):
    @staticmethod
    def forward(ctx, x, lambd):
        ctx.lambd = lambd
        return x.view_as(x)

    @staticmethod
    def backward(ctx, grad_output):
        return grad_output.neg() * ctx.lambd, None


class MyExp(Function):
    @staticmethod
    def forward(ctx, x):
        result = x.exp()
        ctx.save_for_backward(result)
        return result

    @staticmethod
    def backward(ctx, grad_output):
        (result,) = ctx.saved_tensors
        return grad_output * result


class SortWithIndices(Function):
    @staticmethod
    def forward(ctx, x):
        values, indices = torch.sort(x)
        ctx.mark_non_differentiable(indices)
        ctx.save_for_backward(indices)
        return values, indices

    @staticmethod
    def backward(ctx, grad_values, grad_indices):
        (indices,) = ctx.saved_tensors
        grad = torch.zeros_like(grad_values)
        grad[indices] = grad_values
        return grad


class ScaleBoth(Function):
    @staticmethod
    def forward(ctx, a, b, scale):
        ctx.set_materialize_grads(False)
        ctx.scale = scale
        return a * scale, b * scale

    @staticmethod
    @once_differentiable
    def backward(ctx, ga, gb):
        seen.append((ctx.needs_input_grad, ga is None))
        return (None if ga is None else ga * ctx.scale), (None if gb is None else gb * ctx.scale), None


class LegendrePolynomial3(Function):
    @staticmethod
    def forward(ctx, input):
        ctx.save_for_backward(input)
        return 0.5 * (5 * input ** 3 - 3 * input)

    @staticmethod
    def backward(ctx, grad_output):
        (input,) = ctx.saved_tensors
        return grad_output * 1.5 * (5 * input ** 2 - 1)


x = torch.tensor([0.2, 1.7, -2.4], requires_grad=True)
y = RoundSTE.apply(x)
(y * torch.tensor([1.0, 2.0, 3.0])).sum().backward()
print(y, x.grad, y.grad_fn is not None)
x.grad = None
GradReverse.apply(x, 0.5).sum().backward()
print(x.grad)
x.grad = None
e = MyExp.apply(x)
e.sum().backward()
print(e, x.grad, torch.allclose(x.grad, x.exp()))
x.grad = None
values, indices = SortWithIndices.apply(x)
print(values, indices, indices.requires_grad, values.requires_grad)
(values * torch.tensor([1.0, 10.0, 100.0])).sum().backward()
print(x.grad)
seen = []
a = torch.tensor([1.0, 2.0], requires_grad=True)
b = torch.tensor([3.0], requires_grad=False)
oa, ob = ScaleBoth.apply(a, b, 3.0)
oa.sum().backward()
print(seen, a.grad)
P3 = LegendrePolynomial3.apply
xs = torch.linspace(-1, 1, 20)
ys = torch.sin(3 * xs)
params = [torch.tensor(v, requires_grad=True) for v in (0.0, -1.0, 0.0, 0.3)]
for t in range(200):
    a_, b_, c_, d_ = params
    y_pred = a_ + b_ * P3(c_ + d_ * xs)
    loss = (y_pred - ys).pow(2).sum()
    if t % 50 == 49:
        print(t, round(loss.item(), 5))
    loss.backward()
    with torch.no_grad():
        for p in params:
            p -= 5e-3 * p.grad
            p.grad = None
print([round(p.item(), 4) + 0.0 for p in params])
z = torch.tensor([0.5], requires_grad=True)
(g,) = torch.autograd.grad(LegendrePolynomial3.apply(z), z, create_graph=True)
print(g, g.requires_grad)
