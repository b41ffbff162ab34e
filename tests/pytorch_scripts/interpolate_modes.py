"""Resizing images and feature maps with F.interpolate and nn.Upsample: every mode
(nearest, nearest-exact, linear, bilinear, bicubic, trilinear, area), align_corners True/False,
size vs scale_factor, recompute_scale_factor, downsampling, and gradients through the resize, as
segmentation / super-resolution code uses them."""
import numpy as np
import fluxgrad as torch
import fluxgrad.nn as nn
import fluxgrad.nn.functional as F

torch.set_printoptions(precision=4)
img = torch.arange(16, dtype=torch.float32).view(1, 1, 4, 4)
print(F.interpolate(img, scale_factor=2, mode="nearest")[0, 0, :3])
print(F.interpolate(img, size=(3, 3), mode="nearest")[0, 0])
print(F.interpolate(img, size=(3, 3), mode="nearest-exact")[0, 0])
print(F.interpolate(img, size=(6, 6), mode="nearest-exact")[0, 0, 1])
print(F.interpolate(img, size=(5, 5), mode="bilinear", align_corners=False)[0, 0])
print(F.interpolate(img, size=(5, 5), mode="bilinear", align_corners=True)[0, 0])
print(F.interpolate(img, scale_factor=1.5, mode="bilinear", align_corners=False).shape)
print(F.interpolate(img, scale_factor=1.5, mode="bilinear", recompute_scale_factor=True)[0, 0, 0])
print(F.interpolate(img, scale_factor=1.5, mode="bilinear")[0, 0, 0])
print(F.interpolate(img, size=(6, 6), mode="bicubic", align_corners=False)[0, 0, 2])
print(F.interpolate(img, size=(6, 6), mode="bicubic", align_corners=True)[0, 0, 2])
print(F.interpolate(img, size=(2, 2), mode="area")[0, 0], F.interpolate(img, size=(3, 3), mode="area")[0, 0])
print(F.interpolate(img, size=(2, 2), mode="bilinear")[0, 0], F.interpolate(img, scale_factor=0.5, mode="nearest")[0, 0])

seq = torch.tensor([[[0.0, 1.0, 4.0, 9.0]]])
print(F.interpolate(seq, size=7, mode="linear", align_corners=True))
print(F.interpolate(seq, size=7, mode="linear"))
print(F.interpolate(seq, scale_factor=2, mode="nearest"), F.interpolate(seq, size=3, mode="nearest-exact"))
vol = torch.arange(8.0).view(1, 1, 2, 2, 2)
print(F.interpolate(vol, scale_factor=2, mode="trilinear", align_corners=False)[0, 0, 1])
print(F.interpolate(vol, size=(3, 3, 3), mode="trilinear", align_corners=True)[0, 0, 1])

up = nn.Upsample(scale_factor=2, mode="bilinear", align_corners=True)
print(up, up(img).shape, up(img)[0, 0, -1])
print(nn.Upsample(size=(3, 5), mode="nearest"), nn.Upsample(size=(3, 5))(img)[0, 0])
print(nn.UpsamplingBilinear2d(scale_factor=2)(img)[0, 0, 1], nn.UpsamplingNearest2d(size=6)(img).shape)

rng = np.random.default_rng(3)
feat = torch.from_numpy(rng.standard_normal((2, 3, 5, 7)).astype(np.float32)).requires_grad_()
for mode, corners in [("bilinear", False), ("bilinear", True), ("bicubic", False), ("nearest", None), ("nearest-exact", None), ("area", None)]:
    out = F.interpolate(feat, size=(8, 4), mode=mode, align_corners=corners)
    (out * torch.linspace(-1, 1, 4)).pow(2).sum().backward()
    print(mode, corners, f"{out.sum().item():.4f}", feat.grad[1, 2, :2, :3])
    feat.grad = None
