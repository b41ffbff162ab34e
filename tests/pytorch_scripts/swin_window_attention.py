"""Swin Transformer's window code, as its reference implementation writes it: window_partition and
window_reverse (view, permute, contiguous), the cyclic shift with torch.roll, the attention mask
built by filling slices of an image mask and comparing window ids (masked_fill with -100), and the
relative position index (meshgrid, flatten, broadcast subtraction, permute, sum) gathered from a
bias table."""
import numpy as np
import fluxgrad as torch
import fluxgrad.nn as nn
import fluxgrad.nn.functional as F

rng = np.random.default_rng(17)


def window_partition(x, window_size):
    B, H, W, C = x.shape
    x = x.view(B, H // window_size, window_size, W // window_size, window_size, C)
    return x.permute(0, 1, 3, 2, 4, 5).contiguous().view(-1, window_size, window_size, C)


def window_reverse(windows, window_size, H, W):
    B = int(windows.shape[0] / (H * W / window_size / window_size))
    x = windows.view(B, H // window_size, W // window_size, window_size, window_size, -1)
    return x.permute(0, 1, 3, 2, 4, 5).contiguous().view(B, H, W, -1)


H = W = 4
ws, shift, C, heads = 2, 1, 6, 2
img_mask = torch.zeros((1, H, W, 1))
h_slices = (slice(0, -ws), slice(-ws, -shift), slice(-shift, None))
w_slices = (slice(0, -ws), slice(-ws, -shift), slice(-shift, None))
cnt = 0
for h in h_slices:
    for w in w_slices:
        img_mask[:, h, w, :] = cnt
        cnt += 1
print(img_mask[0, :, :, 0])
mask_windows = window_partition(img_mask, ws).view(-1, ws * ws)
attn_mask = mask_windows.unsqueeze(1) - mask_windows.unsqueeze(2)
attn_mask = attn_mask.masked_fill(attn_mask != 0, float(-100.0)).masked_fill(attn_mask == 0, float(0.0))
print(attn_mask.shape, attn_mask[-1])

coords_h, coords_w = torch.arange(ws), torch.arange(ws)
coords = torch.stack(torch.meshgrid([coords_h, coords_w], indexing="ij"))
coords_flatten = torch.flatten(coords, 1)
relative_coords = coords_flatten[:, :, None] - coords_flatten[:, None, :]
relative_coords = relative_coords.permute(1, 2, 0).contiguous()
relative_coords[:, :, 0] += ws - 1
relative_coords[:, :, 1] += ws - 1
relative_coords[:, :, 0] *= 2 * ws - 1
relative_position_index = relative_coords.sum(-1)
print(relative_position_index)
table = nn.Parameter(torch.from_numpy(rng.normal(0, 0.1, ((2 * ws - 1) ** 2, heads)).astype(np.float32)))
bias = table[relative_position_index.view(-1)].view(ws * ws, ws * ws, -1).permute(2, 0, 1).contiguous()
print(bias.shape, bias[1])

x = torch.from_numpy(rng.normal(0, 1, (2, H, W, C)).astype(np.float32)).requires_grad_()
qkv = nn.Linear(C, 3 * C)
with torch.no_grad():
    qkv.weight.copy_(torch.from_numpy(rng.normal(0, 0.3, (3 * C, C)).astype(np.float32)))
    qkv.bias.zero_()
shifted = torch.roll(x, shifts=(-shift, -shift), dims=(1, 2))
windows = window_partition(shifted, ws).view(-1, ws * ws, C)
B_, N, _ = windows.shape
q, k, v = qkv(windows).reshape(B_, N, 3, heads, C // heads).permute(2, 0, 3, 1, 4)
attn = (q * (C // heads) ** -0.5) @ k.transpose(-2, -1) + bias.unsqueeze(0)
nW = attn_mask.shape[0]
attn = attn.view(B_ // nW, nW, heads, N, N) + attn_mask.unsqueeze(1).unsqueeze(0)
attn = F.softmax(attn.view(-1, heads, N, N), dim=-1)
print(attn[3, 0])
y = (attn @ v).transpose(1, 2).reshape(B_, N, C)
y = window_reverse(y.view(-1, ws, ws, C), ws, H, W)
y = torch.roll(y, shifts=(shift, shift), dims=(1, 2))
print(y.shape, y[1, 3, 3])
print(torch.equal(window_reverse(window_partition(x, ws), ws, H, W), x))
y.pow(2).mean().backward()
print(x.grad[0, 0], table.grad)
