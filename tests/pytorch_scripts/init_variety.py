"""torch.nn.init across a model the way weight-init helpers use it: calculate_gain for every
nonlinearity, fan-in / fan-out of Linear and Conv weights, constant_ / zeros_ / ones_ / eye_ /
dirac_ (values printed), and the random initialisers checked the way people check them (bounds of
uniform_, xavier_uniform_ and kaiming_uniform_, the spread of normal inits on large tensors,
trunc_normal_ staying in [a, b], orthogonal_ giving W W^T = I, sparse_ zero counts), each
returning the tensor it filled, and a model.apply(init_weights) pass."""
import math

import fluxgrad as torch
import fluxgrad.nn as nn

torch.manual_seed(0)
for nl in ("linear", "conv2d", "sigmoid", "tanh", "relu", "selu"):
    print(nl, nn.init.calculate_gain(nl))
print(nn.init.calculate_gain("leaky_relu"), nn.init.calculate_gain("leaky_relu", 0.2))
try:
    nn.init.calculate_gain("swish")
except ValueError as e:
    print("ValueError", e)

lin = nn.Linear(20, 30)
conv = nn.Conv2d(4, 6, (3, 5))
print(nn.init._calculate_fan_in_and_fan_out(lin.weight), nn.init._calculate_fan_in_and_fan_out(conv.weight))

w = torch.empty(3, 4)
print(nn.init.constant_(w, 0.3), nn.init.zeros_(w).sum(), nn.init.ones_(w).sum())
print(nn.init.eye_(torch.empty(3, 5)))
d = nn.init.dirac_(torch.empty(4, 2, 3))
print(d[:, :, 1], d.sum())
print(nn.init.dirac_(torch.empty(4, 2, 3, 3), groups=2)[:, :, 1, 1])

big = torch.empty(400, 300)
u = nn.init.uniform_(big, a=-0.2, b=0.3)
print(u is big, bool(u.min() >= -0.2), bool(u.max() < 0.3), round(u.mean().item(), 2))
bound = math.sqrt(6 / (400 + 300))
xu = nn.init.xavier_uniform_(torch.empty(400, 300))
print(bool(xu.abs().max() <= bound), round(xu.abs().max().item() / bound, 2))
xn = nn.init.xavier_normal_(torch.empty(400, 300), gain=2.0)
print(round(xn.std().item() / (2.0 * math.sqrt(2 / 700)), 1))
ku = nn.init.kaiming_uniform_(torch.empty(300, 400), a=math.sqrt(5))
print(bool(ku.abs().max() <= 1 / math.sqrt(400)), round(ku.abs().max().item() * math.sqrt(400), 2))
kn = nn.init.kaiming_normal_(torch.empty(300, 400), mode="fan_out", nonlinearity="relu")
print(round(kn.std().item() / math.sqrt(2 / 300), 1), abs(kn.mean().item()) < 0.01)
nrm = nn.init.normal_(torch.empty(500, 200), mean=1.0, std=0.5)
print(round(nrm.mean().item(), 1), round(nrm.std().item(), 2))
tn = nn.init.trunc_normal_(torch.empty(500, 200), mean=0.0, std=1.0, a=-0.5, b=1.0)
print(bool(tn.min() >= -0.5), bool(tn.max() <= 1.0), round(tn.mean().item(), 1))
orth = nn.init.orthogonal_(torch.empty(4, 6), gain=1.0)
print(torch.allclose(orth @ orth.T, torch.eye(4), atol=1e-5))
orth = nn.init.orthogonal_(torch.empty(6, 3), gain=2.0)
print(torch.allclose(orth.T @ orth, 4 * torch.eye(3), atol=1e-4))
sp = nn.init.sparse_(torch.empty(10, 6), sparsity=0.3)
print((sp == 0).sum(dim=0))


class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.conv = nn.Conv2d(3, 8, 3)
        self.bn = nn.BatchNorm2d(8)
        self.fc = nn.Linear(8, 4)
        self.emb = nn.Embedding(10, 4)


def init_weights(m):
    if isinstance(m, nn.Conv2d):
        nn.init.kaiming_normal_(m.weight, mode="fan_out", nonlinearity="relu")
        nn.init.zeros_(m.bias)
    elif isinstance(m, nn.BatchNorm2d):
        nn.init.constant_(m.weight, 1)
        nn.init.constant_(m.bias, 0)
    elif isinstance(m, nn.Linear):
        nn.init.xavier_uniform_(m.weight, gain=nn.init.calculate_gain("tanh"))
        nn.init.constant_(m.bias, 0.01)
    elif isinstance(m, nn.Embedding):
        nn.init.normal_(m.weight, std=0.02)


net = Net()
net.apply(init_weights)
print(net.conv.bias, net.bn.weight, net.fc.bias, net.fc.weight.requires_grad, net.fc.weight.grad_fn)
print(bool(net.fc.weight.abs().max() <= 5 / 3 * math.sqrt(6 / 12)), net.emb.weight.shape)
