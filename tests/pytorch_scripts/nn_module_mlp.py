"""nn.Module subclass, Sequential, ModuleList, parameters, state_dict, train/eval, a training loop."""
import numpy as np
import fluxgrad as torch
import fluxgrad.nn as nn
import fluxgrad.nn.functional as F


def fill(model, seed=0):
    rng = np.random.default_rng(seed)
    with torch.no_grad():
        for p in model.parameters():
            p.copy_(torch.from_numpy(rng.standard_normal(tuple(p.shape)).astype(np.float32) * 0.3))


class NeuralNetwork(nn.Module):
    def __init__(self):
        super().__init__()
        self.flatten = nn.Flatten()
        self.linear_relu_stack = nn.Sequential(
            nn.Linear(4 * 4, 32),
            nn.ReLU(),
            nn.Linear(32, 32),
            nn.ReLU(),
            nn.Linear(32, 3),
        )

    def forward(self, x):
        x = self.flatten(x)
        logits = self.linear_relu_stack(x)
        return logits


model = NeuralNetwork()
fill(model)
print(model)
for name, param in model.named_parameters():
    print(f"Layer: {name} | Size: {param.size()} | Values : {param[:1, :2] if param.dim() > 1 else param[:2]} \n")
print(sum(p.numel() for p in model.parameters()), sum(p.numel() for p in model.parameters() if p.requires_grad))
rng = np.random.default_rng(1)
X = torch.from_numpy(rng.standard_normal((8, 4, 4)).astype(np.float32))
Y = torch.from_numpy(rng.integers(0, 3, 8))
logits = model(X)
pred_probab = nn.Softmax(dim=1)(logits)
y_pred = pred_probab.argmax(1)
print(f"Predicted class: {y_pred}")
loss_fn = nn.CrossEntropyLoss()
optimizer = torch.optim.SGD(model.parameters(), lr=0.1, momentum=0.9)
model.train()
for epoch in range(5):
    pred = model(X)
    loss = loss_fn(pred, Y)
    loss.backward()
    optimizer.step()
    optimizer.zero_grad()
    print(f"loss: {loss.item():>7f}")
model.eval()
with torch.no_grad():
    pred = model(X)
    correct = (pred.argmax(1) == Y).type(torch.float).sum().item()
print(correct, model.training, model.linear_relu_stack[0].training)
sd = model.state_dict()
print(list(sd.keys()), sd["linear_relu_stack.0.weight"].shape)
model2 = NeuralNetwork()
print(model2.load_state_dict(sd))
print(torch.equal(model2(X), model(X)))


class Stack(nn.Module):
    def __init__(self, n):
        super().__init__()
        self.layers = nn.ModuleList([nn.Linear(3, 3) for _ in range(n)])
        self.scale = nn.Parameter(torch.ones(1))
        self.register_buffer("offset", torch.zeros(3))

    def forward(self, x):
        for layer in self.layers:
            x = F.relu(layer(x)) + self.offset
        return x * self.scale


s = Stack(2)
fill(s, 3)
print(len(s.layers), [n for n, _ in s.named_parameters()], [n for n, _ in s.named_buffers()])
print(s(torch.ones(2, 3)), list(s.state_dict().keys()))
print([type(m).__name__ for m in s.modules()], [n for n, _ in s.named_children()])
s.requires_grad_(False)
print(all(not p.requires_grad for p in s.parameters()))
s.zero_grad()
s.apply(lambda m: nn.init.zeros_(m.bias) if isinstance(m, nn.Linear) else None)
print(s.layers[0].bias, s.layers[1].weight.dtype)
s.double()
print(s.layers[1].weight.dtype, s(torch.ones(1, 3, dtype=torch.float64)).dtype)
seq = nn.Sequential(nn.Linear(2, 2), nn.Tanh())
seq.add_module("out", nn.Linear(2, 1))
print(seq, len(seq), seq[-1].out_features, seq[0:2])
od = nn.Sequential()
from collections import OrderedDict
od = nn.Sequential(OrderedDict([("fc", nn.Linear(2, 2)), ("act", nn.Sigmoid())]))
print(od.fc.in_features, nn.ModuleDict({"a": nn.ReLU()})["a"])
