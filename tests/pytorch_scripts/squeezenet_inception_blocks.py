"""Two classic multi-branch blocks as torchvision defines them: SqueezeNet's Fire module (a 1x1
squeeze, then 1x1 and 3x3 expand branches concatenated on channels) with MaxPool2d(ceil_mode=True)
between fires and a final 1x1 conv classifier with AdaptiveAvgPool; and GoogLeNet's Inception
block (four branches: 1x1, 1x1-3x3, 1x1-3x3 with BasicConv2d = conv + BatchNorm(eps=0.001) + ReLU,
and a 3x3 max pool with padding ceil_mode then 1x1), output channels, parameter counts, and a
training step through both."""
import numpy as np
import fluxgrad as torch
import fluxgrad.nn as nn
import fluxgrad.nn.functional as F

rng = np.random.default_rng(16)


class Fire(nn.Module):
    def __init__(self, inplanes, squeeze_planes, expand1x1_planes, expand3x3_planes):
        super().__init__()
        self.inplanes = inplanes
        self.squeeze = nn.Conv2d(inplanes, squeeze_planes, kernel_size=1)
        self.squeeze_activation = nn.ReLU(inplace=True)
        self.expand1x1 = nn.Conv2d(squeeze_planes, expand1x1_planes, kernel_size=1)
        self.expand1x1_activation = nn.ReLU(inplace=True)
        self.expand3x3 = nn.Conv2d(squeeze_planes, expand3x3_planes, kernel_size=3, padding=1)
        self.expand3x3_activation = nn.ReLU(inplace=True)

    def forward(self, x):
        x = self.squeeze_activation(self.squeeze(x))
        return torch.cat([self.expand1x1_activation(self.expand1x1(x)),
                          self.expand3x3_activation(self.expand3x3(x))], 1)


class BasicConv2d(nn.Module):
    def __init__(self, in_channels, out_channels, **kwargs):
        super().__init__()
        self.conv = nn.Conv2d(in_channels, out_channels, bias=False, **kwargs)
        self.bn = nn.BatchNorm2d(out_channels, eps=0.001)

    def forward(self, x):
        return F.relu(self.bn(self.conv(x)), inplace=True)


class Inception(nn.Module):
    def __init__(self, in_channels, ch1x1, ch3x3red, ch3x3, ch5x5red, ch5x5, pool_proj):
        super().__init__()
        self.branch1 = BasicConv2d(in_channels, ch1x1, kernel_size=1)
        self.branch2 = nn.Sequential(BasicConv2d(in_channels, ch3x3red, kernel_size=1),
                                     BasicConv2d(ch3x3red, ch3x3, kernel_size=3, padding=1))
        self.branch3 = nn.Sequential(BasicConv2d(in_channels, ch5x5red, kernel_size=1),
                                     BasicConv2d(ch5x5red, ch5x5, kernel_size=3, padding=1))
        self.branch4 = nn.Sequential(nn.MaxPool2d(kernel_size=3, stride=1, padding=1, ceil_mode=True),
                                     BasicConv2d(in_channels, pool_proj, kernel_size=1))

    def _forward(self, x):
        return [self.branch1(x), self.branch2(x), self.branch3(x), self.branch4(x)]

    def forward(self, x):
        return torch.cat(self._forward(x), 1)


squeeze = nn.Sequential(
    nn.Conv2d(3, 16, kernel_size=3, stride=2), nn.ReLU(inplace=True),
    nn.MaxPool2d(kernel_size=3, stride=2, ceil_mode=True),
    Fire(16, 4, 8, 8), Fire(16, 4, 8, 8),
    nn.MaxPool2d(kernel_size=3, stride=2, ceil_mode=True),
    Fire(16, 6, 12, 12))
classifier = nn.Sequential(nn.Dropout(p=0.0), nn.Conv2d(24, 4, kernel_size=1), nn.ReLU(inplace=True),
                           nn.AdaptiveAvgPool2d((1, 1)))
inception = Inception(24, 8, 6, 8, 2, 4, 4)
model = nn.ModuleDict({"features": squeeze, "inception": inception, "classifier": classifier})
with torch.no_grad():
    for name, p in model.named_parameters():
        p.copy_(torch.from_numpy(rng.normal(0, 0.25, tuple(p.shape)).astype(np.float32)))
        if name.endswith("bn.weight"):
            p.add_(1.0)

x = torch.from_numpy(rng.normal(size=(2, 3, 33, 33)).astype(np.float32))
h = x
for layer in squeeze:
    h = layer(h)
    print(type(layer).__name__, tuple(h.shape))
branches = inception._forward(h)
print([tuple(b.shape) for b in branches], inception(h).shape)
print({name: sum(p.numel() for p in m.parameters()) for name, m in model.items()})
print(nn.MaxPool2d(3, 2, ceil_mode=True)(torch.arange(49.0).view(1, 1, 7, 7)).shape, nn.MaxPool2d(3, 2)(torch.arange(49.0).view(1, 1, 7, 7)).shape)

params = list(model.parameters())
opt = torch.optim.RMSprop(params, lr=1e-3, alpha=0.9, eps=1.0, momentum=0.9)
y = torch.tensor([2, 0])
for step in range(3):
    opt.zero_grad()
    logits = torch.flatten(model["classifier"](model["features"](x)), 1)
    aux = model["inception"](model["features"](x)).mean()
    loss = F.cross_entropy(logits, y) + 0.3 * aux
    loss.backward()
    opt.step()
    print(step, round(loss.item(), 5), logits.detach(), inception.branch2[1].bn.running_var[:2])
