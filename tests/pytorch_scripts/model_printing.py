"""print(model) for common architectures, and conv padding modes."""
import numpy as np
import fluxgrad as torch
import fluxgrad.nn as nn


class Block(nn.Module):
    def __init__(self, c):
        super().__init__()
        self.conv = nn.Conv2d(c, c, 3, padding=1, bias=False)
        self.bn = nn.BatchNorm2d(c)
        self.act = nn.ReLU(inplace=True)

    def forward(self, x):
        return self.act(self.bn(self.conv(x))) + x


class ResNetish(nn.Module):
    def __init__(self):
        super().__init__()
        self.stem = nn.Sequential(nn.Conv2d(3, 8, 7, stride=2, padding=3), nn.MaxPool2d(3, 2, 1))
        self.blocks = nn.ModuleList([Block(8) for _ in range(3)])
        self.head = nn.Sequential(nn.AdaptiveAvgPool2d((1, 1)), nn.Flatten(), nn.Dropout(0.2), nn.Linear(8, 10))

    def forward(self, x):
        x = self.stem(x)
        for b in self.blocks:
            x = b(x)
        return self.head(x)


print(ResNetish())
print(nn.TransformerEncoder(nn.TransformerEncoderLayer(16, 4, 32, batch_first=True, norm_first=True), num_layers=2, enable_nested_tensor=False))
print(nn.Sequential(nn.Embedding(50, 8), nn.LSTM(8, 16, batch_first=True, dropout=0.1, num_layers=2)))
print(nn.ModuleDict({"enc": nn.Linear(2, 2), "act": nn.GELU(approximate="tanh"), "norm": nn.GroupNorm(1, 2)}))
print(nn.Sequential(nn.Linear(4, 4), nn.Linear(4, 4), nn.ReLU(), nn.ReLU(), nn.ReLU()))
rng = np.random.default_rng(9)
x = torch.tensor(rng.standard_normal((1, 2, 5, 5)), dtype=torch.float32)
for mode in ("zeros", "reflect", "replicate", "circular"):
    conv = nn.Conv2d(2, 3, 3, padding=1, padding_mode=mode)
    with torch.no_grad():
        conv.weight.copy_(torch.tensor(rng.standard_normal((3, 2, 3, 3)), dtype=torch.float32))
        conv.bias.zero_()
    print(conv, conv(x)[0, 0, :2])
c1 = nn.Conv1d(1, 1, 3, padding="same", padding_mode="reflect", bias=False)
with torch.no_grad():
    c1.weight.fill_(1.0)
print(c1(torch.arange(5.).view(1, 1, 5)))
print(nn.Conv2d(1, 1, (3, 2), padding=(1, 2), padding_mode="circular")(torch.ones(1, 1, 4, 4)).shape)
print(nn.RNN(2, 3, nonlinearity="relu", bias=False), nn.RNNCell(2, 3, nonlinearity="relu", bias=False), nn.GRUCell(2, 3, bias=False))
