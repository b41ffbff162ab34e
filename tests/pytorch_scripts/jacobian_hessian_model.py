"""torch.autograd.functional on a model the way sensitivity-analysis and second-order code calls it:
jacobian of a network's output w.r.t. its input (batch, vectorize=True, strategy forward-mode,
create_graph), the Jacobian of the loss w.r.t. parameters through torch.func.functional_call, the
Hessian of a small model's loss w.r.t. a flat parameter vector (eigenvalues, Newton step), hvp and
vhp, jacobian of tuple inputs/outputs, and Gauss-Newton products."""
import numpy as np
import fluxgrad as torch
import fluxgrad.nn as nn
from fluxgrad.autograd.functional import jacobian, hessian, hvp, vhp, jvp, vjp
from fluxgrad.func import functional_call

rng = np.random.default_rng(13)


def t(a):
    return torch.from_numpy(np.asarray(a, dtype=np.float64))


net = nn.Sequential(nn.Linear(3, 4), nn.Tanh(), nn.Linear(4, 2)).double()
with torch.no_grad():
    for p in net.parameters():
        p.copy_(t(rng.uniform(-0.8, 0.8, tuple(p.shape))))

x = t(rng.standard_normal((3,)))
J = jacobian(net, x)
print(J.shape, J)
xs = t(rng.standard_normal((5, 3)))
Jb = jacobian(net, xs)
print(Jb.shape, Jb[2, :, 2])
per_sample = jacobian(lambda z: net(z).sum(0), xs, vectorize=True)
print(per_sample.shape, torch.allclose(per_sample[:, 2], Jb[2, :, 2]))
Jf = jacobian(net, x, vectorize=True, strategy="forward-mode")
print(torch.allclose(Jf, J))

params = {k: v.detach() for k, v in net.named_parameters()}
names = list(params)
target = t([0.5, -0.5])


def loss_of(*values):
    out = functional_call(net, dict(zip(names, values)), (x,))
    return ((out - target) ** 2).sum()


grads = jacobian(loss_of, tuple(params.values()))
print([tuple(g.shape) for g in grads])
print(grads[3], torch.autograd.grad(loss_of(*[v.requires_grad_() for v in params.values()]),
                                    list(params.values()))[3])

small = nn.Linear(2, 1).double()
with torch.no_grad():
    small.weight.copy_(t([[0.3, -0.7]]))
    small.bias.fill_(0.1)
shapes = [p.shape for p in small.parameters()]
X = t(rng.standard_normal((6, 2)))
Y = t(rng.standard_normal((6, 1)))


def loss_flat(theta):
    w = theta[:2].view(1, 2)
    b = theta[2:]
    return ((torch.nn.functional.linear(X, w, b) - Y) ** 2).mean()


theta = torch.nn.utils.parameters_to_vector(small.parameters()).detach()
H = hessian(loss_flat, theta)
print(H)
print(torch.linalg.eigvalsh(H))
g = torch.autograd.functional.vjp(loss_flat, theta)[1]
newton = theta - torch.linalg.solve(H, g)
print(newton, loss_flat(newton))
print(torch.linalg.lstsq(torch.cat([X, torch.ones(6, 1, dtype=torch.float64)], 1), Y).solution.flatten())

v = t([1.0, 0.0, -1.0])
value, hv = hvp(loss_flat, theta, v)
_, vh = vhp(loss_flat, theta, v)
print(value, hv, vh, H @ v)
out, jv = jvp(net, x, t([0.0, 1.0, 0.0]))
print(out, jv, J[:, 1])
out, vj = vjp(net, x, t([1.0, -1.0]))
print(vj, J[0] - J[1])


def two_in_two_out(a, b):
    return a * b.sum(), torch.sin(a) + b[:2]


Jt = jacobian(two_in_two_out, (t([0.5, 1.0]), t([1.0, 2.0, 3.0])))
print(len(Jt), len(Jt[0]), Jt[0][1], Jt[1][0])
Jc = jacobian(lambda z: net(z).pow(2).sum(), x, create_graph=True)
Jc.sum().backward()
print(Jc.requires_grad, net[0].weight.grad[0])
Hn = hessian(lambda z: net(z).sum(), x)
print(Hn, torch.allclose(Hn, Hn.T))
