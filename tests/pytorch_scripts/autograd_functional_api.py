"""torch.autograd.functional (jacobian, hessian, jvp, vjp, hvp, vhp with create_graph and
vectorize), torch.autograd.grad with create_graph / allow_unused / grad_outputs / is_grads_batched,
gradcheck and gradgradcheck on float64 inputs (including a failing custom Function caught), and
torch.autograd.forward_ad dual numbers."""
import fluxgrad as torch
from fluxgrad.autograd.functional import hessian, hvp, jacobian, jvp, vhp, vjp
from fluxgrad.autograd import gradcheck, gradgradcheck
import fluxgrad.autograd.forward_ad as fwAD


def exp_reducer(x):
    return x.exp().sum(dim=1)


inputs = torch.tensor([[0.1, 0.2], [0.3, -0.4]])
print(jacobian(exp_reducer, inputs))
print(jacobian(exp_reducer, inputs, create_graph=True).requires_grad, jacobian(exp_reducer, inputs, vectorize=True).shape)


def exp_adder(x, y):
    return 2 * x.exp() + 3 * y


j = jacobian(exp_adder, (torch.tensor([1.0, 0.0]), torch.tensor([0.5, 1.0])))
print(type(j).__name__, len(j), j[0], j[1])


def pow_reducer(x):
    return x.pow(3).sum()


print(hessian(pow_reducer, torch.tensor([[1.0, 2.0], [0.5, -1.0]])).shape, hessian(pow_reducer, torch.tensor([1.0, 2.0])))


def pow_adder_reducer(x, y):
    return (2 * x.pow(2) + 3 * y.pow(2)).sum()


h = hessian(pow_adder_reducer, (torch.tensor([1.0, 2.0]), torch.tensor([3.0, 4.0])))
print(h[0][0], h[1][1], h[0][1])
v = torch.ones(2, 2)
print(vjp(exp_reducer, inputs, torch.ones(2)))
print(jvp(exp_reducer, inputs, v))
print(hvp(pow_reducer, torch.tensor([1.0, 2.0]), torch.tensor([1.0, 1.0])), vhp(pow_reducer, torch.tensor([1.0, 2.0]), torch.tensor([1.0, 0.0])))
out, jvp_out = jvp(lambda a, b: a * b, (torch.tensor([2.0]), torch.tensor([3.0])), (torch.tensor([1.0]), torch.tensor([0.0])))
print(out, jvp_out)
x = torch.tensor([1.0, 2.0], requires_grad=True)
y = (x ** 3).sum()
(g,) = torch.autograd.grad(y, x, create_graph=True)
(g2,) = torch.autograd.grad(g.sum(), x)
print(g, g2)
z = torch.tensor(1.0, requires_grad=True)
print(torch.autograd.grad((x * 2).sum(), [x, z], allow_unused=True), torch.autograd.grad((x * 2).sum(), [x, z], allow_unused=True, materialize_grads=True)[1])
print(torch.autograd.grad(x * x, x, grad_outputs=torch.tensor([1.0, 0.5])))
print(torch.autograd.grad(x * x, x, grad_outputs=torch.eye(2), is_grads_batched=True))
try:
    torch.autograd.grad((x * 2).sum(), [x, z])
except RuntimeError as e:
    print("RuntimeError", "allow_unused" in str(e))
inp = (torch.tensor([[0.3, -0.2], [0.1, 0.9]], dtype=torch.double, requires_grad=True),
       torch.tensor([0.5, 1.5], dtype=torch.double, requires_grad=True))
print(gradcheck(lambda a, b: (a @ b).tanh(), inp, eps=1e-6, atol=1e-4), gradgradcheck(lambda a, b: (a @ b).sin(), inp))
print(gradcheck(torch.nn.functional.softplus, (torch.tensor([0.1, -2.0, 3.0], dtype=torch.float64, requires_grad=True),)))


class BadSquare(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x):
        ctx.save_for_backward(x)
        return x * x

    @staticmethod
    def backward(ctx, grad_out):
        (x,) = ctx.saved_tensors
        return grad_out * x


bad_inp = (torch.tensor([1.0, 2.0], dtype=torch.float64, requires_grad=True),)
print(gradcheck(BadSquare.apply, bad_inp, raise_exception=False))
try:
    gradcheck(BadSquare.apply, bad_inp)
except RuntimeError as e:
    print(type(e).__name__, "Jacobian mismatch" in str(e))
primal = torch.tensor([1.0, 2.0, 3.0])
tangent = torch.tensor([1.0, 0.0, 0.0])
with fwAD.dual_level():
    dual_input = fwAD.make_dual(primal, tangent)
    dual_output = (dual_input.sin() * dual_input).sum()
    p, t = fwAD.unpack_dual(dual_output)
    print(p, t, fwAD.unpack_dual(dual_input).tangent)
