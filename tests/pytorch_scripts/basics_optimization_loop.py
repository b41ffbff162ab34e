"""'Learn the Basics: Optimizing Model Parameters' (and the Quickstart's train/test) on a synthetic
FashionMNIST-shaped set: hyperparameters, train_loop/test_loop as written in the tutorial with
their formatted progress lines, model.train()/eval(), SGD, several epochs, then a prediction."""
import numpy as np
import fluxgrad as torch
from fluxgrad import nn
from fluxgrad.utils.data import DataLoader, TensorDataset

rng = np.random.default_rng(21)
classes = ["T-shirt/top", "Trouser", "Pullover", "Dress", "Coat", "Sandal", "Shirt", "Sneaker",
           "Bag", "Ankle boot"]
n_train, n_test = 96, 40
centers = rng.normal(0, 1, (10, 1, 5, 5)).astype(np.float32)
y_train = rng.integers(0, 10, n_train)
y_test = rng.integers(0, 10, n_test)
X_train = centers[y_train] + rng.normal(0, 0.7, (n_train, 1, 5, 5)).astype(np.float32)
X_test = centers[y_test] + rng.normal(0, 0.7, (n_test, 1, 5, 5)).astype(np.float32)
training_data = TensorDataset(torch.from_numpy(X_train), torch.from_numpy(y_train))
test_data = TensorDataset(torch.from_numpy(X_test), torch.from_numpy(y_test))
learning_rate = 1e-1
batch_size = 16
epochs = 4
train_dataloader = DataLoader(training_data, batch_size=batch_size)
test_dataloader = DataLoader(test_data, batch_size=batch_size)


class NeuralNetwork(nn.Module):
    def __init__(self):
        super().__init__()
        self.flatten = nn.Flatten()
        self.linear_relu_stack = nn.Sequential(
            nn.Linear(25, 32), nn.ReLU(), nn.Linear(32, 32), nn.ReLU(), nn.Linear(32, 10))

    def forward(self, x):
        x = self.flatten(x)
        return self.linear_relu_stack(x)


model = NeuralNetwork()
with torch.no_grad():
    for p in model.parameters():
        p.copy_(torch.from_numpy(rng.normal(0, 0.25, tuple(p.shape)).astype(np.float32)))
loss_fn = nn.CrossEntropyLoss()
optimizer = torch.optim.SGD(model.parameters(), lr=learning_rate)


def train_loop(dataloader, model, loss_fn, optimizer):
    size = len(dataloader.dataset)
    model.train()
    for batch, (X, y) in enumerate(dataloader):
        pred = model(X)
        loss = loss_fn(pred, y)
        loss.backward()
        optimizer.step()
        optimizer.zero_grad()
        if batch % 3 == 0:
            loss, current = loss.item(), batch * batch_size + len(X)
            print(f"loss: {loss:>7f}  [{current:>5d}/{size:>5d}]")


def test_loop(dataloader, model, loss_fn):
    model.eval()
    size = len(dataloader.dataset)
    num_batches = len(dataloader)
    test_loss, correct = 0, 0
    with torch.no_grad():
        for X, y in dataloader:
            pred = model(X)
            test_loss += loss_fn(pred, y).item()
            correct += (pred.argmax(1) == y).type(torch.float).sum().item()
    test_loss /= num_batches
    correct /= size
    print(f"Test Error: \n Accuracy: {(100*correct):>0.1f}%, Avg loss: {test_loss:>8f} \n")


for t in range(epochs):
    print(f"Epoch {t+1}\n-------------------------------")
    train_loop(train_dataloader, model, loss_fn, optimizer)
    test_loop(test_dataloader, model, loss_fn)
print("Done!")
model.eval()
x, y = test_data[0][0], test_data[0][1]
with torch.no_grad():
    x = x.to("cpu")
    pred = model(x.unsqueeze(0))
    predicted, actual = classes[pred[0].argmax(0)], classes[y]
    print(f'Predicted: "{predicted}", Actual: "{actual}"')
