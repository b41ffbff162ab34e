"""d2l.ai's linear regression from scratch: synthetic_data, a shuffled data_iter, a manual sgd that
updates params in place under no_grad and zeroes .grad, then the concise version with nn.Sequential,
weight.data.normal_-style init replaced by NumPy values, and the learned error."""
import random
import numpy as np
import fluxgrad as torch
from fluxgrad import nn
from fluxgrad.utils import data

rng = np.random.default_rng(0)
random.seed(0)


def synthetic_data(w, b, num_examples):
    X = torch.from_numpy(rng.normal(0, 1, (num_examples, len(w))).astype(np.float32))
    y = torch.matmul(X, w) + b
    y += torch.from_numpy(rng.normal(0, 0.01, tuple(y.shape)).astype(np.float32))
    return X, y.reshape((-1, 1))


true_w = torch.tensor([2, -3.4])
true_b = 4.2
features, labels = synthetic_data(true_w, true_b, 100)
print("features:", features[0], "\nlabel:", labels[0])


def data_iter(batch_size, features, labels):
    num_examples = len(features)
    indices = list(range(num_examples))
    random.shuffle(indices)
    for i in range(0, num_examples, batch_size):
        batch_indices = torch.tensor(indices[i: min(i + batch_size, num_examples)])
        yield features[batch_indices], labels[batch_indices]


def linreg(X, w, b):
    return torch.matmul(X, w) + b


def squared_loss(y_hat, y):
    return (y_hat - y.reshape(y_hat.shape)) ** 2 / 2


def sgd(params, lr, batch_size):
    with torch.no_grad():
        for param in params:
            param -= lr * param.grad / batch_size
            param.grad.zero_()


w = torch.from_numpy(rng.normal(0, 0.01, (2, 1)).astype(np.float32)).requires_grad_(True)
b = torch.zeros(1, requires_grad=True)
lr, num_epochs, batch_size = 0.03, 3, 10
net, loss = linreg, squared_loss
for epoch in range(num_epochs):
    for X, y in data_iter(batch_size, features, labels):
        l = loss(net(X, w, b), y)
        l.sum().backward()
        sgd([w, b], lr, batch_size)
    with torch.no_grad():
        train_l = loss(net(features, w, b), labels)
        print(f"epoch {epoch + 1}, loss {float(train_l.mean()):f}")
print(f"error in estimating w: {true_w - w.reshape(true_w.shape)}")
print(f"error in estimating b: {true_b - b}")
print(w.is_leaf, w.requires_grad, w.grad, b.grad_fn)


def load_array(data_arrays, batch_size, is_train=True):
    dataset = data.TensorDataset(*data_arrays)
    return data.DataLoader(dataset, batch_size, shuffle=is_train)


data_iter2 = load_array((features, labels), batch_size, is_train=False)
print(next(iter(data_iter2))[0].shape)
net = nn.Sequential(nn.Linear(2, 1))
net[0].weight.data = torch.from_numpy(rng.normal(0, 0.01, (1, 2)).astype(np.float32))
net[0].bias.data.fill_(0)
loss = nn.MSELoss()
trainer = torch.optim.SGD(net.parameters(), lr=0.03)
for epoch in range(num_epochs):
    for X, y in data_iter2:
        l = loss(net(X), y)
        trainer.zero_grad()
        l.backward()
        trainer.step()
    l = loss(net(features), labels)
    print(f"epoch {epoch + 1}, loss {l:f}")
w = net[0].weight.data
print("error in estimating w:", true_w - w.reshape(true_w.shape))
b = net[0].bias.data
print("error in estimating b:", true_b - b)
print(net[0].weight.requires_grad, net[0].weight.data.requires_grad, type(net[0].weight).__name__)
huber = nn.HuberLoss(delta=0.5)
print(huber(net(features[:5]), labels[:5] + 1), nn.L1Loss(reduction="sum")(net(features[:5]), labels[:5]))
