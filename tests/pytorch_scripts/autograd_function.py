"""Custom autograd.Function, torch.autograd.grad (create_graph), functional jacobian/hessian."""
import fluxgrad as torch
from fluxgrad.autograd.functional import hessian, jacobian


class MyExp(torch.autograd.Function):
    @staticmethod
    def forward(ctx, i):
        result = i.exp()
        ctx.save_for_backward(result)
        return result

    @staticmethod
    def backward(ctx, grad_output):
        result, = ctx.saved_tensors
        return grad_output * result


class LegendrePolynomial3(torch.autograd.Function):
    @staticmethod
    def forward(ctx, input):
        ctx.save_for_backward(input)
        return 0.5 * (5 * input ** 3 - 3 * input)

    @staticmethod
    def backward(ctx, grad_output):
        input, = ctx.saved_tensors
        return grad_output * 1.5 * (5 * input ** 2 - 1)


class MulConstant(torch.autograd.Function):
    @staticmethod
    def forward(ctx, tensor, constant):
        ctx.constant = constant
        return tensor * constant

    @staticmethod
    def backward(ctx, grad_output):
        return grad_output * ctx.constant, None


x = torch.tensor([0.5, 1.0, -1.0], requires_grad=True)
y = MyExp.apply(x)
y.sum().backward()
print(y, x.grad)
P3 = LegendrePolynomial3.apply
a = torch.tensor([0.1, -0.3], requires_grad=True)
out = P3(a)
out.sum().backward()
print(out, a.grad)
c = torch.tensor([1., 2.], requires_grad=True)
MulConstant.apply(c, 3.0).sum().backward()
print(c.grad)
t = torch.tensor(2.0, requires_grad=True)
f = t ** 3
g, = torch.autograd.grad(f, t, create_graph=True)
g2, = torch.autograd.grad(g, t)
print(g, g2)
u = torch.tensor([1.0, 2.0, 3.0], requires_grad=True)
v = torch.tensor([4.0, 5.0, 6.0], requires_grad=True)
s = (u * v).sum() + (u ** 2).sum()
gu, gv = torch.autograd.grad(s, [u, v], retain_graph=True)
print(gu, gv)
gg = torch.autograd.grad(s, u, allow_unused=True)
print(gg)
w = torch.tensor([1.0], requires_grad=True)
z = torch.tensor([2.0], requires_grad=True)
print(torch.autograd.grad((w * 2).sum(), [w, z], allow_unused=True))
grad_outputs = torch.autograd.grad(u * 2, u, grad_outputs=torch.tensor([1., 0., 2.]))
print(grad_outputs)


def f2(x):
    return x ** 2 + torch.sin(x).sum()


def scalar_f(x):
    return (x ** 3).sum() + x[0] * x[1]


inputs = torch.tensor([0.5, 1.5])
print(jacobian(f2, inputs))
print(hessian(scalar_f, inputs))


def two_args(a, b):
    return a * b + b


print(jacobian(two_args, (torch.tensor([1., 2.]), torch.tensor([3., 4.]))))
print(torch.autograd.functional.vjp(f2, inputs, torch.ones(2)))
print(torch.autograd.functional.jvp(f2, inputs, torch.ones(2)))
print(torch.autograd.functional.hvp(scalar_f, inputs, torch.ones(2)))
x2 = torch.tensor([1.0, 2.0], dtype=torch.float64, requires_grad=True)
print(torch.autograd.gradcheck(lambda q: (q.sin() * q).sum(), (x2,)))
print(torch.autograd.gradgradcheck(lambda q: (q.exp() * q).sum(), (x2,)))
