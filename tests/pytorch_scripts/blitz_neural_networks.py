"""'60 minute blitz: Neural Networks': LeNet on 32x32 inputs with max_pool2d, num_flat_features,
the parameter list, a forward pass, zero_grad and backward with random gradients, MSELoss
against a dummy target, conv1.bias.grad before and after backward, the manual SGD update
through .data and then torch.optim.SGD."""
import numpy as np
import fluxgrad as torch
import fluxgrad.nn as nn
import fluxgrad.nn.functional as F

rng = np.random.default_rng(4)


class Net(nn.Module):
    def __init__(self):
        super(Net, self).__init__()
        self.conv1 = nn.Conv2d(1, 6, 5)
        self.conv2 = nn.Conv2d(6, 16, 5)
        self.fc1 = nn.Linear(16 * 5 * 5, 120)
        self.fc2 = nn.Linear(120, 84)
        self.fc3 = nn.Linear(84, 10)

    def forward(self, x):
        x = F.max_pool2d(F.relu(self.conv1(x)), (2, 2))
        x = F.max_pool2d(F.relu(self.conv2(x)), 2)
        x = x.view(-1, self.num_flat_features(x))
        x = F.relu(self.fc1(x))
        x = F.relu(self.fc2(x))
        x = self.fc3(x)
        return x

    def num_flat_features(self, x):
        size = x.size()[1:]
        num_features = 1
        for s in size:
            num_features *= s
        return num_features


net = Net()
with torch.no_grad():
    for p in net.parameters():
        fan_in = p[0].numel() if p.dim() > 1 else p.numel()
        p.copy_(torch.from_numpy(rng.uniform(-1, 1, tuple(p.shape)).astype(np.float32))
                / fan_in ** 0.5)
print(net)
params = list(net.parameters())
print(len(params))
print(params[0].size())
print([tuple(p.shape) for p in params])
input = torch.from_numpy(rng.standard_normal((1, 1, 32, 32)).astype(np.float32))
out = net(input)
print(out)
net.zero_grad()
out.backward(torch.from_numpy(rng.standard_normal((1, 10)).astype(np.float32)))
print(net.conv1.bias.grad)
output = net(input)
target = torch.from_numpy(rng.standard_normal(10).astype(np.float32))
target = target.view(1, -1)
criterion = nn.MSELoss()
loss = criterion(output, target)
print(loss)
print(loss.grad_fn is not None, len(loss.grad_fn.next_functions) > 0)
net.zero_grad()
print("conv1.bias.grad before backward")
print(net.conv1.bias.grad)
loss.backward()
print("conv1.bias.grad after backward")
print(net.conv1.bias.grad)
learning_rate = 0.01
for f in net.parameters():
    f.data.sub_(f.grad.data * learning_rate)
print(criterion(net(input), target))
optimizer = torch.optim.SGD(net.parameters(), lr=0.01)
for _ in range(5):
    optimizer.zero_grad()
    output = net(input)
    loss = criterion(output, target)
    loss.backward()
    optimizer.step()
    print(round(loss.item(), 5))
