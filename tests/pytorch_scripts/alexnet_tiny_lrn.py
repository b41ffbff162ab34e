"""A scaled-down AlexNet as the torchvision definition and the 2012 paper write it: conv/ReLU/
MaxPool(3, stride 2) stacks with LocalResponseNorm(size=5, alpha=1e-4, beta=0.75, k=2),
AdaptiveAvgPool2d to 6x6, a Dropout-Linear classifier, inplace ReLUs, train versus eval (dropout
off), the overlapping pooling's output sizes, and one Adam step with weight decay."""
import numpy as np
import fluxgrad as torch
import fluxgrad.nn as nn

rng = np.random.default_rng(2012)


class AlexNet(nn.Module):
    def __init__(self, num_classes=5, dropout=0.5):
        super().__init__()
        self.features = nn.Sequential(
            nn.Conv2d(3, 8, kernel_size=11, stride=4, padding=2), nn.ReLU(inplace=True),
            nn.LocalResponseNorm(size=5, alpha=1e-4, beta=0.75, k=2.0),
            nn.MaxPool2d(kernel_size=3, stride=2),
            nn.Conv2d(8, 16, kernel_size=5, padding=2), nn.ReLU(inplace=True),
            nn.LocalResponseNorm(size=5, alpha=1e-4, beta=0.75, k=2.0),
            nn.MaxPool2d(kernel_size=3, stride=2),
            nn.Conv2d(16, 24, kernel_size=3, padding=1), nn.ReLU(inplace=True),
            nn.Conv2d(24, 16, kernel_size=3, padding=1), nn.ReLU(inplace=True),
            nn.MaxPool2d(kernel_size=3, stride=2))
        self.avgpool = nn.AdaptiveAvgPool2d((6, 6))
        self.classifier = nn.Sequential(
            nn.Dropout(p=dropout), nn.Linear(16 * 6 * 6, 64), nn.ReLU(inplace=True),
            nn.Dropout(p=dropout), nn.Linear(64, 64), nn.ReLU(inplace=True),
            nn.Linear(64, num_classes))

    def forward(self, x):
        x = self.features(x)
        x = self.avgpool(x)
        x = torch.flatten(x, 1)
        return self.classifier(x)


model = AlexNet()
with torch.no_grad():
    for name, p in model.named_parameters():
        std = 0.05 if name.endswith("weight") else 0.01
        p.copy_(torch.from_numpy(rng.normal(0, std, tuple(p.shape)).astype(np.float32)))
x = torch.from_numpy(rng.normal(size=(2, 3, 95, 95)).astype(np.float32))
feat = x
for layer in model.features:
    feat = layer(feat)
    if isinstance(layer, (nn.MaxPool2d, nn.LocalResponseNorm)):
        print(type(layer).__name__, tuple(feat.shape), round(feat.abs().mean().item(), 5))
print(model.avgpool(feat).shape, model.classifier)

model.eval()
with torch.no_grad():
    out1, out2 = model(x), model(x)
print(torch.equal(out1, out2), out1)
lrn = nn.LocalResponseNorm(3, alpha=0.1, beta=0.5, k=1.0)
print(lrn, lrn(torch.arange(1.0, 9.0).view(1, 4, 2, 1)).flatten())

model.train()
for m in model.modules():
    if isinstance(m, nn.Dropout):
        m.p = 0.0
optimizer = torch.optim.Adam(model.parameters(), lr=1e-3, weight_decay=5e-4)
target = torch.tensor([1, 3])
for step in range(3):
    optimizer.zero_grad()
    loss = nn.functional.cross_entropy(model(x), target)
    loss.backward()
    optimizer.step()
    print(step, round(loss.item(), 5), model.features[0].weight.grad.norm().item())
