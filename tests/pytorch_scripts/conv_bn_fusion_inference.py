"""Preparing a trained CNN for inference: model.eval(), folding each Conv2d + BatchNorm2d pair
with torch.nn.utils.fuse_conv_bn_eval (and Linear + BatchNorm1d with fuse_linear_bn_eval),
replacing the BatchNorm by nn.Identity, checking the fused model against the original with
torch.testing.assert_close, and counting the parameters saved."""
import copy
import numpy as np
import fluxgrad as torch
import fluxgrad.nn as nn
import fluxgrad.nn.functional as F
from fluxgrad.nn.utils import fuse_conv_bn_eval, fuse_linear_bn_eval

rng = np.random.default_rng(31)


class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.conv1 = nn.Conv2d(3, 8, 3, padding=1)
        self.bn1 = nn.BatchNorm2d(8)
        self.conv2 = nn.Conv2d(8, 8, 3, stride=2, bias=False)
        self.bn2 = nn.BatchNorm2d(8)
        self.fc = nn.Linear(8, 4)
        self.bn3 = nn.BatchNorm1d(4)

    def forward(self, x):
        x = F.relu(self.bn1(self.conv1(x)))
        x = F.relu(self.bn2(self.conv2(x)))
        x = F.adaptive_avg_pool2d(x, 1).flatten(1)
        return self.bn3(self.fc(x))


model = Net()
with torch.no_grad():
    for p in model.parameters():
        p.copy_(torch.from_numpy(rng.uniform(-0.5, 0.5, tuple(p.shape)).astype(np.float32)))
x = torch.from_numpy(rng.standard_normal((8, 3, 9, 9)).astype(np.float32))
model.train()
for _ in range(3):
    model(x)
print(model.bn1.running_mean[:4], model.bn3.running_var, model.bn2.num_batches_tracked)
model.eval()
with torch.no_grad():
    reference = model(x)

fused = copy.deepcopy(model)
fused.conv1 = fuse_conv_bn_eval(fused.conv1, fused.bn1)
fused.conv2 = fuse_conv_bn_eval(fused.conv2, fused.bn2)
fused.fc = fuse_linear_bn_eval(fused.fc, fused.bn3)
fused.bn1 = nn.Identity()
fused.bn2 = nn.Identity()
fused.bn3 = nn.Identity()
print(fused)
print(fused.conv2.bias is not None, fused.conv2.bias[:3], fused.fc.weight.requires_grad)
with torch.no_grad():
    out = fused(x)
torch.testing.assert_close(out, reference, rtol=1e-4, atol=1e-5)
print("fused matches", out[0], (out - reference).abs().max() < 1e-4)
count = lambda m: sum(p.numel() for p in m.parameters())
print(count(model), count(fused), len(list(model.buffers())), len(list(fused.buffers())))
try:
    torch.testing.assert_close(out, reference + 1)
except AssertionError:
    print("assert_close raises AssertionError on a mismatch")
torch.testing.assert_close(torch.tensor([1, 2]), torch.tensor([1, 2]))
torch.testing.assert_close(torch.tensor(1.0), torch.tensor(1.0 + 1e-7))
print("equal ok")

w, b = torch.nn.utils.fuse_conv_bn_weights(model.conv1.weight, model.conv1.bias, model.bn1.running_mean, model.bn1.running_var, model.bn1.eps, model.bn1.weight, model.bn1.bias)
print(torch.allclose(w, fused.conv1.weight), type(w).__name__, w.shape, b.shape)
