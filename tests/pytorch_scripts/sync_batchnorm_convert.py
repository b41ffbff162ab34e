"""Converting a model's BatchNorm layers to SyncBatchNorm before DDP, run on one process (no
process group): the converted model is the same model (same modules order, the parameters and
running statistics carried over), trains like BatchNorm, and its state_dict loads back into the
BatchNorm model."""
import numpy as np
import fluxgrad as torch
import fluxgrad.nn as nn
import fluxgrad.nn.functional as F


class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.conv = nn.Conv2d(3, 4, 3, padding=1, bias=False)
        self.bn = nn.BatchNorm2d(4)
        self.head = nn.Sequential(nn.Flatten(), nn.Linear(4 * 4 * 4, 8, bias=False), nn.BatchNorm1d(8, momentum=0.3), nn.ReLU(), nn.Linear(8, 2))

    def forward(self, x):
        return self.head(F.relu(self.bn(self.conv(x))))


rng = np.random.default_rng(11)
net = Net()
with torch.no_grad():
    for p in net.parameters():
        p.copy_(torch.from_numpy(rng.uniform(-0.4, 0.4, tuple(p.shape)).astype(np.float32)))
    net.bn.running_mean.fill_(0.5)
sync = nn.SyncBatchNorm.convert_sync_batchnorm(net)
print(sync)
print(type(sync.bn).__name__, type(sync.head[2]).__name__, sync is net)
print(sync.bn.running_mean, sync.head[2].momentum, sync.bn.weight.requires_grad)
print(list(sync.state_dict().keys()))
print(isinstance(sync.bn, nn.modules.batchnorm._BatchNorm), nn.SyncBatchNorm(5, eps=1e-3))

x = torch.from_numpy(rng.standard_normal((6, 3, 4, 4)).astype(np.float32))
y = torch.tensor([0, 1, 1, 0, 1, 0])
opt = torch.optim.Adam(sync.parameters(), lr=0.01)
for step in range(4):
    opt.zero_grad()
    loss = F.cross_entropy(sync(x), y)
    loss.backward()
    opt.step()
    print(step, f"{loss.item():.5f}")
print(sync.bn.num_batches_tracked, sync.bn.running_var)
sync.eval()
with torch.no_grad():
    print(sync(x[:2]))

plain = Net()
print(plain.load_state_dict(sync.state_dict()))
plain.eval()
with torch.no_grad():
    print(torch.allclose(plain(x), sync(x), atol=1e-6))

frozen = nn.Sequential(nn.Linear(3, 3), nn.BatchNorm1d(3, affine=False, track_running_stats=False))
converted = nn.SyncBatchNorm.convert_sync_batchnorm(frozen)
print(converted, converted[1].running_mean, converted[1].weight)
print(converted[1](torch.tensor([[1.0, 2.0, 3.0], [3.0, 2.0, 5.0]])))
