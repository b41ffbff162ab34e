"""DenseNet-BC pieces as torchvision writes them: a _DenseLayer (BN-ReLU-Conv1x1 bottleneck then
BN-ReLU-Conv3x3 producing growth_rate maps) whose input is the concatenation of all earlier
features, a _DenseBlock as an nn.ModuleDict iterated in order, a _Transition (BN, 1x1 conv,
AvgPool) halving channels and size, kaiming_normal_ init as in the reference, channel counts, and a
train step with BatchNorm running statistics."""
import numpy as np
import fluxgrad as torch
import fluxgrad.nn as nn
import fluxgrad.nn.functional as F

rng = np.random.default_rng(7)


class _DenseLayer(nn.Module):
    def __init__(self, num_input_features, growth_rate, bn_size, drop_rate=0.0):
        super().__init__()
        self.norm1 = nn.BatchNorm2d(num_input_features)
        self.relu1 = nn.ReLU(inplace=True)
        self.conv1 = nn.Conv2d(num_input_features, bn_size * growth_rate, kernel_size=1, stride=1, bias=False)
        self.norm2 = nn.BatchNorm2d(bn_size * growth_rate)
        self.relu2 = nn.ReLU(inplace=True)
        self.conv2 = nn.Conv2d(bn_size * growth_rate, growth_rate, kernel_size=3, stride=1, padding=1, bias=False)
        self.drop_rate = float(drop_rate)

    def bn_function(self, inputs):
        concated_features = torch.cat(inputs, 1)
        return self.conv1(self.relu1(self.norm1(concated_features)))

    def forward(self, input):
        prev_features = [input] if isinstance(input, torch.Tensor) else input
        bottleneck_output = self.bn_function(prev_features)
        new_features = self.conv2(self.relu2(self.norm2(bottleneck_output)))
        if self.drop_rate > 0:
            new_features = F.dropout(new_features, p=self.drop_rate, training=self.training)
        return new_features


class _DenseBlock(nn.ModuleDict):
    def __init__(self, num_layers, num_input_features, bn_size, growth_rate):
        super().__init__()
        for i in range(num_layers):
            layer = _DenseLayer(num_input_features + i * growth_rate, growth_rate, bn_size)
            self.add_module("denselayer%d" % (i + 1), layer)

    def forward(self, init_features):
        features = [init_features]
        for name, layer in self.items():
            new_features = layer(features)
            features.append(new_features)
        return torch.cat(features, 1)


class _Transition(nn.Sequential):
    def __init__(self, num_input_features, num_output_features):
        super().__init__()
        self.norm = nn.BatchNorm2d(num_input_features)
        self.relu = nn.ReLU(inplace=True)
        self.conv = nn.Conv2d(num_input_features, num_output_features, kernel_size=1, stride=1, bias=False)
        self.pool = nn.AvgPool2d(kernel_size=2, stride=2)


block = _DenseBlock(num_layers=3, num_input_features=8, bn_size=2, growth_rate=4)
trans = _Transition(8 + 3 * 4, (8 + 3 * 4) // 2)
head = nn.Linear(10, 3)
model = nn.Sequential(block, trans, nn.AdaptiveAvgPool2d(1), nn.Flatten(), head)
for m in model.modules():
    if isinstance(m, nn.Conv2d):
        nn.init.kaiming_normal_(m.weight)
    elif isinstance(m, nn.BatchNorm2d):
        nn.init.constant_(m.weight, 1)
        nn.init.constant_(m.bias, 0)
    elif isinstance(m, nn.Linear):
        nn.init.constant_(m.bias, 0)
with torch.no_grad():
    for p in model.parameters():
        if p.dim() > 1:
            p.copy_(torch.from_numpy(rng.normal(0, 0.2, tuple(p.shape)).astype(np.float32)))
print(list(block.keys()), [l.conv1.in_channels for l in block.values()], trans)

x = torch.from_numpy(rng.normal(size=(4, 8, 8, 8)).astype(np.float32))
y = torch.tensor([0, 1, 2, 1])
dense_out = block(x)
print(dense_out.shape, torch.equal(dense_out[:, :8], x), trans(dense_out).shape)

opt = torch.optim.SGD(model.parameters(), lr=0.1, momentum=0.9, nesterov=True, weight_decay=1e-4)
for step in range(3):
    opt.zero_grad()
    loss = F.cross_entropy(model(x), y)
    loss.backward()
    opt.step()
    print(step, round(loss.item(), 5), block.denselayer1.norm1.running_mean[:3], block.denselayer3.norm2.num_batches_tracked)
model.eval()
with torch.no_grad():
    print(model(x).softmax(1))
