"""'What is torch.nn really?', part 2: the refactoring walkthrough. nn.Module with nn.Parameter,
nn.Linear, optim, TensorDataset, DataLoader, validation, get_data / get_model / loss_batch / fit,
a CNN with a Lambda layer, nn.Sequential, WrappedDataLoader with a preprocess function, and
AdaptiveAvgPool2d so that any input size works."""
import math
import numpy as np
import fluxgrad as torch
import fluxgrad.nn.functional as F
from fluxgrad import nn, optim
from fluxgrad.utils.data import DataLoader, TensorDataset

rng = np.random.default_rng(13)
side, c = 8, 10
proto = rng.normal(0, 1, (c, side * side)).astype(np.float32)
labels = rng.integers(0, c, 160)
images = proto[labels] + rng.normal(0, 1.2, (160, side * side)).astype(np.float32)
x_train, y_train, x_valid, y_valid = map(torch.tensor, (images[:120], labels[:120], images[120:],
                                                        labels[120:]))
n = x_train.shape[0]
bs = 32
lr = 0.3
epochs = 2
loss_func = F.cross_entropy


def init(model, seed):
    g = np.random.default_rng(seed)
    with torch.no_grad():
        for p in model.parameters():
            fan_in = p[0].numel() if p.dim() > 1 else p.numel()
            p.copy_(torch.from_numpy(g.uniform(-1, 1, tuple(p.shape)).astype(np.float32))
                    / math.sqrt(fan_in))
    return model


class Mnist_Logistic(nn.Module):
    def __init__(self):
        super().__init__()
        self.weights = nn.Parameter(torch.from_numpy(
            rng.standard_normal((side * side, 10)).astype(np.float32)) / math.sqrt(side * side))
        self.bias = nn.Parameter(torch.zeros(10))

    def forward(self, xb):
        return xb @ self.weights + self.bias


model = Mnist_Logistic()
print(loss_func(model(x_train[:bs]), y_train[:bs]))


def fit_manual():
    for epoch in range(epochs):
        for i in range((n - 1) // bs + 1):
            start_i = i * bs
            end_i = start_i + bs
            xb = x_train[start_i:end_i]
            yb = y_train[start_i:end_i]
            pred = model(xb)
            loss = loss_func(pred, yb)
            loss.backward()
            with torch.no_grad():
                for p in model.parameters():
                    p -= p.grad * lr
                model.zero_grad()


fit_manual()
print(loss_func(model(x_train[:bs]), y_train[:bs]))


class Mnist_Logistic(nn.Module):
    def __init__(self):
        super().__init__()
        self.lin = nn.Linear(side * side, 10)

    def forward(self, xb):
        return self.lin(xb)


def get_model():
    model = init(Mnist_Logistic(), 1)
    return model, optim.SGD(model.parameters(), lr=lr)


model, opt = get_model()
train_ds = TensorDataset(x_train, y_train)
train_dl = DataLoader(train_ds, batch_size=bs)
for epoch in range(epochs):
    for xb, yb in train_dl:
        pred = model(xb)
        loss = loss_func(pred, yb)
        loss.backward()
        opt.step()
        opt.zero_grad()
print(loss_func(model(x_train[:bs]), y_train[:bs]))
valid_ds = TensorDataset(x_valid, y_valid)


def get_data(train_ds, valid_ds, bs):
    return (DataLoader(train_ds, batch_size=bs, shuffle=False),
            DataLoader(valid_ds, batch_size=bs * 2))


def loss_batch(model, loss_func, xb, yb, opt=None):
    loss = loss_func(model(xb), yb)
    if opt is not None:
        loss.backward()
        opt.step()
        opt.zero_grad()
    return loss.item(), len(xb)


def fit(epochs, model, loss_func, opt, train_dl, valid_dl):
    for epoch in range(epochs):
        model.train()
        for xb, yb in train_dl:
            loss_batch(model, loss_func, xb, yb, opt)
        model.eval()
        with torch.no_grad():
            losses, nums = zip(*[loss_batch(model, loss_func, xb, yb) for xb, yb in valid_dl])
        val_loss = np.sum(np.multiply(losses, nums)) / np.sum(nums)
        print(epoch, round(float(val_loss), 5))


train_dl, valid_dl = get_data(train_ds, valid_ds, bs)
model, opt = get_model()
fit(epochs, model, loss_func, opt, train_dl, valid_dl)


class Lambda(nn.Module):
    def __init__(self, func):
        super().__init__()
        self.func = func

    def forward(self, x):
        return self.func(x)


def preprocess(x):
    return x.view(-1, 1, side, side)


class Mnist_CNN(nn.Module):
    def __init__(self):
        super().__init__()
        self.conv1 = nn.Conv2d(1, 8, kernel_size=3, stride=2, padding=1)
        self.conv2 = nn.Conv2d(8, 8, kernel_size=3, stride=2, padding=1)
        self.conv3 = nn.Conv2d(8, 10, kernel_size=3, stride=2, padding=1)

    def forward(self, xb):
        xb = xb.view(-1, 1, side, side)
        xb = F.relu(self.conv1(xb))
        xb = F.relu(self.conv2(xb))
        xb = F.relu(self.conv3(xb))
        xb = F.avg_pool2d(xb, 1)
        return xb.view(-1, xb.size(1))


model = init(Mnist_CNN(), 2)
opt = optim.SGD(model.parameters(), lr=0.1, momentum=0.9)
fit(epochs, model, loss_func, opt, train_dl, valid_dl)
model = init(nn.Sequential(
    Lambda(preprocess),
    nn.Conv2d(1, 8, kernel_size=3, stride=2, padding=1), nn.ReLU(),
    nn.Conv2d(8, 10, kernel_size=3, stride=2, padding=1), nn.ReLU(),
    nn.AvgPool2d(2), Lambda(lambda x: x.view(x.size(0), -1)),
), 3)
opt = optim.SGD(model.parameters(), lr=0.1, momentum=0.9)
fit(epochs, model, loss_func, opt, train_dl, valid_dl)


class WrappedDataLoader:
    def __init__(self, dl, func):
        self.dl = dl
        self.func = func

    def __len__(self):
        return len(self.dl)

    def __iter__(self):
        for b in self.dl:
            yield (self.func(*b))


def preprocess(x, y):
    return x.view(-1, 1, side, side), y


train_dl, valid_dl = get_data(train_ds, valid_ds, bs)
train_dl = WrappedDataLoader(train_dl, preprocess)
valid_dl = WrappedDataLoader(valid_dl, preprocess)
print(len(train_dl), next(iter(valid_dl))[0].shape)
model = init(nn.Sequential(
    nn.Conv2d(1, 8, kernel_size=3, stride=2, padding=1), nn.ReLU(),
    nn.Conv2d(8, 10, kernel_size=3, stride=2, padding=1), nn.ReLU(),
    nn.AdaptiveAvgPool2d(1), Lambda(lambda x: x.view(x.size(0), -1)),
), 4)
opt = optim.SGD(model.parameters(), lr=0.1, momentum=0.9)
fit(epochs, model, loss_func, opt, train_dl, valid_dl)
print(model(torch.zeros(2, 1, 13, 5)).shape)
