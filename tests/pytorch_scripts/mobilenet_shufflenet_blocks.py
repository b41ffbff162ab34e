"""Efficient-CNN building blocks as torchvision writes them: MobileNetV2's inverted residual
(1x1 expand, 3x3 depthwise with groups=hidden, 1x1 linear projection, ReLU6), a
squeeze-and-excitation block with adaptive_avg_pool2d and Hardsigmoid (MobileNetV3), Hardswish,
ShuffleNet's channel_shuffle (view, transpose, contiguous) next to nn.ChannelShuffle, and
_make_divisible; parameter counts, shapes, outputs and gradients on a tiny input."""
import numpy as np
import fluxgrad as torch
import fluxgrad.nn as nn
import fluxgrad.nn.functional as F

rng = np.random.default_rng(73)


def _make_divisible(v, divisor, min_value=None):
    if min_value is None:
        min_value = divisor
    new_v = max(min_value, int(v + divisor / 2) // divisor * divisor)
    if new_v < 0.9 * v:
        new_v += divisor
    return new_v


class SqueezeExcitation(nn.Module):
    def __init__(self, input_channels, squeeze_channels):
        super().__init__()
        self.avgpool = nn.AdaptiveAvgPool2d(1)
        self.fc1 = nn.Conv2d(input_channels, squeeze_channels, 1)
        self.fc2 = nn.Conv2d(squeeze_channels, input_channels, 1)
        self.activation = nn.ReLU()
        self.scale_activation = nn.Hardsigmoid()

    def forward(self, input):
        scale = self.scale_activation(self.fc2(self.activation(self.fc1(self.avgpool(input)))))
        return scale * input


class InvertedResidual(nn.Module):
    def __init__(self, inp, oup, stride, expand_ratio):
        super().__init__()
        hidden_dim = int(round(inp * expand_ratio))
        self.use_res_connect = stride == 1 and inp == oup
        self.conv = nn.Sequential(
            nn.Conv2d(inp, hidden_dim, 1, 1, 0, bias=False), nn.BatchNorm2d(hidden_dim), nn.ReLU6(inplace=True),
            nn.Conv2d(hidden_dim, hidden_dim, 3, stride, 1, groups=hidden_dim, bias=False),
            nn.BatchNorm2d(hidden_dim), nn.Hardswish(inplace=True),
            SqueezeExcitation(hidden_dim, _make_divisible(hidden_dim // 4, 8)),
            nn.Conv2d(hidden_dim, oup, 1, 1, 0, bias=False), nn.BatchNorm2d(oup))

    def forward(self, x):
        return x + self.conv(x) if self.use_res_connect else self.conv(x)


def channel_shuffle(x, groups):
    batchsize, num_channels, height, width = x.size()
    channels_per_group = num_channels // groups
    x = x.view(batchsize, groups, channels_per_group, height, width)
    x = torch.transpose(x, 1, 2).contiguous()
    return x.view(batchsize, num_channels, height, width)


print([_make_divisible(v, 8) for v in (3, 12, 17.5, 30, 100)])
net = nn.Sequential(InvertedResidual(4, 4, 1, 4), InvertedResidual(4, 6, 2, 3))
with torch.no_grad():
    for name, p in net.named_parameters():
        p.copy_(torch.from_numpy(rng.normal(0, 0.3, tuple(p.shape)).astype(np.float32)))
print(sum(p.numel() for p in net.parameters()), net[0].use_res_connect, net[1].use_res_connect)
print(net[0].conv[3])
x = torch.from_numpy(rng.normal(0, 1, (2, 4, 6, 6)).astype(np.float32)).requires_grad_()
net.train()
y = net(x)
print(y.shape, y[0, :, 0, 0])
y.abs().sum().backward()
print(x.grad[1, 2, 0], net[0].conv[3].weight.grad[0, 0])
net.eval()
print(net(x)[1, :, 1, 1])
z = torch.arange(2 * 6 * 1 * 2, dtype=torch.float32).view(2, 6, 1, 2)
print(channel_shuffle(z, 3)[0, :, 0, 0], torch.equal(channel_shuffle(z, 3), nn.ChannelShuffle(3)(z)))
print(F.hardswish(torch.linspace(-4, 4, 9)), F.hardsigmoid(torch.linspace(-4, 4, 9)), F.relu6(torch.linspace(-2, 8, 6)))
