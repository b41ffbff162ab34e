"""torch.compile beyond the simple case: data-dependent control flow, shapes that change, kwargs,
a compiled train step (forward + backward + optimizer step), a compiled loss, eval/train switching."""
import numpy as np
import fluxgrad as torch
import fluxgrad.nn as nn
import fluxgrad.nn.functional as F

rng = np.random.default_rng(14)


@torch.compile
def branchy(x, scale=2.0):
    if x.sum() > 0:
        return x * scale
    return x.abs() - scale


print(branchy(torch.tensor([1.0, 2.0])), branchy(torch.tensor([-3.0, 1.0])), branchy(torch.tensor([1.0, 1.0]), scale=0.5))


@torch.compile(dynamic=True)
def normalize_rows(x):
    return (x - x.mean(dim=-1, keepdim=True)) / (x.std(dim=-1, keepdim=True) + 1e-5)


for n in (2, 3, 5):
    print(normalize_rows(torch.arange(float(n * 4)).view(n, 4) ** 1.5)[-1])


class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc1 = nn.Linear(3, 6, bias=False)  # BatchNorm follows: a bias would get only rounding noise
        self.bn = nn.BatchNorm1d(6)
        self.drop = nn.Dropout(0.0)
        self.fc2 = nn.Linear(6, 2)

    def forward(self, x, return_hidden=False):
        h = self.drop(F.relu(self.bn(self.fc1(x))))
        out = self.fc2(h)
        return (out, h) if return_hidden else out


net = Net()
with torch.no_grad():
    for p in net.parameters():
        p.copy_(torch.from_numpy(rng.uniform(-0.5, 0.5, tuple(p.shape)).astype(np.float32)))
cnet = torch.compile(net)
opt = torch.optim.Adam(net.parameters(), lr=0.05)
X = torch.from_numpy(rng.standard_normal((8, 3)).astype(np.float32))
y = torch.tensor([0, 1, 1, 0, 1, 0, 0, 1])
loss_fn = torch.compile(nn.CrossEntropyLoss(label_smoothing=0.1))


def train_step(xb, yb):
    opt.zero_grad()
    loss = loss_fn(cnet(xb), yb)
    loss.backward()
    opt.step()
    return loss


for step in range(4):
    print(step, round(train_step(X, y).item(), 5))
print(net.bn.running_mean, net.bn.num_batches_tracked)
cnet.eval()
out, hidden = cnet(X[:2], return_hidden=True)
print(out, hidden.shape)
cnet.train()
print(cnet(X[:4]).shape, cnet.training, net.training)
