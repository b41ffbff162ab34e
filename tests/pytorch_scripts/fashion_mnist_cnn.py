"""A Fashion-MNIST style training loop on synthetic 1x12x12 images: a CNN with BatchNorm2d,
Dropout and MaxPool, Adam with weight decay, a OneCycleLR schedule stepped per batch, gradient
clipping, per-epoch train/test metrics, a confusion matrix built with bincount, per-class
precision and recall, and the top-3 accuracy with topk."""
import numpy as np
import fluxgrad as torch
import fluxgrad.nn as nn
import fluxgrad.nn.functional as F
from fluxgrad.utils.data import DataLoader, TensorDataset

rng = np.random.default_rng(18)
num_classes = 5
proto = rng.normal(0, 1, (num_classes, 1, 12, 12)).astype(np.float32)
y_all = rng.integers(0, num_classes, 120)
x_all = proto[y_all] + rng.normal(0, 1.2, (120, 1, 12, 12)).astype(np.float32)
mean, std = x_all[:90].mean(), x_all[:90].std()
x_all = (x_all - mean) / std
train_ds = TensorDataset(torch.from_numpy(x_all[:90]), torch.from_numpy(y_all[:90]))
test_ds = TensorDataset(torch.from_numpy(x_all[90:]), torch.from_numpy(y_all[90:]))
train_loader = DataLoader(train_ds, batch_size=16)
test_loader = DataLoader(test_ds, batch_size=32)


class FashionCNN(nn.Module):
    def __init__(self):
        super().__init__()
        self.layer1 = nn.Sequential(nn.Conv2d(1, 6, kernel_size=3, padding=1, bias=False), nn.BatchNorm2d(6),
                                    nn.ReLU(), nn.MaxPool2d(kernel_size=2, stride=2))
        self.layer2 = nn.Sequential(nn.Conv2d(6, 8, kernel_size=3, bias=False), nn.BatchNorm2d(8), nn.ReLU(),
                                    nn.MaxPool2d(2))
        self.fc1 = nn.Linear(8 * 2 * 2, 24)
        self.drop = nn.Dropout(0.0)
        self.fc2 = nn.Linear(24, num_classes)

    def forward(self, x):
        out = self.layer2(self.layer1(x))
        out = out.view(out.size(0), -1)
        return self.fc2(self.drop(F.relu(self.fc1(out))))


model = FashionCNN()
with torch.no_grad():
    for name, p in model.named_parameters():
        if p.dim() > 1:
            p.copy_(torch.from_numpy(rng.normal(0, (2 / p[0].numel()) ** 0.5,
                                                tuple(p.shape)).astype(np.float32)))
        elif "bias" in name:
            p.zero_()
print(model)
error = nn.CrossEntropyLoss()
optimizer = torch.optim.Adam(model.parameters(), lr=3e-3, weight_decay=1e-4)
epochs = 3
scheduler = torch.optim.lr_scheduler.OneCycleLR(optimizer, max_lr=1e-2, epochs=epochs,
                                                steps_per_epoch=len(train_loader))
for epoch in range(epochs):
    model.train()
    total_loss, correct, seen = 0.0, 0, 0
    for images, labels in train_loader:
        outputs = model(images)
        loss = error(outputs, labels)
        optimizer.zero_grad()
        loss.backward()
        norm = nn.utils.clip_grad_norm_(model.parameters(), max_norm=5.0)
        optimizer.step()
        scheduler.step()
        total_loss += loss.item() * len(labels)
        correct += (outputs.argmax(1) == labels).sum().item()
        seen += len(labels)
    model.eval()
    with torch.no_grad():
        test_correct = sum((model(x).argmax(1) == y).sum().item() for x, y in test_loader)
    print(f"epoch {epoch}: loss {total_loss / seen:.4f} train acc {correct / seen:.3f} "
          f"test acc {test_correct / len(test_ds):.3f} lr {scheduler.get_last_lr()[0]:.6f} "
          f"norm {float(norm):.3f}")
model.eval()
with torch.no_grad():
    logits = torch.cat([model(x) for x, _ in test_loader])
    targets = torch.cat([y for _, y in test_loader])
preds = logits.argmax(1)
confusion = torch.bincount(targets * num_classes + preds, minlength=num_classes ** 2)
confusion = confusion.view(num_classes, num_classes)
print(confusion)
tp = confusion.diag().float()
precision = tp / confusion.sum(0).clamp(min=1).float()
recall = tp / confusion.sum(1).clamp(min=1).float()
print(precision, recall)
top3 = logits.topk(3, dim=1).indices
print((top3 == targets.unsqueeze(1)).any(1).float().mean())
probs = F.softmax(logits, dim=1)
print(probs.max(1).values[:5], probs.sum(1)[:3])
print(model.layer1[1].running_mean, model.layer1[1].num_batches_tracked)
