"""A CIFAR-style CNN training loop in miniature: Conv2d/BatchNorm2d/ReLU/MaxPool2d/Dropout blocks,
nn.CrossEntropyLoss, SGD with momentum and weight decay, model.train()/model.eval() switching BatchNorm
statistics and Dropout, accuracy and a confusion matrix with bincount, and a per-class report."""
import numpy as np
import fluxgrad as torch
import fluxgrad.nn as nn
import fluxgrad.nn.functional as F

rng = np.random.default_rng(59)
classes = ("plane", "car", "bird")


class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.conv1 = nn.Conv2d(3, 4, 3, padding=1)
        self.bn1 = nn.BatchNorm2d(4)
        self.pool = nn.MaxPool2d(2, 2)
        self.conv2 = nn.Conv2d(4, 6, 3)
        self.bn2 = nn.BatchNorm2d(6, momentum=0.2)
        self.dropout = nn.Dropout(p=0.5)
        self.fc1 = nn.Linear(6 * 1 * 1, 8)
        self.fc2 = nn.Linear(8, 3)

    def forward(self, x):
        x = self.pool(F.relu(self.bn1(self.conv1(x))))
        x = self.pool(F.relu(self.bn2(self.conv2(x))))
        x = torch.flatten(x, 1)
        x = F.relu(self.fc1(x))
        x = self.dropout(x) if not self.training else x
        return self.fc2(x)


net = Net()
with torch.no_grad():
    for name, p in net.named_parameters():
        if "bn" not in name:
            p.copy_(torch.from_numpy(rng.uniform(-0.4, 0.4, tuple(p.shape)).astype(np.float32)))
images = torch.from_numpy(rng.standard_normal((12, 3, 8, 8)).astype(np.float32))
labels = torch.from_numpy(rng.integers(0, 3, 12))
print(labels, labels.dtype, net(images).shape)
criterion = nn.CrossEntropyLoss()
optimizer = torch.optim.SGD(net.parameters(), lr=0.05, momentum=0.9, weight_decay=5e-4)
for epoch in range(3):
    running_loss = 0.0
    net.train()
    for i, (inputs, targets) in enumerate(zip(images.split(4), labels.split(4))):
        optimizer.zero_grad()
        outputs = net(inputs)
        loss = criterion(outputs, targets)
        loss.backward()
        optimizer.step()
        running_loss += loss.item()
    print(f"[{epoch + 1}] loss: {running_loss / 3:.4f}")
print(net.bn1.running_mean, net.bn2.running_var, net.bn1.num_batches_tracked)
net.eval()
correct, total = 0, 0
with torch.no_grad():
    outputs = net(images)
    _, predicted = torch.max(outputs.data, 1)
    total += labels.size(0)
    correct += (predicted == labels).sum().item()
print(f"Accuracy: {100 * correct // total} %", predicted)
print(torch.equal(net(images), net(images)), net.training, net.dropout.training)
confusion = torch.bincount(labels * 3 + predicted, minlength=9).reshape(3, 3)
print(confusion)
correct_pred = {classname: 0 for classname in classes}
total_pred = {classname: 0 for classname in classes}
for label, prediction in zip(labels, predicted):
    if label == prediction:
        correct_pred[classes[label]] += 1
    total_pred[classes[label]] += 1
for classname, correct_count in correct_pred.items():
    accuracy = 100 * float(correct_count) / max(total_pred[classname], 1)
    print(f"Accuracy for class: {classname:5s} is {accuracy:.1f} %")
probs = F.softmax(outputs, dim=1)
print(probs.max(dim=1), probs.sum(1), outputs.argmax(1).eq(labels).float().mean())
bn = nn.BatchNorm2d(2, affine=False, track_running_stats=False)
print(bn(images[:, :2]).mean(dim=(0, 2, 3)), bn.running_mean, nn.BatchNorm1d(3, eps=1e-3)(torch.eye(3)))
drop = nn.Dropout(0.5)
drop.eval()
print(drop(torch.ones(4)), nn.Dropout2d(0.3).eval()(torch.ones(1, 2, 2, 2)).sum(), nn.AlphaDropout(0.2).eval()(torch.ones(3)))
