"""Image preprocessing and augmentation by hand, the way Kaggle kernels do without torchvision:
HWC uint8 arrays to CHW float tensors, per-channel normalisation with view(-1, 1, 1), center and
NumPy-chosen random crops, horizontal flips, cutout masks, resizing with interpolate, mixup with a
NumPy-drawn lambda and its two-target loss, CutMix boxes, and test-time augmentation averaging."""
import numpy as np
import fluxgrad as torch
import fluxgrad.nn as nn
import fluxgrad.nn.functional as F

rng = np.random.default_rng(131)
images_np = rng.integers(0, 256, (4, 8, 8, 3), dtype=np.uint8)
x = torch.from_numpy(images_np).permute(0, 3, 1, 2).float().div(255)
print(x.shape, x.dtype, x.is_contiguous(), x[0, :, 0, 0])
mean = torch.tensor([0.485, 0.456, 0.406]).view(-1, 1, 1)
std = torch.tensor([0.229, 0.224, 0.225]).view(-1, 1, 1)
normed = (x - mean) / std
print(normed[1, :, 2, 3], normed.mean(dim=(0, 2, 3)))
center = x[..., 2:6, 2:6]
tops, lefts = rng.integers(0, 3, 4), rng.integers(0, 3, 4)
crops = torch.stack([x[i, :, t:t + 6, l:l + 6] for i, (t, l) in enumerate(zip(tops, lefts))])
print(center.shape, crops.shape, crops[2, 0, 0, :3])
flip = torch.from_numpy(rng.uniform(size=4) < 0.5)
flipped = torch.where(flip.view(-1, 1, 1, 1), x.flip(-1), x)
print(flip, torch.equal(flipped[flip], x[flip].flip(-1)), torch.equal(flipped[~flip], x[~flip]))
cut = torch.ones_like(x)
cy, cx = rng.integers(0, 8, 2)
cut[:, :, max(cy - 2, 0):cy + 2, max(cx - 2, 0):cx + 2] = 0
print(cut[0, 0].sum(), (x * cut).sum() < x.sum())
resized = F.interpolate(x, size=(12, 12), mode="bilinear", align_corners=False)
print(resized.shape, resized[0, 1, 5, :3], F.interpolate(x, scale_factor=0.5, mode="area")[0, 0])
model = nn.Sequential(nn.Conv2d(3, 4, 3, padding=1), nn.ReLU(), nn.AdaptiveAvgPool2d(1), nn.Flatten(), nn.Linear(4, 3))
with torch.no_grad():
    for p in model.parameters():
        p.copy_(torch.from_numpy(rng.uniform(-0.5, 0.5, tuple(p.shape)).astype(np.float32)))
y = torch.tensor([0, 2, 1, 2])
lam = float(rng.beta(0.4, 0.4))
index = torch.from_numpy(rng.permutation(4))
mixed = lam * normed + (1 - lam) * normed[index]
out = model(mixed)
criterion = nn.CrossEntropyLoss(label_smoothing=0.1)
loss = lam * criterion(out, y) + (1 - lam) * criterion(out, y[index])
loss.backward()
print(round(lam, 4), index, loss, model[0].bias.grad)
bbx1, bby1, bbx2, bby2 = 2, 1, 6, 5
cutmix = normed.clone()
cutmix[:, :, bby1:bby2, bbx1:bbx2] = normed[index, :, bby1:bby2, bbx1:bbx2]
lam_adj = 1 - ((bbx2 - bbx1) * (bby2 - bby1) / (8 * 8))
print(lam_adj, torch.equal(cutmix[:, :, 0], normed[:, :, 0]), cutmix[0, 0, 2, 2:4])
model.eval()
with torch.no_grad():
    views = [normed, normed.flip(-1), normed.flip(-2), torch.rot90(normed, 1, (2, 3))]
    probs = torch.stack([F.softmax(model(v), dim=1) for v in views]).mean(0)
print(probs, probs.argmax(1), probs.sum(1))
one_hot = F.one_hot(y, 3).float()
soft_targets = lam * one_hot + (1 - lam) * one_hot[index]
print(soft_targets, F.cross_entropy(model(mixed), soft_targets))
