"""A two-level U-Net for binary segmentation of toy images: double convs with BatchNorm,
MaxPool2d down, ConvTranspose2d up, skip connections by torch.cat, BCE-with-logits plus a
soft Dice loss, Adam steps, and IoU of the thresholded masks."""
import numpy as np
import fluxgrad as torch
import fluxgrad.nn as nn
import fluxgrad.nn.functional as F

rng = np.random.default_rng(5)


class DoubleConv(nn.Sequential):
    def __init__(self, cin, cout):
        super().__init__(nn.Conv2d(cin, cout, 3, padding=1, bias=False), nn.BatchNorm2d(cout),
                         nn.ReLU(inplace=True), nn.Conv2d(cout, cout, 3, padding=1, bias=False),
                         nn.BatchNorm2d(cout), nn.ReLU(inplace=True))


class UNet(nn.Module):
    def __init__(self, c=4):
        super().__init__()
        self.inc = DoubleConv(1, c)
        self.down = nn.Sequential(nn.MaxPool2d(2), DoubleConv(c, 2 * c))
        self.bottom = nn.Sequential(nn.MaxPool2d(2), DoubleConv(2 * c, 2 * c))
        self.up1 = nn.ConvTranspose2d(2 * c, 2 * c, kernel_size=2, stride=2)
        self.conv1 = DoubleConv(4 * c, 2 * c)
        self.up2 = nn.ConvTranspose2d(2 * c, c, kernel_size=2, stride=2)
        self.conv2 = DoubleConv(2 * c, c)
        self.outc = nn.Conv2d(c, 1, kernel_size=1)

    def forward(self, x):
        x1 = self.inc(x)
        x2 = self.down(x1)
        x3 = self.bottom(x2)
        u = self.up1(x3)
        diff_y, diff_x = x2.size(2) - u.size(2), x2.size(3) - u.size(3)
        u = F.pad(u, [diff_x // 2, diff_x - diff_x // 2, diff_y // 2, diff_y - diff_y // 2])
        u = self.conv1(torch.cat([x2, u], dim=1))
        u = self.conv2(torch.cat([x1, self.up2(u)], dim=1))
        return self.outc(u)


def dice_loss(logits, target, eps=1.0):
    prob = torch.sigmoid(logits)
    inter = (prob * target).sum(dim=(2, 3))
    union = prob.sum(dim=(2, 3)) + target.sum(dim=(2, 3))
    return 1 - ((2 * inter + eps) / (union + eps)).mean()


images = np.zeros((4, 1, 12, 12), np.float32)
masks = np.zeros_like(images)
for i in range(4):
    r, c, s = rng.integers(1, 6), rng.integers(1, 6), rng.integers(3, 6)
    masks[i, 0, r:r + s, c:c + s] = 1
images = masks * 0.8 + rng.normal(0, 0.3, images.shape).astype(np.float32)
x, y = torch.from_numpy(images), torch.from_numpy(masks)

net = UNet()
with torch.no_grad():
    for name, p in net.named_parameters():
        if p.dim() > 1:
            p.copy_(torch.from_numpy(rng.normal(0, 0.3, tuple(p.shape)).astype(np.float32)))
        elif name.endswith("bias"):
            p.fill_(0.01)
print(net.up1, net.outc.weight.shape, sum(p.numel() for p in net.parameters() if p.requires_grad))
opt = torch.optim.Adam(net.parameters(), lr=1e-2)
for step in range(4):
    net.train()
    logits = net(x)
    loss = F.binary_cross_entropy_with_logits(logits, y) + dice_loss(logits, y)
    opt.zero_grad(set_to_none=True)
    loss.backward()
    opt.step()
    print(f"step {step}: loss {loss.item():.5f} out {tuple(logits.shape)}")
net.eval()
with torch.no_grad():
    pred = (torch.sigmoid(net(x)) > 0.5).float()
    inter = (pred * y).sum(dim=(1, 2, 3))
    union = ((pred + y) > 0).float().sum(dim=(1, 2, 3))
    print("IoU", inter / union.clamp(min=1))
    print(pred[0, 0, :6, :6].int())
