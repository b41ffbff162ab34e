"""A small CNN: Conv2d, MaxPool2d, BatchNorm2d, Dropout, AdaptiveAvgPool, Conv1d."""
import numpy as np
import fluxgrad as torch
import fluxgrad.nn as nn
import fluxgrad.nn.functional as F


class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.conv1 = nn.Conv2d(1, 4, 3, padding=1, bias=False)
        self.bn1 = nn.BatchNorm2d(4)
        self.pool = nn.MaxPool2d(2, 2)
        self.conv2 = nn.Conv2d(4, 6, kernel_size=3, stride=1)
        self.drop = nn.Dropout(0.25)
        self.gap = nn.AdaptiveAvgPool2d((1, 1))
        self.fc = nn.Linear(6, 3)

    def forward(self, x):
        x = self.pool(F.relu(self.bn1(self.conv1(x))))
        x = F.relu(self.conv2(x))
        x = self.drop(x)
        x = self.gap(x)
        x = torch.flatten(x, 1)
        return self.fc(x)


rng = np.random.default_rng(0)
net = Net()
with torch.no_grad():
    for p in net.parameters():
        p.copy_(torch.tensor(rng.standard_normal(tuple(p.shape)) * 0.4, dtype=torch.float32))
x = torch.tensor(rng.standard_normal((4, 1, 8, 8)), dtype=torch.float32)
target = torch.tensor([0, 1, 2, 1])
opt = torch.optim.Adam(net.parameters(), lr=1e-2)
net.eval()
print(net(x))
net.train()
net.drop.p = 0.0
for step in range(4):
    opt.zero_grad()
    loss = F.cross_entropy(net(x), target)
    loss.backward()
    opt.step()
    print(step, round(loss.item(), 4))
print(net.bn1.running_mean, net.bn1.running_var, net.bn1.num_batches_tracked)
print(net.conv1.weight.grad.shape, net.conv1.bias, net.conv2.bias.grad.abs().sum() > 0)
c1 = nn.Conv1d(2, 3, kernel_size=3, padding="same", bias=False)
with torch.no_grad():
    c1.weight.copy_(torch.tensor(rng.standard_normal((3, 2, 3)), dtype=torch.float32))
seq = torch.tensor(rng.standard_normal((1, 2, 6)), dtype=torch.float32)
print(c1(seq), nn.MaxPool1d(2)(seq), nn.AvgPool1d(3, stride=1)(seq).shape)
img = torch.arange(16.).view(1, 1, 4, 4)
print(F.max_pool2d(img, 2), F.avg_pool2d(img, 2, stride=1), F.adaptive_max_pool2d(img, 1))
print(F.interpolate(img, scale_factor=2, mode="nearest").shape, F.pad(img, (1, 1, 0, 0)).shape)
print(nn.Conv2d(3, 8, 5, stride=2, padding=2)(torch.zeros(2, 3, 16, 16)).shape)
print(nn.ConvTranspose2d(2, 1, 2, stride=2)(torch.zeros(1, 2, 3, 3)).shape, nn.Upsample(scale_factor=2)(img).shape)
d = nn.Dropout(p=0.5)
ones = torch.ones(1000)
dropped = d(ones)
print(sorted(set(dropped.tolist())), d.training)
d.eval()
print(torch.equal(d(ones), ones))
print(F.dropout(ones, 0.5, training=False).sum(), nn.Dropout2d(0.3).eval()(img).sum())
bn = nn.BatchNorm1d(3, momentum=0.5, affine=False)
batch = torch.tensor([[1., 2., 3.], [3., 6., 9.]])
print(bn(batch), bn.running_mean, bn.running_var)
bn.eval()
print(bn(batch))
