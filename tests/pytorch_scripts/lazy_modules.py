"""Lazy layers the way the tutorials use them: a CNN whose in_features / in_channels /
num_features are inferred from a dry run, the reprs before and after, the classes they become,
parameter counts, re-initialising with model.apply after the dry run, a short training loop, and
a checkpoint loaded into a lazy model that was never called."""
import numpy as np
import fluxgrad as torch
import fluxgrad.nn as nn
import fluxgrad.nn.functional as F

torch.manual_seed(0)
rng = np.random.default_rng(5)

lin = nn.LazyLinear(4)
print(lin)
print(lin.out_features, lin.in_features)
y = lin(torch.ones(3, 7))
print(lin, type(lin).__name__, y.shape, lin.weight.shape, lin.bias.shape)
print(isinstance(lin, nn.Linear), lin.weight.requires_grad)

model = nn.Sequential(
    nn.LazyConv2d(6, kernel_size=3, padding=1),
    nn.LazyBatchNorm2d(),
    nn.ReLU(),
    nn.MaxPool2d(2),
    nn.LazyConv2d(8, 3),
    nn.Flatten(),
    nn.LazyLinear(16),
    nn.ReLU(),
    nn.LazyLinear(3),
)
print(model)
x = torch.from_numpy(rng.standard_normal((4, 2, 10, 10)).astype(np.float32))
print(model(x).shape)
print(model)
print([type(m).__name__ for m in model])
print([(name, tuple(p.shape)) for name, p in model.named_parameters()])
print(sum(p.numel() for p in model.parameters()))
print([name for name, _ in model.named_buffers()])


def init_weights(m):
    if isinstance(m, (nn.Conv2d, nn.Linear)):
        w = rng.uniform(-0.3, 0.3, tuple(m.weight.shape)).astype(np.float32)
        with torch.no_grad():
            m.weight.copy_(torch.from_numpy(w))
            nn.init.constant_(m.bias, 0.05)
    elif isinstance(m, nn.BatchNorm2d):
        nn.init.ones_(m.weight)
        nn.init.zeros_(m.bias)
        m.reset_running_stats()


model.apply(init_weights)
opt = torch.optim.SGD(model.parameters(), lr=0.05, momentum=0.9)
labels = torch.tensor([0, 2, 1, 2])
for step in range(5):
    opt.zero_grad()
    loss = F.cross_entropy(model(x), labels)
    loss.backward()
    opt.step()
    print(step, round(loss.item(), 4))
model.eval()
print(model[1].running_mean, model[1].num_batches_tracked)
print(model(x[:1]).argmax(1))

conv1d = nn.LazyConv1d(5, kernel_size=2, bias=False)
print(conv1d(torch.ones(2, 3, 6)).shape, conv1d.weight.shape, conv1d.bias, conv1d)
deconv = nn.LazyConvTranspose2d(2, kernel_size=2, stride=2)
print(deconv(torch.ones(1, 4, 3, 3)).shape, deconv.weight.shape, deconv)
bn1 = nn.LazyBatchNorm1d(momentum=0.5)
out = bn1(torch.arange(12.0).view(4, 3))
print(bn1, bn1.running_mean, out[0])

checkpoint = model.state_dict()
fresh = nn.Sequential(nn.LazyConv2d(6, kernel_size=3, padding=1), nn.LazyBatchNorm2d(), nn.ReLU(), nn.MaxPool2d(2), nn.LazyConv2d(8, 3), nn.Flatten(), nn.LazyLinear(16), nn.ReLU(), nn.LazyLinear(3))
print(fresh.load_state_dict(checkpoint))
fresh.eval()
print(torch.equal(fresh(x), model(x)), fresh[6], fresh[1].running_mean)
