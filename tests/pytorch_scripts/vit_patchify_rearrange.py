"""Vision-Transformer plumbing written without einops, as in ViT reference ports: patchify by
reshape/permute (b c (h p1) (w p2) -> b (h w) (p1 p2 c)) checked against a stride-p Conv2d patch
embedding and F.unfold, the class token concatenated with expand, learned positional embeddings
resized with F.interpolate(mode='bicubic', align_corners=False) for a larger image, unpatchify back
to pixels, MAE-style random masking with argsort of NumPy noise, and gather of the kept patches."""
import numpy as np
import fluxgrad as torch
import fluxgrad.nn as nn
import fluxgrad.nn.functional as F

rng = np.random.default_rng(101)
B, C, H, W, p, D = 2, 3, 8, 8, 4, 5
imgs = torch.from_numpy(rng.normal(0, 1, (B, C, H, W)).astype(np.float32))


def patchify(imgs, p):
    h = w = imgs.shape[2] // p
    x = imgs.reshape(shape=(imgs.shape[0], 3, h, p, w, p))
    x = torch.einsum("nchpwq->nhwpqc", x)
    return x.reshape(shape=(imgs.shape[0], h * w, p ** 2 * 3))


def unpatchify(x, p):
    h = w = int(x.shape[1] ** .5)
    x = x.reshape(shape=(x.shape[0], h, w, p, p, 3))
    x = torch.einsum("nhwpqc->nchpwq", x)
    return x.reshape(shape=(x.shape[0], 3, h * p, h * p))


patches = patchify(imgs, p)
print(patches.shape, torch.equal(unpatchify(patches, p), imgs))
manual = imgs.view(B, C, H // p, p, W // p, p).permute(0, 2, 4, 3, 5, 1).reshape(B, -1, p * p * C)
print(torch.equal(manual, patches))
unf = F.unfold(imgs, kernel_size=p, stride=p).transpose(1, 2)
print(unf.shape, torch.allclose(unf.reshape(B, 4, C, p, p).permute(0, 1, 3, 4, 2).reshape(B, 4, -1), patches))

proj = nn.Conv2d(C, D, kernel_size=p, stride=p)
with torch.no_grad():
    proj.weight.copy_(torch.from_numpy(rng.normal(0, 0.2, (D, C, p, p)).astype(np.float32)))
    proj.bias.zero_()
tokens = proj(imgs).flatten(2).transpose(1, 2)
linear = unf @ proj.weight.reshape(D, -1).t()
print(tokens.shape, torch.allclose(tokens, linear, atol=1e-5))

cls_token = nn.Parameter(torch.zeros(1, 1, D))
pos_embed = nn.Parameter(torch.from_numpy(rng.normal(0, 0.02, (1, 1 + 4, D)).astype(np.float32)))
x = torch.cat((cls_token.expand(B, -1, -1), tokens), dim=1) + pos_embed
print(x.shape, x[0, 0])

grid = pos_embed[:, 1:].reshape(1, 2, 2, D).permute(0, 3, 1, 2)
for mode in ("bicubic", "bilinear"):
    resized = F.interpolate(grid, size=(3, 3), mode=mode, align_corners=False)
    new_pos = torch.cat([pos_embed[:, :1], resized.permute(0, 2, 3, 1).reshape(1, 9, D)], dim=1)
    print(mode, new_pos.shape, new_pos[0, 1:4, 0])

len_keep = 2
noise = torch.from_numpy(rng.uniform(0, 1, (B, 4)).astype(np.float32))
ids_shuffle = torch.argsort(noise, dim=1)
ids_restore = torch.argsort(ids_shuffle, dim=1)
ids_keep = ids_shuffle[:, :len_keep]
x_masked = torch.gather(tokens, dim=1, index=ids_keep.unsqueeze(-1).repeat(1, 1, D))
mask = torch.ones([B, 4])
mask[:, :len_keep] = 0
mask = torch.gather(mask, dim=1, index=ids_restore)
print(ids_shuffle, ids_restore, mask)
print(x_masked.shape, torch.equal(x_masked[1, 0], tokens[1, ids_keep[1, 0]]))
target = patches
mean = target.mean(dim=-1, keepdim=True)
var = target.var(dim=-1, keepdim=True)
target = (target - mean) / (var + 1.e-6) ** .5
pred = torch.zeros_like(target)
loss = ((pred - target) ** 2).mean(dim=-1)
print(loss, ((loss * mask).sum() / mask.sum()).item())
