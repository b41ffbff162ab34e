"""Semantic segmentation training pieces as U-Net tutorials write them: a tiny encoder-decoder with
max_pool2d and F.interpolate (bilinear, align_corners True and False, nearest, scale_factor) and a
skip connection by torch.cat, pixel-wise cross_entropy over [N, C, H, W] with class weights and
ignore_index=255, a soft Dice loss from softmax and one_hot(...).permute(0, 3, 1, 2), a focal
loss, the confusion matrix by bincount, per-class IoU and mean IoU with nan for absent classes,
and pixel accuracy."""
import numpy as np
import fluxgrad as torch
import fluxgrad.nn as nn
import fluxgrad.nn.functional as F

rng = np.random.default_rng(103)
C = 3


class TinyUNet(nn.Module):
    def __init__(self):
        super().__init__()
        self.enc1 = nn.Sequential(nn.Conv2d(1, 4, 3, padding=1), nn.ReLU())
        self.enc2 = nn.Sequential(nn.Conv2d(4, 8, 3, padding=1), nn.ReLU())
        self.dec = nn.Sequential(nn.Conv2d(12, 4, 3, padding=1), nn.ReLU())
        self.out = nn.Conv2d(4, C, 1)

    def forward(self, x):
        e1 = self.enc1(x)
        e2 = self.enc2(F.max_pool2d(e1, 2))
        up = F.interpolate(e2, size=e1.shape[-2:], mode="bilinear", align_corners=False)
        return self.out(self.dec(torch.cat([up, e1], dim=1)))


model = TinyUNet()
with torch.no_grad():
    for p in model.parameters():
        p.copy_(torch.from_numpy(rng.uniform(-0.4, 0.4, tuple(p.shape)).astype(np.float32)))
images = torch.from_numpy(rng.standard_normal((2, 1, 8, 8)).astype(np.float32))
masks = torch.from_numpy(rng.integers(0, C, (2, 8, 8)))
masks[0, :2, :2] = 255
weights = torch.tensor([0.5, 1.0, 2.0])


def dice_loss(logits, target, eps=1.0):
    probs = logits.softmax(dim=1)
    valid = (target != 255).unsqueeze(1)
    one_hot = F.one_hot(target.clamp(max=C - 1), C).permute(0, 3, 1, 2).float() * valid
    probs = probs * valid
    inter = (probs * one_hot).sum(dim=(0, 2, 3))
    union = probs.sum(dim=(0, 2, 3)) + one_hot.sum(dim=(0, 2, 3))
    return 1 - ((2 * inter + eps) / (union + eps)).mean()


def focal_loss(logits, target, gamma=2.0):
    ce = F.cross_entropy(logits, target, ignore_index=255, reduction="none")
    pt = torch.exp(-ce)
    valid = target != 255
    return ((1 - pt) ** gamma * ce)[valid].mean()


opt = torch.optim.Adam(model.parameters(), lr=0.01)
for step in range(4):
    logits = model(images)
    ce = F.cross_entropy(logits, masks, weight=weights, ignore_index=255)
    dice = dice_loss(logits, masks)
    focal = focal_loss(logits, masks)
    loss = ce + dice + 0.5 * focal
    opt.zero_grad()
    loss.backward()
    opt.step()
    print(step, logits.shape, f"{ce.item():.5f}", f"{dice.item():.5f}", f"{focal.item():.5f}")

print(F.cross_entropy(logits, masks, ignore_index=255, reduction="none")[0, :2, :4])
print(nn.CrossEntropyLoss(weight=weights, ignore_index=255, label_smoothing=0.1)(logits, masks))
with torch.no_grad():
    pred = model(images).argmax(dim=1)
valid = masks != 255
conf = torch.bincount(C * masks[valid] + pred[valid], minlength=C * C).reshape(C, C)
print(conf)
inter = conf.diag().float()
union = conf.sum(0).float() + conf.sum(1).float() - inter
iou = inter / union
print(iou, torch.nanmean(iou), (pred[valid] == masks[valid]).float().mean())
iou_absent = torch.tensor([0.5, float("nan"), 0.25])
print(iou_absent.nanmean(), torch.nansum(iou_absent))

x = torch.arange(16, dtype=torch.float32).view(1, 1, 4, 4)
print(F.interpolate(x, scale_factor=2, mode="bilinear", align_corners=True)[0, 0, :3, :4])
print(F.interpolate(x, scale_factor=0.5, mode="bilinear", align_corners=False)[0, 0])
print(F.interpolate(x, size=(3, 5), mode="nearest")[0, 0], F.interpolate(x, size=(6, 6), mode="bicubic", align_corners=False)[0, 0, 0])
print(nn.Upsample(scale_factor=2, mode="nearest")(x).shape, F.interpolate(x[:, :, 0], scale_factor=1.5, mode="linear")[0, 0])
