"""'What is torch.nn really?', part 1: a logistic regression on MNIST-shaped data written from
scratch (weights / sqrt(784) with requires_grad_(), log_softmax by hand, nll by fancy indexing,
accuracy, the manual training loop under no_grad with grad.zero_()), then the same with
F.cross_entropy in place of the handwritten pieces."""
import math
import numpy as np
import fluxgrad as torch
import fluxgrad.nn.functional as F

rng = np.random.default_rng(12)
n, d, c = 200, 49, 10
proto = rng.normal(0, 1, (c, d)).astype(np.float32)
labels = rng.integers(0, c, n)
x_train, y_train, x_valid, y_valid = map(
    torch.tensor, (proto[labels[:150]] + rng.normal(0, 1.5, (150, d)).astype(np.float32),
                   labels[:150], proto[labels[150:]] + rng.normal(0, 1.5, (50, d)).astype(np.float32),
                   labels[150:]))
n, c = x_train.shape
print(x_train, y_train)
print(x_train.shape, y_train.min(), y_train.max())
weights = torch.from_numpy(rng.standard_normal((d, 10)).astype(np.float32)) / math.sqrt(d)
weights.requires_grad_()
bias = torch.zeros(10, requires_grad=True)


def log_softmax(x):
    return x - x.exp().sum(-1).log().unsqueeze(-1)


def model(xb):
    return log_softmax(xb @ weights + bias)


bs = 64
xb = x_train[0:bs]
preds = model(xb)
print(preds[0], preds.shape)


def nll(input, target):
    return -input[range(target.shape[0]), target].mean()


loss_func = nll
yb = y_train[0:bs]
print(loss_func(preds, yb))


def accuracy(out, yb):
    preds = torch.argmax(out, dim=1)
    return (preds == yb).float().mean()


print(accuracy(preds, yb))
lr = 0.5
epochs = 2
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
            weights -= weights.grad * lr
            bias -= bias.grad * lr
            weights.grad.zero_()
            bias.grad.zero_()
print(loss_func(model(xb), yb), accuracy(model(xb), yb))
loss_func = F.cross_entropy


def model(xb):
    return xb @ weights + bias


print(loss_func(model(xb), yb), accuracy(model(xb), yb))
print(torch.allclose(F.cross_entropy(model(xb), yb), nll(log_softmax(model(xb)), yb)))
print(accuracy(model(x_valid), y_valid))
