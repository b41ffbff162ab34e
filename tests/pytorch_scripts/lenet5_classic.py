"""LeNet-5 as in LeCun et al. 1998 and the many course re-implementations: 32x32 inputs, tanh
activations, average pooling, the C5 layer as a 5x5 convolution to 120 maps, F6 with 84 units,
parameter count per layer, weights loaded from NumPy, an SGD-with-momentum loop with
CrossEntropyLoss on random digits, accuracy with argmax, and the feature-map shapes printed by a
forward hook on every layer."""
import numpy as np
import fluxgrad as torch
import fluxgrad.nn as nn

rng = np.random.default_rng(1998)


class LeNet5(nn.Module):
    def __init__(self, n_classes=10):
        super().__init__()
        self.feature_extractor = nn.Sequential(
            nn.Conv2d(1, 6, kernel_size=5, stride=1), nn.Tanh(), nn.AvgPool2d(kernel_size=2),
            nn.Conv2d(6, 16, kernel_size=5, stride=1), nn.Tanh(), nn.AvgPool2d(kernel_size=2),
            nn.Conv2d(16, 120, kernel_size=5, stride=1), nn.Tanh())
        self.classifier = nn.Sequential(nn.Linear(120, 84), nn.Tanh(), nn.Linear(84, n_classes))

    def forward(self, x):
        x = self.feature_extractor(x)
        x = torch.flatten(x, 1)
        logits = self.classifier(x)
        probs = nn.functional.softmax(logits, dim=1)
        return logits, probs


model = LeNet5()
with torch.no_grad():
    for p in model.parameters():
        p.copy_(torch.from_numpy(rng.normal(0, 0.1, tuple(p.shape)).astype(np.float32)))
print(model)
for name, module in model.named_children():
    print(name, sum(p.numel() for p in module.parameters()))
print("total", sum(p.numel() for p in model.parameters() if p.requires_grad))

shapes = []
for layer in model.feature_extractor:
    layer.register_forward_hook(lambda m, i, o: shapes.append((type(m).__name__, tuple(o.shape))))
images = torch.from_numpy(rng.normal(size=(8, 1, 32, 32)).astype(np.float32))
labels = torch.from_numpy(rng.integers(0, 10, 8))
logits, probs = model(images)
print(shapes)
print(logits.shape, probs.sum(1)[:3])

criterion = nn.CrossEntropyLoss()
optimizer = torch.optim.SGD(model.parameters(), lr=0.05, momentum=0.9)
model.train()
for epoch in range(4):
    optimizer.zero_grad()
    logits, _ = model(images)
    loss = criterion(logits, labels)
    loss.backward()
    optimizer.step()
    acc = (logits.argmax(1) == labels).float().mean()
    print(epoch, round(loss.item(), 4), acc.item())
model.eval()
with torch.no_grad():
    _, probs = model(images[:4])
    print(probs.max(1).values, probs.argmax(1), labels[:4])
