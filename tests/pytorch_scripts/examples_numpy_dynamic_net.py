"""'Learning PyTorch with Examples': the NumPy warm-up (forward and backward by hand), the same
network with tensors and manual gradients, then with autograd, and the dynamic-graph DynamicNet
that reuses its middle layer a random number of times (Python's random, seeded) per forward."""
import math
import random
import numpy as np
import fluxgrad as torch

x = np.linspace(-math.pi, math.pi, 2000)
y = np.sin(x)
rng = np.random.default_rng(0)
a, b, c, d = rng.standard_normal(4)
learning_rate = 1e-6
for t in range(500):
    y_pred = a + b * x + c * x ** 2 + d * x ** 3
    loss = np.square(y_pred - y).sum()
    if t % 100 == 99:
        print(t, round(float(loss), 4))
    grad_y_pred = 2.0 * (y_pred - y)
    grad_a = grad_y_pred.sum()
    grad_b = (grad_y_pred * x).sum()
    grad_c = (grad_y_pred * x ** 2).sum()
    grad_d = (grad_y_pred * x ** 3).sum()
    a -= learning_rate * grad_a
    b -= learning_rate * grad_b
    c -= learning_rate * grad_c
    d -= learning_rate * grad_d
print(f"Result: y = {a} + {b} x + {c} x^2 + {d} x^3")
dtype = torch.float
device = torch.device("cpu")
x = torch.linspace(-math.pi, math.pi, 2000, device=device, dtype=dtype)
y = torch.sin(x)
a, b, c, d = (torch.tensor(v, device=device, dtype=dtype) for v in rng.standard_normal(4))
for t in range(500):
    y_pred = a + b * x + c * x ** 2 + d * x ** 3
    loss = (y_pred - y).pow(2).sum().item()
    if t % 100 == 99:
        print(t, round(loss, 2))
    grad_y_pred = 2.0 * (y_pred - y)
    grad_a = grad_y_pred.sum()
    grad_b = (grad_y_pred * x).sum()
    grad_c = (grad_y_pred * x ** 2).sum()
    grad_d = (grad_y_pred * x ** 3).sum()
    a -= learning_rate * grad_a
    b -= learning_rate * grad_b
    c -= learning_rate * grad_c
    d -= learning_rate * grad_d
print(f"Result: y = {a.item():.4f} + {b.item():.4f} x + {c.item():.4f} x^2 + {d.item():.4f} x^3")


class DynamicNet(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.a = torch.nn.Parameter(torch.tensor(0.05))
        self.b = torch.nn.Parameter(torch.tensor(0.9))
        self.c = torch.nn.Parameter(torch.tensor(-0.02))
        self.d = torch.nn.Parameter(torch.tensor(-0.1))
        self.e = torch.nn.Parameter(torch.tensor(0.001))

    def forward(self, x):
        y = self.a + self.b * x + self.c * x ** 2 + self.d * x ** 3
        for exp in range(4, random.randint(4, 6)):
            y = y + self.e * x ** exp
        return y

    def string(self):
        return (f"y = {self.a.item():.4f} + {self.b.item():.4f} x + {self.c.item():.4f} x^2 + "
                f"{self.d.item():.4f} x^3 + {self.e.item():.5f} x^4 ? + {self.e.item():.5f} x^5 ?")


random.seed(0)
model = DynamicNet()
criterion = torch.nn.MSELoss(reduction="sum")
optimizer = torch.optim.SGD(model.parameters(), lr=1e-8, momentum=0.9)
for t in range(300):
    y_pred = model(x)
    loss = criterion(y_pred, y)
    if t % 100 == 99:
        print(t, round(loss.item(), 3))
    optimizer.zero_grad()
    loss.backward()
    optimizer.step()
print(f"Result: {model.string()}")


class TwoLayerShared(torch.nn.Module):
    def __init__(self, D_in, H, D_out):
        super().__init__()
        self.input_linear = torch.nn.Linear(D_in, H)
        self.middle_linear = torch.nn.Linear(H, H)
        self.output_linear = torch.nn.Linear(H, D_out)

    def forward(self, x, depth):
        h_relu = self.input_linear(x).clamp(min=0)
        for _ in range(depth):
            h_relu = self.middle_linear(h_relu).clamp(min=0)
        return self.output_linear(h_relu)


net = TwoLayerShared(3, 5, 2)
with torch.no_grad():
    for p in net.parameters():
        p.copy_(torch.from_numpy(rng.normal(0, 0.5, tuple(p.shape)).astype(np.float32)))
inp = torch.from_numpy(rng.standard_normal((4, 3)).astype(np.float32))
opt = torch.optim.SGD(net.parameters(), lr=0.05)
for step in range(6):
    depth = random.randint(0, 3)
    out = net(inp, depth)
    loss = out.pow(2).mean()
    opt.zero_grad()
    loss.backward()
    g = net.middle_linear.weight.grad
    print(step, depth, round(loss.item(), 5), g if g is None else round(g.abs().sum().item(), 5))
    opt.step()
