"""A torchvision-free ResNet (BasicBlock and Bottleneck with BatchNorm and projection
shortcuts) trained a few steps with SGD (Nesterov momentum, weight decay on conv weights
only), then evaluated: running statistics, num_batches_tracked, train/eval outputs."""
import numpy as np
import fluxgrad as torch
import fluxgrad.nn as nn
import fluxgrad.nn.functional as F

rng = np.random.default_rng(101)


def conv3x3(cin, cout, stride=1):
    return nn.Conv2d(cin, cout, kernel_size=3, stride=stride, padding=1, bias=False)


class BasicBlock(nn.Module):
    expansion = 1

    def __init__(self, cin, cout, stride=1):
        super().__init__()
        self.conv1 = conv3x3(cin, cout, stride)
        self.bn1 = nn.BatchNorm2d(cout)
        self.conv2 = conv3x3(cout, cout)
        self.bn2 = nn.BatchNorm2d(cout)
        self.shortcut = nn.Sequential()
        if stride != 1 or cin != cout:
            self.shortcut = nn.Sequential(nn.Conv2d(cin, cout, 1, stride=stride, bias=False),
                                          nn.BatchNorm2d(cout))

    def forward(self, x):
        out = F.relu(self.bn1(self.conv1(x)))
        out = self.bn2(self.conv2(out))
        out += self.shortcut(x)
        return F.relu(out)


class Bottleneck(nn.Module):
    expansion = 2

    def __init__(self, cin, width, stride=1):
        super().__init__()
        cout = width * self.expansion
        self.conv1 = nn.Conv2d(cin, width, 1, bias=False)
        self.bn1 = nn.BatchNorm2d(width)
        self.conv2 = conv3x3(width, width, stride)
        self.bn2 = nn.BatchNorm2d(width)
        self.conv3 = nn.Conv2d(width, cout, 1, bias=False)
        self.bn3 = nn.BatchNorm2d(cout)
        self.relu = nn.ReLU(inplace=True)
        self.downsample = None
        if stride != 1 or cin != cout:
            self.downsample = nn.Sequential(nn.Conv2d(cin, cout, 1, stride, bias=False),
                                            nn.BatchNorm2d(cout))

    def forward(self, x):
        identity = x
        out = self.relu(self.bn1(self.conv1(x)))
        out = self.relu(self.bn2(self.conv2(out)))
        out = self.bn3(self.conv3(out))
        if self.downsample is not None:
            identity = self.downsample(x)
        out += identity
        return self.relu(out)


class TinyResNet(nn.Module):
    def __init__(self, num_classes=3):
        super().__init__()
        self.stem = nn.Sequential(conv3x3(2, 4), nn.BatchNorm2d(4), nn.ReLU(inplace=True))
        self.layer1 = nn.Sequential(BasicBlock(4, 4), BasicBlock(4, 6, stride=2))
        self.layer2 = Bottleneck(6, 3, stride=2)
        self.pool = nn.AdaptiveAvgPool2d((1, 1))
        self.fc = nn.Linear(6, num_classes)

    def forward(self, x):
        x = self.layer2(self.layer1(self.stem(x)))
        return self.fc(torch.flatten(self.pool(x), 1))


model = TinyResNet()
with torch.no_grad():
    for name, p in model.named_parameters():
        if p.dim() > 1:
            fan_in = p[0].numel()
            p.copy_(torch.from_numpy(rng.normal(0, np.sqrt(2.0 / fan_in), p.shape).astype(np.float32)))
        elif name.endswith("bias"):
            p.zero_()
for m in model.modules():
    if isinstance(m, Bottleneck):
        nn.init.zeros_(m.bn3.weight)

decay = [p for n, p in model.named_parameters() if p.dim() > 1]
no_decay = [p for n, p in model.named_parameters() if p.dim() <= 1]
opt = torch.optim.SGD([{"params": decay, "weight_decay": 5e-4},
                       {"params": no_decay, "weight_decay": 0.0}],
                      lr=0.05, momentum=0.9, nesterov=True)
x = torch.from_numpy(rng.standard_normal((6, 2, 8, 8)).astype(np.float32))
y = torch.from_numpy(rng.integers(0, 3, 6))
print(sum(p.numel() for p in model.parameters()), len(decay), len(no_decay))
for step in range(4):
    model.train()
    opt.zero_grad()
    logits = model(x)
    loss = F.cross_entropy(logits, y)
    loss.backward()
    opt.step()
    acc = (logits.argmax(1) == y).float().mean()
    print(f"step {step} loss {loss.item():.5f} acc {acc.item():.3f}")
bn = model.stem[1]
print(bn.running_mean, bn.running_var, bn.num_batches_tracked)
print(model.layer2.bn3.weight)
model.eval()
with torch.no_grad():
    out = model(x)
print(out.shape, out.softmax(-1).sum(-1))
print(torch.round(out, decimals=3))
print(model.layer1[1].shortcut)
