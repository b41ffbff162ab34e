"""Module introspection and surgery: apply(init_fn) with nn.init (xavier, kaiming, orthogonal-free
constants), named_modules/named_children/named_parameters with prefixes, register_buffer (persistent and
not) in state_dict, parameter counts, requires_grad_(False) freezing then fine-tuning a new head with
only trainable params in the optimizer, replacing a layer by setattr, modules(), and add_module."""
import numpy as np
import fluxgrad as torch
import fluxgrad.nn as nn

rng = np.random.default_rng(47)


class Backbone(nn.Module):
    def __init__(self):
        super().__init__()
        self.features = nn.Sequential(nn.Conv2d(1, 4, 3, padding=1), nn.BatchNorm2d(4), nn.ReLU(),
                                      nn.AdaptiveAvgPool2d(1))
        self.register_buffer("mean", torch.tensor([0.5]))
        self.register_buffer("scratch", torch.zeros(2), persistent=False)

    def forward(self, x):
        return self.features(x - self.mean).flatten(1)


class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.backbone = Backbone()
        self.head = nn.Linear(4, 3)

    def forward(self, x):
        return self.head(self.backbone(x))


net = Net()
print(net)
print([name for name, _ in net.named_modules()])
print([name for name, _ in net.named_children()], [type(m).__name__ for m in net.modules()])
print([(n, tuple(p.shape)) for n, p in net.named_parameters()])
print(list(net.state_dict().keys()))
print([n for n, _ in net.named_buffers()], net.backbone.scratch, net.backbone.mean.requires_grad)
print(sum(p.numel() for p in net.parameters()), sum(p.numel() for p in net.parameters() if p.requires_grad))


def init_weights(m):
    if isinstance(m, nn.Conv2d):
        nn.init.constant_(m.weight, 0.1)
        nn.init.zeros_(m.bias)
    elif isinstance(m, nn.Linear):
        with torch.no_grad():
            m.weight.copy_(torch.from_numpy(rng.uniform(-0.5, 0.5, tuple(m.weight.shape)).astype(np.float32)))
        nn.init.constant_(m.bias, 0.01)
    elif isinstance(m, nn.BatchNorm2d):
        nn.init.ones_(m.weight)
        nn.init.zeros_(m.bias)


print(net.apply(init_weights) is net)
w = torch.empty(3, 5)
print(nn.init.calculate_gain("relu"), nn.init.calculate_gain("leaky_relu", 0.2), nn.init.calculate_gain("tanh"))
print(nn.init.eye_(torch.empty(2, 3)), nn.init.dirac_(torch.empty(2, 2, 3))[1], nn.init.zeros_(w).sum())
torch.manual_seed(0)
xa = nn.init.xavier_uniform_(torch.empty(300, 400))
ka = nn.init.kaiming_normal_(torch.empty(300, 400), mode="fan_out", nonlinearity="relu")
print(xa.abs().max().item() <= (6 / 700) ** 0.5, round(ka.std().item(), 2), round((2 / 300) ** 0.5, 2))
x = torch.from_numpy(rng.standard_normal((2, 1, 5, 5)).astype(np.float32))
print(net(x))
for param in net.backbone.parameters():
    param.requires_grad = False
net.head = nn.Linear(4, 2)
with torch.no_grad():
    net.head.weight.copy_(torch.tensor([[0.1, -0.2, 0.3, 0.4], [0.5, 0.1, -0.1, 0.0]]))
    net.head.bias.zero_()
trainable = [p for p in net.parameters() if p.requires_grad]
print(len(trainable), [n for n, p in net.named_parameters() if p.requires_grad])
optimizer = torch.optim.SGD(filter(lambda p: p.requires_grad, net.parameters()), lr=0.1)
net.backbone.eval()
target = torch.tensor([0, 1])
for step in range(3):
    optimizer.zero_grad()
    loss = nn.functional.cross_entropy(net(x), target)
    loss.backward()
    optimizer.step()
    print(step, round(loss.item(), 5), net.backbone.features[0].weight.grad, net.head.bias.grad is not None)
print(net.backbone.features[1].running_mean, net.backbone.features[1].num_batches_tracked)
net.backbone.requires_grad_(True)
print(all(p.requires_grad for p in net.parameters()), net.backbone.features[0].weight.is_leaf)
net.backbone.features[2] = nn.LeakyReLU(0.1)
net.add_module("extra", nn.Identity())
print(net.backbone.features, hasattr(net, "extra"), net.get_submodule("backbone.features.0").kernel_size)
print(net.get_parameter("head.bias"), net.get_buffer("backbone.mean"))
del net.extra
print([n for n, _ in net.named_children()], len(list(net.buffers())), len(net.state_dict()))
net.zero_grad()
print(net.head.weight.grad)
