"""Activation modules and functions, their in-place forms (inplace=True, F.relu_), shrinkage."""
import numpy as np
import fluxgrad as torch
import fluxgrad.nn as nn
import fluxgrad.nn.functional as F

t = torch.linspace(-2, 2, 9)
for act in (nn.ReLU(), nn.ReLU6(), nn.LeakyReLU(0.1), nn.ELU(0.5), nn.SELU(), nn.CELU(0.7), nn.GELU(),
            nn.SiLU(), nn.Mish(), nn.Hardtanh(-1.5, 1.5), nn.Hardsigmoid(), nn.Hardswish(), nn.Softplus(2.0),
            nn.Softsign(), nn.Tanhshrink(), nn.LogSigmoid(), nn.Hardshrink(), nn.Softshrink(0.7),
            nn.Threshold(0.5, -1.0), nn.PReLU(), nn.Sigmoid(), nn.Tanh(), nn.Softmax(dim=0), nn.LogSoftmax(dim=0)):
    print(act, act(t))
x = torch.linspace(-1, 1, 5)
y = x.clone()
out = nn.ReLU(inplace=True)(y)
print(y, out is y)
for fn, args in ((F.relu_, ()), (F.elu_, (0.5,)), (F.leaky_relu_, (0.2,)), (F.hardtanh_, (-0.5, 0.5)),
                 (F.threshold_, (0.2, 9.0)), (F.selu_, ()), (F.celu_, ())):
    y = x.clone()
    r = fn(y, *args)
    print(fn.__name__, y, r is y)
w = torch.tensor([-1.0, 0.5, 2.0], requires_grad=True)
h = w * 2
F.relu(h, inplace=True)
h.sum().backward()
print(h, w.grad)
prelu = nn.PReLU(num_parameters=3, init=0.1)
img = torch.tensor(np.linspace(-1, 1, 12).reshape(1, 3, 2, 2), dtype=torch.float32)
print(prelu(img), F.prelu(img, torch.tensor([0.1, 0.2, 0.3])), prelu)
net = nn.Sequential(nn.Linear(3, 3), nn.ReLU(inplace=True), nn.Linear(3, 1))
with torch.no_grad():
    net[0].weight.copy_(torch.tensor([[1., -1., 0.], [0.5, 0.5, 0.5], [-1., 0., 1.]]))
    net[0].bias.zero_()
    net[2].weight.fill_(1.0)
    net[2].bias.zero_()
inp = torch.tensor([[1.0, 2.0, 3.0]], requires_grad=True)
net(inp).sum().backward()
print(inp.grad, net[0].weight.grad)
