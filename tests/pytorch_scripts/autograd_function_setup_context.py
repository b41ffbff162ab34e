"""torch.autograd.Function in the style of the current docs: forward without ctx plus a separate
setup_context, save_for_backward of inputs and outputs, ctx.needs_input_grad to skip work,
mark_non_differentiable for an integer output, set_materialize_grads(False) with None gradients,
once_differentiable, a Function returning several outputs, and gradcheck on each in float64."""
import fluxgrad as torch
from fluxgrad.autograd import Function
from fluxgrad.autograd.function import once_differentiable


class LinearFunction(Function):
    @staticmethod
    def forward(input, weight, bias=None):
        output = input.mm(weight.t())
        if bias is not None:
            output += bias.unsqueeze(0).expand_as(output)
        return output

    @staticmethod
    def setup_context(ctx, inputs, output):
        input, weight, bias = inputs
        ctx.save_for_backward(input, weight, bias)

    @staticmethod
    def backward(ctx, grad_output):
        input, weight, bias = ctx.saved_tensors
        grad_input = grad_weight = grad_bias = None
        if ctx.needs_input_grad[0]:
            grad_input = grad_output.mm(weight)
        if ctx.needs_input_grad[1]:
            grad_weight = grad_output.t().mm(input)
        if bias is not None and ctx.needs_input_grad[2]:
            grad_bias = grad_output.sum(0)
        return grad_input, grad_weight, grad_bias


class SortWithIndex(Function):
    @staticmethod
    def forward(ctx, x):
        values, idx = x.sort(dim=-1)
        ctx.mark_non_differentiable(idx)
        ctx.save_for_backward(idx)
        return values, idx

    @staticmethod
    def backward(ctx, grad_values, grad_idx):
        idx, = ctx.saved_tensors
        return torch.zeros_like(grad_values).scatter(-1, idx, grad_values)


class SplitScale(Function):
    @staticmethod
    def forward(ctx, x, k):
        ctx.set_materialize_grads(False)
        ctx.k = k
        return x.clone() * k, x.clone() ** 2

    @staticmethod
    def backward(ctx, g_scaled, g_square):
        x_grad = None
        if g_scaled is not None:
            x_grad = g_scaled * ctx.k
        if g_square is not None:
            x_grad = (x_grad if x_grad is not None else 0) + g_square * 2 * ctx.saved_x
        return x_grad, None


class SplitScaleSaved(SplitScale):
    @staticmethod
    def forward(ctx, x, k):
        ctx.saved_x = x.detach()
        return SplitScale.forward(ctx, x, k)


class Exp(Function):
    @staticmethod
    def forward(ctx, i):
        result = i.exp()
        ctx.save_for_backward(result)
        return result

    @staticmethod
    @once_differentiable
    def backward(ctx, grad_output):
        result, = ctx.saved_tensors
        return grad_output * result


x = torch.tensor([[0.5, -1.0, 2.0], [1.5, 0.25, -0.75]], dtype=torch.float64, requires_grad=True)
w = torch.tensor([[0.1, 0.2, 0.3], [-0.4, 0.5, -0.6]], dtype=torch.float64, requires_grad=True)
b = torch.tensor([0.05, -0.05], dtype=torch.float64, requires_grad=True)
out = LinearFunction.apply(x, w, b)
print(out)
out.sum().backward()
print(x.grad, w.grad, b.grad)
print(torch.autograd.gradcheck(LinearFunction.apply, (x, w, b)))
w2 = w.detach()
y = LinearFunction.apply(x, w2, None)
y.pow(2).sum().backward()
print(x.grad, w2.grad)

values, idx = SortWithIndex.apply(x)
print(values, idx, idx.requires_grad, values.requires_grad)
(values * torch.tensor([1.0, 2.0, 3.0], dtype=torch.float64)).sum().backward()
print(x.grad)

x.grad = None
scaled, square = SplitScaleSaved.apply(x, 3.0)
scaled.sum().backward()
print(x.grad)
x.grad = None
scaled, square = SplitScaleSaved.apply(x, 3.0)
(scaled.sum() + square.sum()).backward()
print(x.grad)

e = Exp.apply(x)
g, = torch.autograd.grad(e.sum(), x, create_graph=True)
print(g)
try:
    g.sum().backward()
except RuntimeError as err:
    print("RuntimeError")
print(torch.autograd.gradcheck(Exp.apply, (x,)))
