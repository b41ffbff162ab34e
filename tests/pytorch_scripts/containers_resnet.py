"""Module containers and a residual network: ModuleList/ModuleDict/ParameterList/ParameterDict
(append, extend, insert, indexing, slicing, len, iteration, repr), Sequential built from an
OrderedDict and sliced, a ResNet BasicBlock with a 1x1 downsample shortcut, and named layers."""
from collections import OrderedDict
import numpy as np
import fluxgrad as torch
import fluxgrad.nn as nn
import fluxgrad.nn.functional as F

rng = np.random.default_rng(73)


def fill(module):
    with torch.no_grad():
        for p in module.parameters():
            p.copy_(torch.from_numpy(rng.uniform(-0.3, 0.3, tuple(p.shape)).astype(np.float32)))
    return module


class MLP(nn.Module):
    def __init__(self, sizes):
        super().__init__()
        self.layers = nn.ModuleList([nn.Linear(a, b) for a, b in zip(sizes[:-1], sizes[1:])])
        self.acts = nn.ModuleDict({"relu": nn.ReLU(), "tanh": nn.Tanh()})
        self.scales = nn.ParameterList([nn.Parameter(torch.ones(b)) for b in sizes[1:]])
        self.extra = nn.ParameterDict({"shift": nn.Parameter(torch.zeros(sizes[-1]))})

    def forward(self, x, act="relu"):
        for i, layer in enumerate(self.layers):
            x = layer(x) * self.scales[i]
            if i < len(self.layers) - 1:
                x = self.acts[act](x)
        return x + self.extra["shift"]


mlp = fill(MLP([3, 5, 4, 2]))
print(mlp)
x = torch.from_numpy(rng.standard_normal((2, 3)).astype(np.float32))
print(mlp(x), mlp(x, act="tanh"))
print(len(mlp.layers), mlp.layers[-1], mlp.layers[:2], type(mlp.layers[1:]).__name__, list(mlp.acts.keys()), "relu" in mlp.acts)
mlp.layers.append(nn.Linear(2, 2))
mlp.layers.extend([nn.Identity()])
mlp.layers.insert(0, nn.Identity())
print(len(mlp.layers), [type(m).__name__ for m in mlp.layers], len(list(mlp.parameters())))
mlp.acts.update({"gelu": nn.GELU()})
print(list(mlp.acts.items())[-1], mlp.acts.pop("tanh"), len(mlp.acts))
print(mlp.scales, len(mlp.scales), mlp.extra, list(mlp.extra.keys()))
seq = nn.Sequential(OrderedDict([
    ("conv1", nn.Conv2d(1, 2, 3)),
    ("relu1", nn.ReLU()),
    ("conv2", nn.Conv2d(2, 3, 3)),
    ("relu2", nn.ReLU()),
]))
print(seq, seq.conv1, seq[0] is seq.conv1, seq[1:3], seq[-1], len(seq))
seq.append(nn.Flatten())
print([name for name, _ in seq.named_children()], seq[-1])


class BasicBlock(nn.Module):
    expansion = 1

    def __init__(self, in_planes, planes, stride=1):
        super().__init__()
        self.conv1 = nn.Conv2d(in_planes, planes, kernel_size=3, stride=stride, padding=1, bias=False)
        self.bn1 = nn.BatchNorm2d(planes)
        self.conv2 = nn.Conv2d(planes, planes, kernel_size=3, stride=1, padding=1, bias=False)
        self.bn2 = nn.BatchNorm2d(planes)
        self.shortcut = nn.Sequential()
        if stride != 1 or in_planes != self.expansion * planes:
            self.shortcut = nn.Sequential(
                nn.Conv2d(in_planes, self.expansion * planes, kernel_size=1, stride=stride, bias=False),
                nn.BatchNorm2d(self.expansion * planes),
            )

    def forward(self, x):
        out = F.relu(self.bn1(self.conv1(x)))
        out = self.bn2(self.conv2(out))
        out += self.shortcut(x)
        return F.relu(out)


class TinyResNet(nn.Module):
    def __init__(self, num_classes=3):
        super().__init__()
        self.conv1 = nn.Conv2d(1, 4, kernel_size=3, padding=1, bias=False)
        self.bn1 = nn.BatchNorm2d(4)
        self.layer1 = nn.Sequential(BasicBlock(4, 4), BasicBlock(4, 4))
        self.layer2 = BasicBlock(4, 6, stride=2)
        self.linear = nn.Linear(6, num_classes)

    def forward(self, x):
        out = F.relu(self.bn1(self.conv1(x)))
        out = self.layer2(self.layer1(out))
        out = F.adaptive_avg_pool2d(out, 1)
        return self.linear(out.view(out.size(0), -1))


net = TinyResNet()
with torch.no_grad():
    for name, p in net.named_parameters():
        if "bn" not in name and "shortcut.1" not in name:
            p.copy_(torch.from_numpy(rng.uniform(-0.4, 0.4, tuple(p.shape)).astype(np.float32)))
print(net.layer2)
imgs = torch.from_numpy(rng.standard_normal((3, 1, 6, 6)).astype(np.float32))
out = net(imgs)
print(out, out.shape)
loss = F.cross_entropy(out, torch.tensor([0, 1, 2]))
loss.backward()
print(loss, net.layer2.shortcut[0].weight.grad.flatten()[:4], net.layer1[0].bn1.weight.grad)
print(sum(p.numel() for p in net.parameters()), len(net.state_dict()), [k for k in net.state_dict() if "layer2.shortcut" in k])
net.eval()
print(net(imgs).argmax(1), net.layer1[1].bn2.running_var[:2])
