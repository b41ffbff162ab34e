"""d2l.ai's softmax regression from scratch: softmax by exp/sum with keepdim, cross_entropy by fancy
indexing y_hat[range(len(y_hat)), y], an Accumulator, accuracy with argmax and type casts, updater
with manual sgd; then the concise version with CrossEntropyLoss(reduction='none')."""
import numpy as np
import fluxgrad as torch
from fluxgrad import nn

rng = np.random.default_rng(1)
num_inputs, num_outputs = 6, 3
X_all = torch.from_numpy(rng.normal(size=(60, num_inputs)).astype(np.float32))
centers = torch.from_numpy(rng.normal(scale=2.0, size=(num_outputs, num_inputs)).astype(np.float32))
y_all = torch.cdist(X_all, centers).argmin(dim=1)
print(y_all[:10], y_all.dtype, torch.bincount(y_all))
W = torch.from_numpy(rng.normal(0, 0.01, (num_inputs, num_outputs)).astype(np.float32)).requires_grad_()
b = torch.zeros(num_outputs, requires_grad=True)
X = torch.tensor([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]])
print(X.sum(0, keepdim=True), X.sum(1, keepdim=True))


def softmax(X):
    X_exp = torch.exp(X)
    partition = X_exp.sum(1, keepdim=True)
    return X_exp / partition


X_prob = softmax(torch.from_numpy(rng.normal(size=(2, 5)).astype(np.float32)))
print(X_prob, X_prob.sum(1))


def net(X):
    return softmax(torch.matmul(X.reshape((-1, W.shape[0])), W) + b)


y = torch.tensor([0, 2])
y_hat = torch.tensor([[0.1, 0.3, 0.6], [0.3, 0.2, 0.5]])
print(y_hat[[0, 1], y])


def cross_entropy(y_hat, y):
    return -torch.log(y_hat[range(len(y_hat)), y])


print(cross_entropy(y_hat, y))


def accuracy(y_hat, y):
    if len(y_hat.shape) > 1 and y_hat.shape[1] > 1:
        y_hat = y_hat.argmax(axis=1)
    cmp = y_hat.type(y.dtype) == y
    return float(cmp.type(y.dtype).sum())


print(accuracy(y_hat, y) / len(y))


class Accumulator:
    def __init__(self, n):
        self.data = [0.0] * n

    def add(self, *args):
        self.data = [a + float(b) for a, b in zip(self.data, args)]

    def __getitem__(self, idx):
        return self.data[idx]


def updater(batch_size, lr=0.1):
    with torch.no_grad():
        for param in [W, b]:
            param -= lr * param.grad / batch_size
            param.grad.zero_()


for epoch in range(3):
    metric = Accumulator(3)
    for X, y in zip(X_all.split(20), y_all.split(20)):
        y_hat = net(X)
        l = cross_entropy(y_hat, y)
        l.sum().backward()
        updater(X.shape[0])
        metric.add(float(l.sum()), accuracy(y_hat, y), y.numel())
    print(f"epoch {epoch + 1}: loss {metric[0] / metric[2]:.4f}, train acc {metric[1] / metric[2]:.3f}")
preds = net(X_all[:6]).argmax(axis=1)
print(preds, y_all[:6], (preds == y_all[:6]).float().mean())
net2 = nn.Sequential(nn.Flatten(), nn.Linear(num_inputs, num_outputs))


def init_weights(m):
    if type(m) == nn.Linear:
        with torch.no_grad():
            m.weight.copy_(torch.from_numpy(rng.normal(0, 0.01, tuple(m.weight.shape)).astype(np.float32)))
        nn.init.zeros_(m.bias)


net2.apply(init_weights)
loss = nn.CrossEntropyLoss(reduction="none")
trainer = torch.optim.SGD(net2.parameters(), lr=0.1)
for epoch in range(3):
    for X, y in zip(X_all.split(20), y_all.split(20)):
        l = loss(net2(X), y)
        trainer.zero_grad()
        l.mean().backward()
        trainer.step()
    with torch.no_grad():
        print(epoch, loss(net2(X_all), y_all).mean().item(), accuracy(net2(X_all), y_all))
print(loss(net2(X_all[:3]), y_all[:3]).shape, nn.CrossEntropyLoss(label_smoothing=0.1)(net2(X_all[:3]), y_all[:3]))
print(nn.CrossEntropyLoss()(net2(X_all[:3]), torch.softmax(net2(X_all[:3]).detach() * 2, dim=1)))
