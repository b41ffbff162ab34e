"""The 60-minute-blitz training loop on a synthetic MNIST-like set: a custom Dataset returning
(image, label) with a transform, DataLoader with shuffle off, an MLP with nn.Flatten, the classic
train()/test() functions with log_interval printing, correct counting with pred.eq(target.view_as(pred)),
a StepLR scheduler, saving the state_dict to a BytesIO, and torch.manual_seed'd Dropout kept off."""
import io
import numpy as np
import fluxgrad as torch
import fluxgrad.nn as nn
import fluxgrad.nn.functional as F
from fluxgrad.utils.data import DataLoader, Dataset

rng = np.random.default_rng(109)


class FakeDigits(Dataset):
    def __init__(self, n, transform=None):
        self.images = rng.uniform(0, 255, (n, 1, 6, 6)).astype(np.uint8)
        self.labels = (self.images.reshape(n, -1).mean(1) > 127).astype(np.int64) + (self.images[:, 0, 0, 0] > 200)
        self.transform = transform

    def __len__(self):
        return len(self.labels)

    def __getitem__(self, idx):
        img = torch.from_numpy(self.images[idx]).float() / 255.0
        if self.transform:
            img = self.transform(img)
        return img, int(self.labels[idx])


normalize = lambda t: (t - 0.1307) / 0.3081
train_loader = DataLoader(FakeDigits(40, normalize), batch_size=8, shuffle=False)
test_loader = DataLoader(FakeDigits(16, normalize), batch_size=8)
imgs, lbls = next(iter(train_loader))
print(imgs.shape, imgs.dtype, lbls, lbls.dtype)


class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.flatten = nn.Flatten()
        self.linear_relu_stack = nn.Sequential(
            nn.Linear(36, 16), nn.ReLU(), nn.Dropout(0.25),
            nn.Linear(16, 16), nn.ReLU(),
            nn.Linear(16, 3),
        )

    def forward(self, x):
        return F.log_softmax(self.linear_relu_stack(self.flatten(x)), dim=1)


model = Net()
with torch.no_grad():
    for p in model.parameters():
        p.copy_(torch.from_numpy(rng.uniform(-0.3, 0.3, tuple(p.shape)).astype(np.float32)))
print(model)
optimizer = torch.optim.Adadelta(model.parameters(), lr=1.0)
scheduler = torch.optim.lr_scheduler.StepLR(optimizer, step_size=1, gamma=0.7)


def train(model, train_loader, optimizer, epoch, log_interval=2):
    model.train()
    model.linear_relu_stack[2].p = 0.0
    for batch_idx, (data, target) in enumerate(train_loader):
        optimizer.zero_grad()
        output = model(data)
        loss = F.nll_loss(output, target)
        loss.backward()
        optimizer.step()
        if batch_idx % log_interval == 0:
            print("Train Epoch: {} [{}/{} ({:.0f}%)]\tLoss: {:.6f}".format(
                epoch, batch_idx * len(data), len(train_loader.dataset),
                100.0 * batch_idx / len(train_loader), loss.item()))


def test(model, test_loader):
    model.eval()
    test_loss = 0
    correct = 0
    with torch.no_grad():
        for data, target in test_loader:
            output = model(data)
            test_loss += F.nll_loss(output, target, reduction="sum").item()
            pred = output.argmax(dim=1, keepdim=True)
            correct += pred.eq(target.view_as(pred)).sum().item()
    test_loss /= len(test_loader.dataset)
    print("\nTest set: Average loss: {:.4f}, Accuracy: {}/{} ({:.0f}%)\n".format(
        test_loss, correct, len(test_loader.dataset), 100.0 * correct / len(test_loader.dataset)))


for epoch in range(1, 3):
    train(model, train_loader, optimizer, epoch)
    test(model, test_loader)
    scheduler.step()
buffer = io.BytesIO()
torch.save(model.state_dict(), buffer)
print(buffer.tell() > 0, sorted(torch.load(io.BytesIO(buffer.getvalue())).keys())[:2])
size, num_batches = len(test_loader.dataset), len(test_loader)
print(size, num_batches, optimizer.param_groups[0]["lr"])
