"""Tensor-level image augmentation code (no torchvision): F.pad with constant / reflect / replicate
/ circular modes, random crops from NumPy offsets, horizontal and vertical flips, rot90, roll
(translation with wrap-around), per-channel normalisation with broadcasting, an exact 90-degree
rotation and a shift by F.affine_grid + F.grid_sample, and a cutout mask."""
import numpy as np
import fluxgrad as torch
import fluxgrad.nn.functional as F

img = torch.arange(2 * 4 * 4, dtype=torch.float32).view(1, 2, 4, 4)
print(F.pad(img, (1, 1, 1, 1))[0, 0])
print(F.pad(img, (2, 1, 1, 0), mode="reflect")[0, 0])
print(F.pad(img, (1, 2, 0, 1), mode="replicate")[0, 1])
print(F.pad(img, (1, 1, 2, 2), mode="circular")[0, 0])
print(F.pad(img, (1, 1), value=-1.0)[0, 0, 0], F.pad(torch.arange(5.0).view(1, 1, 5), (2, 2), mode="reflect"))

rng = np.random.default_rng(8)
padded = F.pad(img, (2, 2, 2, 2), mode="reflect")
top, left = rng.integers(0, 5, 2)
crop = padded[..., top:top + 4, left:left + 4]
print(int(top), int(left), crop.shape, crop[0, 0, 0])
print(img.flip(-1)[0, 0, 0], torch.flip(img, dims=[2])[0, 1, :, 0], torch.fliplr(img[0, 0])[0], torch.flipud(img[0, 0])[:, 0])
print(torch.rot90(img, 1, dims=(2, 3))[0, 0], torch.rot90(img, -1, (2, 3))[0, 0, 0], torch.rot90(img, 2, (2, 3))[0, 0, 0])
print(torch.roll(img, shifts=1, dims=3)[0, 0, 0], torch.roll(img, shifts=(1, -1), dims=(2, 3))[0, 0], torch.roll(torch.arange(6), 2))

mean = torch.tensor([10.0, 20.0]).view(1, 2, 1, 1)
std = torch.tensor([2.0, 4.0])[None, :, None, None]
normed = (img - mean) / std
print(normed[0, :, 0, 0], normed.mean(dim=(0, 2, 3)), img.mean(dim=(0, 2, 3)), img.std(dim=(0, 2, 3)))

theta = torch.tensor([[[0.0, -1.0, 0.0], [1.0, 0.0, 0.0]]])
grid = F.affine_grid(theta, img.shape, align_corners=False)
rotated = F.grid_sample(img, grid, mode="bilinear", align_corners=False)
print(grid.shape, torch.allclose(rotated, torch.rot90(img, 1, (2, 3)), atol=1e-4) or torch.allclose(rotated, torch.rot90(img, -1, (2, 3)), atol=1e-4))
print(rotated[0, 0])
shift = torch.tensor([[[1.0, 0.0, 0.5], [0.0, 1.0, 0.0]]])
shifted = F.grid_sample(img, F.affine_grid(shift, img.shape, align_corners=False), align_corners=False, padding_mode="zeros")
print(shifted[0, 0])
print(F.grid_sample(img, F.affine_grid(shift, img.shape, align_corners=True), align_corners=True, padding_mode="border", mode="nearest")[0, 1])
zoom = torch.tensor([[[0.5, 0.0, 0.0], [0.0, 0.5, 0.0]]])
print(F.grid_sample(img, F.affine_grid(zoom, (1, 2, 2, 2), align_corners=False), align_corners=False)[0, 0])

cut = torch.ones_like(img)
cy, cx = rng.integers(0, 4, 2)
cut[..., max(cy - 1, 0):cy + 1, max(cx - 1, 0):cx + 1] = 0
print(int(cy), int(cx), (img * cut)[0, 0], cut.sum())
batch = torch.stack([img[0], img[0].flip(-1)])
flip_mask = torch.tensor([True, False])
augmented = torch.where(flip_mask[:, None, None, None], batch.flip(-1), batch)
print(torch.equal(augmented[0], img[0].flip(-1)), torch.equal(augmented[1], img[0].flip(-1)))
