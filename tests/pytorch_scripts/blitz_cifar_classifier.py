"""'60 minute blitz: Training a Classifier' on a synthetic CIFAR-10-shaped set (3x32x32 images in
[-1, 1] as Normalize((0.5,)*3, (0.5,)*3) leaves them): the Net with pool, torch.flatten, SGD
with momentum, the running-loss print every few mini-batches, overall accuracy with torch.max
and per-class accuracy with the correct_pred/total_pred dicts, saving and reloading the net."""
import io
import numpy as np
import fluxgrad as torch
import fluxgrad.nn as nn
import fluxgrad.nn.functional as F
import fluxgrad.optim as optim
from fluxgrad.utils.data import DataLoader, TensorDataset

rng = np.random.default_rng(6)
classes = ("plane", "car", "bird", "cat", "deer", "dog", "frog", "horse", "ship", "truck")
n_train, n_test = 64, 30
proto = rng.uniform(0, 1, (10, 3, 32, 32)).astype(np.float32)
y_train, y_test = rng.integers(0, 10, n_train), rng.integers(0, 10, n_test)
noise = lambda n: rng.uniform(0, 1, (n, 3, 32, 32)).astype(np.float32)
X_train = (0.6 * proto[y_train] + 0.4 * noise(n_train) - 0.5) / 0.5
X_test = (0.6 * proto[y_test] + 0.4 * noise(n_test) - 0.5) / 0.5
batch_size = 4
trainloader = DataLoader(TensorDataset(torch.from_numpy(X_train), torch.from_numpy(y_train)),
                         batch_size=batch_size, shuffle=False, num_workers=0)
testloader = DataLoader(TensorDataset(torch.from_numpy(X_test), torch.from_numpy(y_test)),
                        batch_size=batch_size, shuffle=False, num_workers=0)
dataiter = iter(trainloader)
images, labels = next(dataiter)
print(" ".join(f"{classes[labels[j]]:5s}" for j in range(batch_size)), images.shape,
      round(images.min().item(), 3), round(images.max().item(), 3))


class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.conv1 = nn.Conv2d(3, 6, 5)
        self.pool = nn.MaxPool2d(2, 2)
        self.conv2 = nn.Conv2d(6, 16, 5)
        self.fc1 = nn.Linear(16 * 5 * 5, 120)
        self.fc2 = nn.Linear(120, 84)
        self.fc3 = nn.Linear(84, 10)

    def forward(self, x):
        x = self.pool(F.relu(self.conv1(x)))
        x = self.pool(F.relu(self.conv2(x)))
        x = torch.flatten(x, 1)
        x = F.relu(self.fc1(x))
        x = F.relu(self.fc2(x))
        x = self.fc3(x)
        return x


net = Net()
with torch.no_grad():
    for p in net.parameters():
        fan_in = p[0].numel() if p.dim() > 1 else p.numel()
        p.copy_(torch.from_numpy(rng.uniform(-1, 1, tuple(p.shape)).astype(np.float32))
                / fan_in ** 0.5)
criterion = nn.CrossEntropyLoss()
optimizer = optim.SGD(net.parameters(), lr=0.01, momentum=0.9)
for epoch in range(2):
    running_loss = 0.0
    for i, data in enumerate(trainloader, 0):
        inputs, labels = data
        optimizer.zero_grad()
        outputs = net(inputs)
        loss = criterion(outputs, labels)
        loss.backward()
        optimizer.step()
        running_loss += loss.item()
        if i % 8 == 7:
            print(f"[{epoch + 1}, {i + 1:5d}] loss: {running_loss / 8:.3f}")
            running_loss = 0.0
print("Finished Training")
PATH = io.BytesIO()
torch.save(net.state_dict(), PATH)
images, labels = next(iter(testloader))
print("GroundTruth: ", " ".join(f"{classes[labels[j]]:5s}" for j in range(4)))
net = Net()
PATH.seek(0)
net.load_state_dict(torch.load(PATH, weights_only=True))
outputs = net(images)
_, predicted = torch.max(outputs, 1)
print("Predicted: ", " ".join(f"{classes[predicted[j]]:5s}" for j in range(4)))
correct = 0
total = 0
with torch.no_grad():
    for data in testloader:
        images, labels = data
        outputs = net(images)
        _, predicted = torch.max(outputs.data, 1)
        total += labels.size(0)
        correct += (predicted == labels).sum().item()
print(f"Accuracy of the network on the {total} test images: {100 * correct // total} %")
correct_pred = {classname: 0 for classname in classes}
total_pred = {classname: 0 for classname in classes}
with torch.no_grad():
    for data in testloader:
        images, labels = data
        outputs = net(images)
        _, predictions = torch.max(outputs, 1)
        for label, prediction in zip(labels, predictions):
            if label == prediction:
                correct_pred[classes[label]] += 1
            total_pred[classes[label]] += 1
for classname, correct_count in correct_pred.items():
    if total_pred[classname]:
        accuracy = 100 * float(correct_count) / total_pred[classname]
        print(f"Accuracy for class: {classname:5s} is {accuracy:.1f} %")
device = torch.device("cuda:0" if torch.cuda.is_available() else "cpu")
print(device)
net.to(device)
inputs, labels = inputs.to(device), labels.to(device)
print(inputs.device, next(net.parameters()).device)
