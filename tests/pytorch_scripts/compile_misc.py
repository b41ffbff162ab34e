"""torch.compile on a small model and a function; numbers match eager."""
import numpy as np
import fluxgrad as torch
import fluxgrad.nn as nn


class MLP(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc1 = nn.Linear(4, 8)
        self.fc2 = nn.Linear(8, 2)

    def forward(self, x):
        return self.fc2(torch.relu(self.fc1(x)))


rng = np.random.default_rng(8)
model = MLP()
with torch.no_grad():
    for p in model.parameters():
        p.copy_(torch.from_numpy(rng.standard_normal(tuple(p.shape)).astype(np.float32) * 0.5))
x = torch.from_numpy(rng.standard_normal((6, 4)).astype(np.float32))
y = torch.from_numpy(rng.standard_normal((6, 2)).astype(np.float32))
compiled = torch.compile(model)
print(compiled(x))
print(torch.allclose(compiled(x), model(x)))
opt = torch.optim.SGD(compiled.parameters(), lr=0.1)
for step in range(3):
    opt.zero_grad()
    loss = nn.functional.mse_loss(compiled(x), y)
    loss.backward()
    opt.step()
    print(step, round(loss.item(), 5))
print(model.fc1.weight.grad.shape)


@torch.compile
def gelu_ish(t):
    return 0.5 * t * (1 + torch.tanh(0.79788456 * (t + 0.044715 * t ** 3)))


print(gelu_ish(torch.linspace(-2, 2, 5)))
fn = torch.compile(lambda a, b: (a @ b).relu().sum(dim=0), fullgraph=True)
print(fn(x, torch.ones(4, 3)))
print(fn(x[:3], torch.ones(4, 3)))
seq = nn.Sequential(nn.Linear(2, 2), nn.Tanh())
with torch.no_grad():
    seq[0].weight.copy_(torch.eye(2))
    seq[0].bias.zero_()
m2 = torch.compile(seq, mode="reduce-overhead")
print(m2(torch.tensor([[0.5, -1.0]])))
