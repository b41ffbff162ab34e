"""Vision models: VGG-11/13/16/19 (with or without batch norm), LeNet, ResNet-18.

Architectures and initialisation follow torchvision (LeNet follows
PaddlePaddle's); weights are random, nothing is downloaded.
"""
from .. import nn
from ..creation import empty
from ..ops import flatten

__all__ = ["VGG", "vgg11", "vgg13", "vgg16", "vgg19", "vgg11_bn", "vgg13_bn", "vgg16_bn",
           "vgg19_bn", "LeNet", "lenet", "ResNet", "BasicBlock", "resnet18"]

_CONFIGS = {
    11: [64, "M", 128, "M", 256, 256, "M", 512, 512, "M", 512, 512, "M"],
    13: [64, 64, "M", 128, 128, "M", 256, 256, "M", 512, 512, "M", 512, 512, "M"],
    16: [64, 64, "M", 128, 128, "M", 256, 256, 256, "M", 512, 512, 512, "M", 512, 512, 512, "M"],
    19: [64, 64, "M", 128, 128, "M", 256, 256, 256, 256, "M", 512, 512, 512, 512, "M",
         512, 512, 512, 512, "M"],
}


def _init_weights(model):
    for m in model.modules():
        if isinstance(m, nn.Conv2d):
            nn.init.kaiming_normal_(m.weight, mode="fan_out", nonlinearity="relu")
            if m.bias is not None:
                nn.init.zeros_(m.bias)
        elif isinstance(m, (nn.BatchNorm2d, nn.GroupNorm)):
            nn.init.ones_(m.weight)
            nn.init.zeros_(m.bias)
        elif isinstance(m, nn.Linear):
            nn.init.normal_(m.weight, 0, 0.01)
            nn.init.zeros_(m.bias)


def _undrawn_linear(in_features, out_features):
    """An `nn.Linear` whose default draw is skipped, for a model whose `_init_weights` draws it
    again at once: VGG's 120M classifier weights drawn twice were a third of its build time."""
    layer = nn.Linear(1, 1)
    layer.in_features, layer.out_features = in_features, out_features
    layer.weight = nn.Parameter(empty(out_features, in_features))
    layer.bias = nn.Parameter(empty(out_features))
    return layer


def _vgg_features(config, batch_norm, in_channels=3):
    layers = []
    for v in config:
        if v == "M":
            layers.append(nn.MaxPool2d(2, 2))
            continue
        layers.append(nn.Conv2d(in_channels, v, 3, padding=1))
        if batch_norm:
            layers.append(nn.BatchNorm2d(v))
        layers.append(nn.ReLU())
        in_channels = v
    return nn.Sequential(*layers)


class VGG(nn.Module):
    """VGG: conv features, a 7x7 adaptive average pool, and a 3-layer classifier."""

    def __init__(self, features, num_classes=1000, dropout=0.5, with_pool=True):
        super().__init__()
        self.features = features
        self.avgpool = nn.AdaptiveAvgPool2d((7, 7)) if with_pool else nn.Identity()
        self.classifier = nn.Sequential(
            _undrawn_linear(512 * 7 * 7, 4096), nn.ReLU(), nn.Dropout(dropout),
            _undrawn_linear(4096, 4096), nn.ReLU(), nn.Dropout(dropout),
            _undrawn_linear(4096, num_classes))
        _init_weights(self)

    def forward(self, x):
        if x.ndim != 4 or x.shape[1] != 3:
            raise ValueError(f"VGG expects images [N, 3, H, W] (224x224 as trained), got shape "
                             f"{list(x.shape)}")
        x = self.avgpool(self.features(x))
        return self.classifier(flatten(x, 1))


def _vgg(depth, batch_norm, pretrained=False, num_classes=1000, **kwargs):
    if pretrained:
        raise ValueError("pretrained weights are not available: fluxgrad downloads nothing; "
                         "load a state dict with model.load_state_dict(fluxgrad.load(path))")
    batch_norm = kwargs.pop("batch_norm", batch_norm)
    return VGG(_vgg_features(_CONFIGS[depth], batch_norm), num_classes, **kwargs)


def vgg11(pretrained=False, num_classes=1000, **kwargs):
    """VGG-11 (configuration A); `batch_norm=True` for vgg11_bn."""
    return _vgg(11, False, pretrained, num_classes, **kwargs)


def vgg13(pretrained=False, num_classes=1000, **kwargs):
    return _vgg(13, False, pretrained, num_classes, **kwargs)


def vgg16(pretrained=False, num_classes=1000, **kwargs):
    return _vgg(16, False, pretrained, num_classes, **kwargs)


def vgg19(pretrained=False, num_classes=1000, **kwargs):
    return _vgg(19, False, pretrained, num_classes, **kwargs)


def vgg11_bn(pretrained=False, num_classes=1000, **kwargs):
    return _vgg(11, True, pretrained, num_classes, **kwargs)


def vgg13_bn(pretrained=False, num_classes=1000, **kwargs):
    return _vgg(13, True, pretrained, num_classes, **kwargs)


def vgg16_bn(pretrained=False, num_classes=1000, **kwargs):
    return _vgg(16, True, pretrained, num_classes, **kwargs)


def vgg19_bn(pretrained=False, num_classes=1000, **kwargs):
    return _vgg(19, True, pretrained, num_classes, **kwargs)


class LeNet(nn.Module):
    """LeNet-5 for [N, 1, 28, 28] images (PaddlePaddle's layout); `num_classes <= 0` drops the head."""

    def __init__(self, num_classes=10, in_channels=1):
        super().__init__()
        self.num_classes = num_classes
        self.features = nn.Sequential(
            nn.Conv2d(in_channels, 6, 3, stride=1, padding=1), nn.ReLU(), nn.MaxPool2d(2, 2),
            nn.Conv2d(6, 16, 5, stride=1, padding=0), nn.ReLU(), nn.MaxPool2d(2, 2))
        if num_classes > 0:
            self.fc = nn.Sequential(nn.Linear(400, 120), nn.Linear(120, 84),
                                    nn.Linear(84, num_classes))

    def forward(self, x):
        x = self.features(x)
        if self.num_classes > 0:
            x = self.fc(flatten(x, 1))
        return x


def lenet(num_classes=10, **kwargs):
    return LeNet(num_classes, **kwargs)


class BasicBlock(nn.Module):
    expansion = 1

    def __init__(self, in_planes, planes, stride=1):
        super().__init__()
        self.conv1 = nn.Conv2d(in_planes, planes, 3, stride, 1, bias=False)
        self.bn1 = nn.BatchNorm2d(planes)
        self.relu = nn.ReLU()
        self.conv2 = nn.Conv2d(planes, planes, 3, 1, 1, bias=False)
        self.bn2 = nn.BatchNorm2d(planes)
        self.downsample = None
        if stride != 1 or in_planes != planes:
            self.downsample = nn.Sequential(nn.Conv2d(in_planes, planes, 1, stride, bias=False),
                                            nn.BatchNorm2d(planes))

    def forward(self, x):
        out = self.relu(self.bn1(self.conv1(x)))
        out = self.bn2(self.conv2(out))
        identity = x if self.downsample is None else self.downsample(x)
        return self.relu(out + identity)


class ResNet(nn.Module):
    def __init__(self, block, layers, num_classes=1000, in_channels=3, width=64):
        super().__init__()
        self.in_planes = width
        self.conv1 = nn.Conv2d(in_channels, width, 7, 2, 3, bias=False)
        self.bn1 = nn.BatchNorm2d(width)
        self.relu = nn.ReLU()
        self.maxpool = nn.MaxPool2d(3, 2, 1)
        self.layer1 = self._stage(block, width, layers[0], 1)
        self.layer2 = self._stage(block, width * 2, layers[1], 2)
        self.layer3 = self._stage(block, width * 4, layers[2], 2)
        self.layer4 = self._stage(block, width * 8, layers[3], 2)
        self.avgpool = nn.AdaptiveAvgPool2d((1, 1))
        self.fc = nn.Linear(width * 8 * block.expansion, num_classes)
        for m in self.modules():
            if isinstance(m, nn.Conv2d):
                nn.init.kaiming_normal_(m.weight, mode="fan_out", nonlinearity="relu")
            elif isinstance(m, nn.BatchNorm2d):
                nn.init.ones_(m.weight)
                nn.init.zeros_(m.bias)

    def _stage(self, block, planes, blocks, stride):
        layers = [block(self.in_planes, planes, stride)]
        self.in_planes = planes * block.expansion
        layers += [block(self.in_planes, planes) for _ in range(1, blocks)]
        return nn.Sequential(*layers)

    def forward(self, x):
        x = self.maxpool(self.relu(self.bn1(self.conv1(x))))
        x = self.layer4(self.layer3(self.layer2(self.layer1(x))))
        return self.fc(flatten(self.avgpool(x), 1))


def resnet18(pretrained=False, num_classes=1000, **kwargs):
    """ResNet-18; `width` (default 64) shrinks it for small experiments."""
    if pretrained:
        raise ValueError("pretrained weights are not available: fluxgrad downloads nothing")
    return ResNet(BasicBlock, [2, 2, 2, 2], num_classes, **kwargs)
