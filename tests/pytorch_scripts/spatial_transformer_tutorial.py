"""The PyTorch "Spatial Transformer Networks" tutorial's model on tiny images: a localisation net
(Conv2d, MaxPool2d, ReLU), fc_loc initialised to the identity transform (weight.data.zero_,
bias.data.copy_), F.affine_grid + F.grid_sample, then a classifier; one SGD step, and the sampler's
padding modes and align_corners on a known image."""
import numpy as np
import fluxgrad as torch
import fluxgrad.nn as nn
import fluxgrad.nn.functional as F

rng = np.random.default_rng(53)


class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.conv1 = nn.Conv2d(1, 4, kernel_size=3)
        self.fc1 = nn.Linear(4 * 5 * 5, 3)
        self.localization = nn.Sequential(
            nn.Conv2d(1, 4, kernel_size=3), nn.MaxPool2d(2, stride=2), nn.ReLU(True),
            nn.Conv2d(4, 5, kernel_size=3), nn.ReLU(True))
        self.fc_loc = nn.Sequential(nn.Linear(5 * 3 * 3, 8), nn.ReLU(True), nn.Linear(8, 3 * 2))
        self.fc_loc[2].weight.data.zero_()
        self.fc_loc[2].bias.data.copy_(torch.tensor([1, 0, 0, 0, 1, 0], dtype=torch.float))

    def stn(self, x):
        xs = self.localization(x)
        xs = xs.view(-1, 5 * 3 * 3)
        theta = self.fc_loc(xs)
        theta = theta.view(-1, 2, 3)
        grid = F.affine_grid(theta, x.size(), align_corners=False)
        return F.grid_sample(x, grid, align_corners=False), theta

    def forward(self, x):
        x, theta = self.stn(x)
        x = F.relu(F.max_pool2d(self.conv1(x), 2))
        x = x.view(-1, 4 * 5 * 5)
        return F.log_softmax(self.fc1(x), dim=1), theta


model = Net()
with torch.no_grad():
    for name, p in model.named_parameters():
        if not name.startswith("fc_loc.2"):
            p.copy_(torch.from_numpy(rng.normal(0, 0.3, tuple(p.shape)).astype(np.float32)))
data = torch.from_numpy(rng.uniform(0, 1, (3, 1, 12, 12)).astype(np.float32))
target = torch.tensor([0, 2, 1])
out, theta = model(data)
print(theta[0])
warped, _ = model.stn(data)
print(torch.allclose(warped, data, atol=1e-5))
optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
loss = F.nll_loss(out, target)
optimizer.zero_grad()
loss.backward()
optimizer.step()
print(round(loss.item(), 5), model.fc_loc[2].bias.data)
out, theta = model(data)
print(theta[1], out.argmax(1))

img = torch.arange(16, dtype=torch.float32).view(1, 1, 4, 4)
theta = torch.tensor([[[0.8, -0.3, 0.4], [0.3, 0.9, -0.5]]])
for align in (False, True):
    grid = F.affine_grid(theta, (1, 1, 4, 4), align_corners=align)
    print(grid[0, 0])
    for mode in ("bilinear", "nearest"):
        for pad in ("zeros", "border", "reflection"):
            y = F.grid_sample(img, grid, mode=mode, padding_mode=pad, align_corners=align)
            print(align, mode, pad, y[0, 0, 0], y.sum().item())
