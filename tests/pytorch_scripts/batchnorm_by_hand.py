"""Batch normalisation written out by hand (biased batch variance for normalising, unbiased
for the running estimate) checked against nn.BatchNorm1d / BatchNorm2d in training and eval,
with momentum=None (cumulative average), track_running_stats=False, affine=False, and the
gradients of the hand-written version against the module's."""
import numpy as np
import fluxgrad as torch
import fluxgrad.nn as nn

rng = np.random.default_rng(31)


def batch_norm(x, gamma, beta, running_mean, running_var, momentum, eps, training, dims):
    if training:
        mean = x.mean(dim=dims, keepdim=True)
        var = x.var(dim=dims, unbiased=False, keepdim=True)
        n = x.numel() / x.size(1)
        with torch.no_grad():
            running_mean.mul_(1 - momentum).add_(momentum * mean.flatten())
            running_var.mul_(1 - momentum).add_(momentum * var.flatten() * n / (n - 1))
    else:
        shape = [1, -1] + [1] * (x.dim() - 2)
        mean, var = running_mean.view(shape), running_var.view(shape)
    x_hat = (x - mean) / torch.sqrt(var + eps)
    shape = [1, -1] + [1] * (x.dim() - 2)
    return gamma.view(shape) * x_hat + beta.view(shape)


x1 = torch.tensor(rng.normal(3, 2, (8, 3)), dtype=torch.float32, requires_grad=True)
bn = nn.BatchNorm1d(3, momentum=0.2)
with torch.no_grad():
    bn.weight.copy_(torch.tensor([1.5, 0.5, -1.0]))
    bn.bias.copy_(torch.tensor([0.1, 0.2, 0.3]))
gamma = bn.weight.detach().clone().requires_grad_()
beta = bn.bias.detach().clone().requires_grad_()
rm, rv = torch.zeros(3), torch.ones(3)
ours = batch_norm(x1, gamma, beta, rm, rv, 0.2, bn.eps, True, (0,))
theirs = bn(x1)
print((ours - theirs).abs().max().item() < 1e-5, rm, bn.running_mean, rv, bn.running_var)
w = torch.tensor(rng.standard_normal((8, 3)), dtype=torch.float32)
g_ours = torch.autograd.grad((ours * w).sum(), [x1, gamma, beta])
g_theirs = torch.autograd.grad((theirs * w).sum(), [x1, bn.weight, bn.bias])
print([round((a - b).abs().max().item(), 5) for a, b in zip(g_ours, g_theirs)])
print(g_theirs[1], g_theirs[2], g_theirs[0].sum(0))

bn.eval()
x_eval = torch.tensor(rng.normal(3, 2, (4, 3)), dtype=torch.float32)
print(bn(x_eval), batch_norm(x_eval, gamma, beta, rm, rv, 0.2, bn.eps, False, (0,)))

cum = nn.BatchNorm2d(2, momentum=None, affine=False)
for i in range(3):
    cum(torch.tensor(rng.normal(i, 1 + i, (4, 2, 3, 3)), dtype=torch.float32))
print(cum.running_mean, cum.running_var, cum.num_batches_tracked, cum.weight)
stateless = nn.BatchNorm2d(2, track_running_stats=False)
stateless.eval()
x2 = torch.tensor(rng.normal(1, 3, (2, 2, 2, 2)), dtype=torch.float32)
print(stateless.running_mean, stateless(x2).mean(dim=(0, 2, 3)), stateless(x2).var(dim=(0, 2, 3), unbiased=False))
print(list(stateless.state_dict().keys()), list(cum.state_dict().keys()))
print(nn.functional.batch_norm(x2, None, None, training=True).std(dim=(0, 2, 3)))
