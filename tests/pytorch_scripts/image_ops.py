"""Image-processing ops from spatial-transformer and augmentation code: F.pad (constant, reflect,
replicate, circular), F.unfold/F.fold (im2col and back), affine_grid + grid_sample (bilinear, nearest,
padding modes, align_corners), channel normalisation by hand, AvgPool/LPPool/AdaptiveMaxPool, and
flip/rot90 augmentations with gradients."""
import math
import numpy as np
import fluxgrad as torch
import fluxgrad.nn as nn
import fluxgrad.nn.functional as F

rng = np.random.default_rng(67)
img = torch.arange(12.0).view(1, 1, 3, 4)
print(F.pad(img, (1, 1, 0, 1)), F.pad(img, (2, 1, 1, 0), mode="reflect")[0, 0], F.pad(img, (1, 1, 1, 1), mode="replicate")[0, 0])
print(F.pad(img, (1, 2, 1, 0), mode="circular")[0, 0], F.pad(img, (0, 0, 1, 1), value=-1.0).shape, nn.ZeroPad2d(1)(img).shape, nn.ReflectionPad2d((1, 0, 0, 1))(img)[0, 0])
print(nn.ConstantPad1d(2, 3.5)(torch.ones(1, 2)), nn.ReplicationPad1d((0, 2))(torch.tensor([[[1.0, 2.0]]])), F.pad(torch.ones(2, 2), (1, 1)))
try:
    F.pad(img, (2, 1), mode="reflect")
except NotImplementedError:
    print("NotImplementedError: reflect pads the last 2 dims of a 4-d input")
x = torch.arange(32.0).view(1, 2, 4, 4)
cols = F.unfold(x, kernel_size=2, stride=2)
print(cols.shape, cols[0, :, 0])
print(F.fold(cols, output_size=(4, 4), kernel_size=2, stride=2).equal(x))
overlap = F.unfold(x, kernel_size=3, padding=1)
print(overlap.shape, F.fold(overlap, (4, 4), kernel_size=3, padding=1)[0, 0], nn.Unfold(kernel_size=(2, 3), dilation=1, stride=1)(x).shape)
weight = torch.from_numpy(rng.uniform(-1, 1, (3, 2, 2, 2)).astype(np.float32))
conv_by_unfold = (weight.view(3, -1) @ F.unfold(x, 2)).view(1, 3, 3, 3)
print(torch.allclose(conv_by_unfold, F.conv2d(x, weight), atol=1e-4))
theta = torch.tensor([[[math.cos(0.3), -math.sin(0.3), 0.1], [math.sin(0.3), math.cos(0.3), -0.2]]])
grid = F.affine_grid(theta, size=(1, 2, 4, 4), align_corners=False)
print(grid.shape, grid[0, 0, 0], grid[0, 3, 3])
print(F.grid_sample(x, grid, mode="bilinear", padding_mode="zeros", align_corners=False)[0, 0])
print(F.grid_sample(x, grid, mode="nearest", padding_mode="border", align_corners=False)[0, 1])
print(F.grid_sample(x, grid, padding_mode="reflection", align_corners=True)[0, 0, 1])
ident = F.affine_grid(torch.tensor([[[1.0, 0.0, 0.0], [0.0, 1.0, 0.0]]]), [1, 2, 4, 4], align_corners=True)
print(torch.allclose(F.grid_sample(x, ident, align_corners=True), x, atol=1e-5))
xg = x.clone().requires_grad_()
tg = theta.clone().requires_grad_()
out = F.grid_sample(xg, F.affine_grid(tg, (1, 2, 4, 4), align_corners=False), align_corners=False)
out.pow(2).sum().backward()
print(xg.grad[0, 0], tg.grad)
batch = torch.from_numpy(rng.uniform(0, 1, (2, 3, 4, 4)).astype(np.float32))
mean = batch.mean(dim=(0, 2, 3), keepdim=True)
std = batch.std(dim=(0, 2, 3), keepdim=True)
normed = (batch - mean) / std
print(mean.flatten(), std.flatten(), normed.mean(dim=(0, 2, 3)).abs().max() < 1e-5, normed.std(dim=(0, 2, 3)))
print(nn.AvgPool2d(2, stride=1, padding=1, count_include_pad=False)(img)[0, 0], nn.AvgPool2d(3, ceil_mode=True)(torch.arange(25.0).view(1, 1, 5, 5)))
print(nn.LPPool2d(2, 2)(x)[0, 0], nn.AdaptiveMaxPool2d((2, 1))(x)[0, 1], nn.AdaptiveAvgPool2d((3, None))(x).shape, F.adaptive_max_pool1d(torch.arange(6.).view(1, 1, 6), 4))
aug = batch.clone().requires_grad_()
flipped = torch.flip(aug, dims=[3])
rotated = torch.rot90(aug, k=1, dims=[2, 3])
(flipped * torch.arange(4.0) + rotated * 2).sum().backward()
print(flipped[0, 0, 0], rotated[0, 0, :, 0], aug.grad[0, 0])
print(F.normalize(batch[0, 0], p=2, dim=1), F.local_response_norm(batch, size=2)[0, 0, 0], nn.ChannelShuffle(3)(torch.arange(6.0).view(1, 6, 1, 1)).flatten())
