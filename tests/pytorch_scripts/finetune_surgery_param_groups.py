"""Transfer-learning surgery on a small CNN, the way people adapt pretrained models: the backbone
taken as nn.Sequential(*list(model.children())[:-1]), the head replaced with a new nn.Linear for
the new classes, earlier blocks frozen with requires_grad_(False) and BatchNorm kept in eval via a
train() override, an optimizer over filter(lambda p: p.requires_grad) with per-group lr, then
unfreezing a block later with add_param_group; which parameters move and which stay put."""
import numpy as np
import fluxgrad as torch
import fluxgrad.nn as nn
import fluxgrad.nn.functional as F

rng = np.random.default_rng(83)


class SmallNet(nn.Module):
    def __init__(self, num_classes=10):
        super().__init__()
        self.block1 = nn.Sequential(nn.Conv2d(3, 4, 3, padding=1), nn.BatchNorm2d(4), nn.ReLU())
        self.block2 = nn.Sequential(nn.Conv2d(4, 6, 3, padding=1, stride=2), nn.BatchNorm2d(6), nn.ReLU())
        self.pool = nn.AdaptiveAvgPool2d((1, 1))
        self.fc = nn.Linear(6, num_classes)

    def forward(self, x):
        return self.fc(torch.flatten(self.pool(self.block2(self.block1(x))), 1))


class FineTuner(nn.Module):
    def __init__(self, pretrained, num_classes):
        super().__init__()
        self.features = nn.Sequential(*list(pretrained.children())[:-1])
        self.classifier = nn.Linear(pretrained.fc.in_features, num_classes)

    def forward(self, x):
        return self.classifier(self.features(x).flatten(1))

    def train(self, mode=True):
        super().train(mode)
        for m in self.features.modules():
            if isinstance(m, nn.BatchNorm2d):
                m.eval()
        return self


pretrained = SmallNet()
with torch.no_grad():
    for p in pretrained.parameters():
        p.copy_(torch.from_numpy(rng.normal(0, 0.4, tuple(p.shape)).astype(np.float32)))
    pretrained.block1[1].running_mean.copy_(torch.tensor([0.1, -0.1, 0.2, 0.0]))
model = FineTuner(pretrained, 3)
with torch.no_grad():
    model.classifier.weight.copy_(torch.from_numpy(rng.normal(0, 0.4, (3, 6)).astype(np.float32)))
    model.classifier.bias.zero_()
print(model.features)
model.features[0].requires_grad_(False)
model.features[1].requires_grad_(False)
trainable = [n for n, p in model.named_parameters() if p.requires_grad]
print(trainable)
optimizer = torch.optim.SGD([
    {"params": model.classifier.parameters(), "lr": 0.1},
    {"params": filter(lambda p: p.requires_grad, model.features.parameters()), "lr": 0.01}],
    momentum=0.9)
print([len(g["params"]) for g in optimizer.param_groups], [g["lr"] for g in optimizer.param_groups])
x = torch.from_numpy(rng.normal(0, 1, (4, 3, 6, 6)).astype(np.float32))
y = torch.tensor([0, 1, 2, 1])
frozen_before = model.features[0][0].weight.clone()
model.train()
print(model.training, model.features[0][1].training, model.features[1][1].training)
for step in range(3):
    loss = F.cross_entropy(model(x), y)
    optimizer.zero_grad()
    loss.backward()
    optimizer.step()
    print(step, round(loss.item(), 5))
print(torch.equal(frozen_before, model.features[0][0].weight), model.features[0][0].weight.grad)
print(model.features[0][1].running_mean, model.features[1][1].num_batches_tracked)
model.features[0].requires_grad_(True)
optimizer.add_param_group({"params": model.features[0].parameters(), "lr": 0.001})
loss = F.cross_entropy(model(x), y)
optimizer.zero_grad()
loss.backward()
optimizer.step()
print(round(loss.item(), 5), len(optimizer.param_groups), optimizer.param_groups[2]["momentum"])
print((frozen_before - model.features[0][0].weight).abs().max())
print(sum(p.numel() for p in model.parameters() if p.requires_grad))
