"""Custom autograd.Functions written to support double backward (the 'Double Backward with Custom
Functions' tutorial): backward written with differentiable torch ops and save_for_backward of inputs
and outputs, a sigmoid that saves its result, a Function whose backward calls another Function,
ctx.needs_input_grad, gradcheck and gradgradcheck in float64, a gradient penalty through a custom
op, and once_differentiable refusing a second derivative."""
import numpy as np
import fluxgrad as torch
from fluxgrad.autograd import Function, gradcheck, gradgradcheck
from fluxgrad.autograd.function import once_differentiable


class Square(Function):
    @staticmethod
    def forward(ctx, x):
        ctx.save_for_backward(x)
        return x ** 2

    @staticmethod
    def backward(ctx, grad_out):
        x, = ctx.saved_tensors
        return grad_out * 2 * x


class Sigmoid(Function):
    @staticmethod
    def forward(ctx, x):
        out = 1 / (1 + torch.exp(-x))
        ctx.save_for_backward(out)
        return out

    @staticmethod
    def backward(ctx, grad_out):
        out, = ctx.saved_tensors
        return grad_out * out * (1 - out)


class CubeBackward(Function):
    @staticmethod
    def forward(ctx, grad_out, x):
        ctx.save_for_backward(x, grad_out)
        return grad_out * 3 * x ** 2

    @staticmethod
    def backward(ctx, grad_grad):
        x, grad_out = ctx.saved_tensors
        return grad_grad * 3 * x ** 2, grad_grad * 6 * x * grad_out


class Cube(Function):
    @staticmethod
    def forward(ctx, x):
        ctx.save_for_backward(x)
        return x ** 3

    @staticmethod
    def backward(ctx, grad_out):
        x, = ctx.saved_tensors
        return CubeBackward.apply(grad_out, x)


class ScaledMul(Function):
    @staticmethod
    def forward(ctx, a, b, scale):
        ctx.scale = scale
        ctx.save_for_backward(a, b)
        return a * b * scale

    @staticmethod
    def backward(ctx, grad_out):
        a, b = ctx.saved_tensors
        print("needs_input_grad", ctx.needs_input_grad)
        grad_a = grad_out * b * ctx.scale if ctx.needs_input_grad[0] else None
        grad_b = grad_out * a * ctx.scale if ctx.needs_input_grad[1] else None
        return grad_a, grad_b, None


class Clamp01(Function):
    @staticmethod
    def forward(ctx, x):
        ctx.save_for_backward(x)
        return x.clamp(0, 1)

    @staticmethod
    @once_differentiable
    def backward(ctx, grad_out):
        x, = ctx.saved_tensors
        return grad_out * ((x >= 0) & (x <= 1)).to(grad_out.dtype)


x = torch.tensor([0.5, -1.0, 2.0], dtype=torch.float64, requires_grad=True)
for fn in (Square, Sigmoid, Cube):
    y = fn.apply(x)
    g, = torch.autograd.grad(y.sum(), x, create_graph=True)
    gg, = torch.autograd.grad(g.sum(), x)
    print(fn.__name__, y.detach(), g.detach(), gg, g.grad_fn is not None)
    print(gradcheck(fn.apply, (x,), eps=1e-6, atol=1e-4), gradgradcheck(fn.apply, (x,), eps=1e-6, atol=1e-4))

a = torch.tensor([1.0, 2.0], requires_grad=True)
b = torch.tensor([3.0, 4.0])
out = ScaledMul.apply(a, b, 0.5)
out.sum().backward()
print(out, a.grad)
b.requires_grad_()
ScaledMul.apply(a, b, 2.0).sum().backward()
print(a.grad, b.grad)

w = torch.tensor([[0.3, -0.2], [0.1, 0.4]], requires_grad=True)
inp = torch.tensor([[1.0, 2.0], [-1.0, 0.5]], requires_grad=True)
score = Sigmoid.apply(inp @ w).sum()
grad_inp, = torch.autograd.grad(score, inp, create_graph=True)
penalty = ((grad_inp.norm(2, dim=1) - 1) ** 2).mean()
penalty.backward()
print(penalty.item(), w.grad)

z = torch.tensor([0.2, 1.5, -0.3], requires_grad=True)
g, = torch.autograd.grad(Clamp01.apply(z * 2).sum(), z, create_graph=True)
print(g, g.requires_grad)
try:
    g.sum().backward()
except RuntimeError as e:
    print("RuntimeError:", "once_differentiable" in str(e) or "differentiable" in str(e))

xx = torch.tensor(1.5, requires_grad=True)
y = Cube.apply(xx)
d1, = torch.autograd.grad(y, xx, create_graph=True)
d2, = torch.autograd.grad(d1, xx, create_graph=True)
d3, = torch.autograd.grad(d2, xx)
print(y.item(), d1.item(), d2.item(), d3.item())
