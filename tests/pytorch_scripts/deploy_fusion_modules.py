"""Getting a trained model ready for deployment the way export scripts do: fold each
Conv2d+BatchNorm2d pair into one convolution with nn.utils.fusion.fuse_conv_bn_eval (walking
named_children and replacing modules with setattr / nn.Identity), fuse_linear_bn_eval, a transposed
convolution, outputs equal before and after, parameter counts; plus init and freezing code written
against PyTorch's module paths: isinstance(m, nn.modules.batchnorm._BatchNorm), a custom loss
subclassing nn.modules.loss._WeightedLoss, _pair from nn.modules.utils, and nn.modules.conv._ConvNd."""
import numpy as np
import fluxgrad as torch
import fluxgrad.nn as nn
import fluxgrad.nn.functional as F
from fluxgrad.nn.modules.loss import _WeightedLoss
from fluxgrad.nn.modules.utils import _pair
from fluxgrad.nn.utils.fusion import fuse_conv_bn_eval, fuse_linear_bn_eval

rng = np.random.default_rng(97)


class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.conv1 = nn.Conv2d(3, 4, 3, padding=1)
        self.bn1 = nn.BatchNorm2d(4)
        self.conv2 = nn.Conv2d(4, 6, 3, stride=2, bias=False)
        self.bn2 = nn.BatchNorm2d(6)
        self.fc = nn.Linear(6, 5)
        self.bn3 = nn.BatchNorm1d(5)

    def forward(self, x):
        x = F.relu(self.bn1(self.conv1(x)))
        x = F.relu(self.bn2(self.conv2(x)))
        x = F.adaptive_avg_pool2d(x, 1).flatten(1)
        return self.bn3(self.fc(x))


net = Net()
with torch.no_grad():
    for p in net.parameters():
        p.copy_(torch.from_numpy(rng.uniform(-0.5, 0.5, tuple(p.shape)).astype(np.float32)))
x = torch.from_numpy(rng.standard_normal((4, 3, 8, 8)).astype(np.float32))
net.train()
for _ in range(3):
    net(x + 0.5)
net.eval()
ref = net(x)
print(sum(p.numel() for p in net.parameters()), ref[0])


def fuse(model):
    names = [n for n, _ in model.named_children()]
    for a, b in zip(names, names[1:]):
        ma, mb = getattr(model, a), getattr(model, b)
        if isinstance(ma, nn.Conv2d) and isinstance(mb, nn.modules.batchnorm._BatchNorm):
            setattr(model, a, fuse_conv_bn_eval(ma, mb))
            setattr(model, b, nn.Identity())
        elif isinstance(ma, nn.Linear) and isinstance(mb, nn.BatchNorm1d):
            setattr(model, a, fuse_linear_bn_eval(ma, mb))
            setattr(model, b, nn.Identity())
    return model


fused = fuse(net)
out = fused(x)
print(fused.bn1, type(fused.conv2).__name__, fused.conv2.bias is not None, fused.conv2.bias.requires_grad)
print(torch.allclose(out, ref, atol=1e-5), sum(p.numel() for p in fused.parameters()), out[0])

deconv = nn.ConvTranspose2d(4, 2, 3, stride=2)
bn = nn.BatchNorm2d(2)
with torch.no_grad():
    for p in list(deconv.parameters()) + list(bn.parameters()):
        p.copy_(torch.from_numpy(rng.uniform(-0.5, 0.5, tuple(p.shape)).astype(np.float32)))
    bn.running_mean.copy_(torch.tensor([0.1, -0.2]))
    bn.running_var.copy_(torch.tensor([0.5, 2.0]))
deconv.eval()
bn.eval()
h = torch.from_numpy(rng.standard_normal((1, 4, 3, 3)).astype(np.float32))
fd = fuse_conv_bn_eval(deconv, bn, transpose=True)
print(torch.allclose(fd(h), bn(deconv(h)), atol=1e-5), fd.weight.shape)
try:
    fuse_conv_bn_eval(nn.Conv2d(1, 1, 1), nn.BatchNorm2d(1))
except AssertionError as e:
    print("AssertionError")

model = nn.Sequential(nn.Conv2d(3, 4, 3), nn.BatchNorm2d(4), nn.ReLU(), nn.Conv1d(4, 4, 1), nn.GroupNorm(2, 4))
for m in model.modules():
    if isinstance(m, nn.modules.batchnorm._BatchNorm):
        m.eval()
        m.weight.requires_grad_(False)
    elif isinstance(m, nn.modules.conv._ConvNd):
        nn.init.constant_(m.weight, 0.1)
print([m.training for m in model], [p.requires_grad for p in model[1].parameters()], model[3].weight.sum())
print(isinstance(model[4], nn.modules.normalization.GroupNorm), nn.modules.module.Module is nn.Module, _pair(3), _pair((2, 5)))


class FocalLoss(_WeightedLoss):
    def __init__(self, weight=None, gamma=2.0, reduction="mean"):
        super().__init__(weight, reduction=reduction)
        self.gamma = gamma

    def forward(self, input, target):
        logp = F.log_softmax(input, dim=1)
        ce = F.nll_loss(logp, target, weight=self.weight, reduction="none")
        pt = logp.gather(1, target[:, None]).squeeze(1).exp()
        loss = (1 - pt) ** self.gamma * ce
        return loss.mean() if self.reduction == "mean" else loss


focal = FocalLoss(weight=torch.tensor([1.0, 2.0, 0.5]))
print(focal, list(focal.state_dict()), focal.reduction)
logits = torch.from_numpy(rng.standard_normal((4, 3)).astype(np.float32)).requires_grad_()
loss = focal(logits, torch.tensor([0, 1, 2, 1]))
loss.backward()
print(loss, logits.grad[1], FocalLoss(reduction="none")(logits, torch.tensor([0, 1, 2, 1])))
