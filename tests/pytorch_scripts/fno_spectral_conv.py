"""A Fourier Neural Operator layer as in the FNO reference code (Li et al.): SpectralConv1d and
SpectralConv2d with complex weights (torch.cfloat Parameters scaled by 1 / (in * out)), rfft /
rfftn, a complex einsum over the kept modes written into a zeros(..., dtype=torch.cfloat) buffer,
irfft back with the input size, a 1x1 Conv1d bypass with GELU, and Adam steps on a smoothing task
(the complex weights get complex gradients)."""
import numpy as np
import fluxgrad as torch
import fluxgrad.nn as nn
import fluxgrad.nn.functional as F

rng = np.random.default_rng(12)


def complex_param(*shape, scale):
    parts = rng.uniform(0, 1, shape + (2,)).astype(np.float32)
    return nn.Parameter(scale * torch.view_as_complex(torch.from_numpy(parts)))


class SpectralConv1d(nn.Module):
    def __init__(self, in_channels, out_channels, modes):
        super().__init__()
        self.in_channels, self.out_channels, self.modes = in_channels, out_channels, modes
        self.scale = 1 / (in_channels * out_channels)
        self.weights = complex_param(in_channels, out_channels, modes, scale=self.scale)

    def compl_mul1d(self, input, weights):
        return torch.einsum("bix,iox->box", input, weights)

    def forward(self, x):
        batchsize = x.shape[0]
        x_ft = torch.fft.rfft(x)
        out_ft = torch.zeros(batchsize, self.out_channels, x.size(-1) // 2 + 1, dtype=torch.cfloat)
        out_ft[:, :, :self.modes] = self.compl_mul1d(x_ft[:, :, :self.modes], self.weights)
        return torch.fft.irfft(out_ft, n=x.size(-1))


class SpectralConv2d(nn.Module):
    def __init__(self, in_channels, out_channels, modes1, modes2):
        super().__init__()
        self.out_channels, self.modes1, self.modes2 = out_channels, modes1, modes2
        scale = 1 / (in_channels * out_channels)
        self.weights1 = complex_param(in_channels, out_channels, modes1, modes2, scale=scale)
        self.weights2 = complex_param(in_channels, out_channels, modes1, modes2, scale=scale)

    def forward(self, x):
        b, _, h, w = x.shape
        x_ft = torch.fft.rfft2(x)
        out_ft = torch.zeros(b, self.out_channels, h, w // 2 + 1, dtype=torch.cfloat)
        m1, m2 = self.modes1, self.modes2
        out_ft[:, :, :m1, :m2] = torch.einsum("bixy,ioxy->boxy", x_ft[:, :, :m1, :m2], self.weights1)
        out_ft[:, :, -m1:, :m2] = torch.einsum("bixy,ioxy->boxy", x_ft[:, :, -m1:, :m2], self.weights2)
        return torch.fft.irfft2(out_ft, s=(h, w))


class FNO1d(nn.Module):
    def __init__(self, modes, width):
        super().__init__()
        self.fc0 = nn.Linear(2, width)
        self.conv0 = SpectralConv1d(width, width, modes)
        self.w0 = nn.Conv1d(width, width, 1)
        self.conv1 = SpectralConv1d(width, width, modes)
        self.w1 = nn.Conv1d(width, width, 1)
        self.fc1 = nn.Linear(width, 1)

    def forward(self, x):
        grid = torch.linspace(0, 1, x.shape[1]).reshape(1, -1, 1).repeat(x.shape[0], 1, 1)
        x = self.fc0(torch.cat((x, grid), dim=-1)).permute(0, 2, 1)
        x = F.gelu(self.conv0(x) + self.w0(x))
        x = self.conv1(x) + self.w1(x)
        return self.fc1(x.permute(0, 2, 1))


model = FNO1d(modes=4, width=6)
with torch.no_grad():
    for name, p in model.named_parameters():
        if not p.is_complex():
            p.copy_(torch.from_numpy(rng.normal(0, 0.3, tuple(p.shape)).astype(np.float32)))
print([(n, p.dtype, tuple(p.shape)) for n, p in model.named_parameters() if n.startswith("conv0")])
print(sum(p.numel() for p in model.parameters()))

u0 = torch.from_numpy(rng.normal(size=(4, 32, 1)).astype(np.float32))
target = torch.fft.irfft(torch.fft.rfft(u0, dim=1)[:, :5], n=32, dim=1)
optimizer = torch.optim.Adam(model.parameters(), lr=1e-2)
for step in range(4):
    optimizer.zero_grad()
    loss = F.mse_loss(model(u0), target)
    loss.backward()
    optimizer.step()
    print(step, round(loss.item(), 5), model.conv0.weights.grad.dtype, model.conv0.weights.grad.abs().sum().item())
print(model.conv1.weights[0, 0])

layer = SpectralConv2d(2, 3, 3, 2)
img = torch.from_numpy(rng.normal(size=(2, 2, 8, 8)).astype(np.float32)).requires_grad_()
out = layer(img)
out.square().mean().backward()
print(out.shape, out.dtype, out.abs().sum().item(), img.grad.abs().sum().item(), layer.weights2.grad.abs().sum().item())
