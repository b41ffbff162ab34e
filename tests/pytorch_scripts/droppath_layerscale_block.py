"""timm-style residual blocks: drop_path (stochastic depth) with the keep mask drawn from NumPy and
divided by keep_prob, identity in eval mode, LayerScale (a learned per-channel gamma initialised to
1e-5 * ones), a ConvNeXt block (depthwise 7x7 conv, permute to channels-last, LayerNorm, pointwise
MLP with GELU, permute back), and gradients through the kept and the dropped samples."""
import numpy as np
import fluxgrad as torch
import fluxgrad.nn as nn

rng = np.random.default_rng(127)


def drop_path(x, drop_prob: float = 0., training: bool = False, scale_by_keep: bool = True):
    if drop_prob == 0. or not training:
        return x
    keep_prob = 1 - drop_prob
    shape = (x.shape[0],) + (1,) * (x.ndim - 1)
    random_tensor = torch.from_numpy((rng.uniform(0, 1, shape) < keep_prob).astype(np.float32)).to(x.dtype)
    if keep_prob > 0.0 and scale_by_keep:
        random_tensor.div_(keep_prob)
    return x * random_tensor


class DropPath(nn.Module):
    def __init__(self, drop_prob=None):
        super().__init__()
        self.drop_prob = drop_prob

    def forward(self, x):
        return drop_path(x, self.drop_prob, self.training)

    def extra_repr(self):
        return f"drop_prob={round(self.drop_prob, 3):0.3f}"


class LayerScale(nn.Module):
    def __init__(self, dim, init_values=1e-5, inplace=False):
        super().__init__()
        self.inplace = inplace
        self.gamma = nn.Parameter(init_values * torch.ones(dim))

    def forward(self, x):
        return x.mul_(self.gamma) if self.inplace else x * self.gamma


class ConvNeXtBlock(nn.Module):
    def __init__(self, dim, drop_path=0.0, ls_init=1e-2):
        super().__init__()
        self.dwconv = nn.Conv2d(dim, dim, kernel_size=7, padding=3, groups=dim)
        self.norm = nn.LayerNorm(dim, eps=1e-6)
        self.pwconv1 = nn.Linear(dim, 4 * dim)
        self.act = nn.GELU()
        self.pwconv2 = nn.Linear(4 * dim, dim)
        self.ls = LayerScale(dim, ls_init)
        self.drop_path = DropPath(drop_path) if drop_path > 0. else nn.Identity()

    def forward(self, x):
        shortcut = x
        x = self.dwconv(x)
        x = x.permute(0, 2, 3, 1)
        x = self.pwconv2(self.act(self.pwconv1(self.norm(x))))
        x = self.ls(x)
        x = x.permute(0, 3, 1, 2)
        return shortcut + self.drop_path(x)


block = ConvNeXtBlock(4, drop_path=0.5, ls_init=0.1)
with torch.no_grad():
    for name, p in block.named_parameters():
        if "ls" not in name:
            p.copy_(torch.from_numpy(rng.normal(0, 0.2, tuple(p.shape)).astype(np.float32)))
print(block)
x = torch.from_numpy(rng.normal(0, 1, (4, 4, 5, 5)).astype(np.float32)).requires_grad_()
block.train()
y = block(x)
print((y - x).abs().sum(dim=(1, 2, 3)))
y.sum().backward()
print(block.ls.gamma.grad, x.grad[:, 0, 0, 0])
block.eval()
with torch.no_grad():
    z = block(x)
print(z[0, 0, 0], torch.allclose(z, block(x)))
t = torch.ones(3, 2)
print(drop_path(t, 0.3, training=True), drop_path(t, 0.3, training=False) is t)
ls = LayerScale(2, 1e-5, inplace=True)
u = torch.ones(3, 2)
print(ls(u) is u, u)
