"""Feature-wise conditioning layers from style-transfer and conditional-generation code: AdaIN
(the content's per-channel mean and std over H*W, var + eps, the style's statistics), FiLM
(gamma/beta from a conditioning vector via chunk), conditional BatchNorm with affine=False and
class embeddings, and InstanceNorm2d compared with the hand-written normalisation."""
import numpy as np
import fluxgrad as torch
import fluxgrad.nn as nn

rng = np.random.default_rng(47)


def calc_mean_std(feat, eps=1e-5):
    size = feat.size()
    assert len(size) == 4
    N, C = size[:2]
    feat_var = feat.view(N, C, -1).var(dim=2) + eps
    feat_std = feat_var.sqrt().view(N, C, 1, 1)
    feat_mean = feat.view(N, C, -1).mean(dim=2).view(N, C, 1, 1)
    return feat_mean, feat_std


def adaptive_instance_normalization(content_feat, style_feat):
    assert content_feat.size()[:2] == style_feat.size()[:2]
    size = content_feat.size()
    style_mean, style_std = calc_mean_std(style_feat)
    content_mean, content_std = calc_mean_std(content_feat)
    normalized_feat = (content_feat - content_mean.expand(size)) / content_std.expand(size)
    return normalized_feat * style_std.expand(size) + style_mean.expand(size)


content = torch.from_numpy(rng.normal(0, 1, (2, 3, 4, 4)).astype(np.float32)).requires_grad_()
style = torch.from_numpy(rng.normal(1, 2, (2, 3, 5, 5)).astype(np.float32))
t = adaptive_instance_normalization(content, style)
m, s = calc_mean_std(t)
sm, ss = calc_mean_std(style)
print(torch.allclose(m, sm, atol=1e-5), torch.allclose(s, ss, atol=1e-3))
print(t[0, 0, 0])
(t * style[:, :, :4, :4]).sum().backward()
print(content.grad.abs().max())

inorm = nn.InstanceNorm2d(3)
x = content.detach()
mean = x.mean(dim=(2, 3), keepdim=True)
var = x.var(dim=(2, 3), keepdim=True, unbiased=False)
print(torch.allclose(inorm(x), (x - mean) / torch.sqrt(var + 1e-5), atol=1e-5))
print(inorm, nn.InstanceNorm2d(3, affine=True, track_running_stats=True))


class FiLM(nn.Module):
    def __init__(self, cond_dim, channels):
        super().__init__()
        self.proj = nn.Linear(cond_dim, 2 * channels)

    def forward(self, x, cond):
        gamma, beta = self.proj(cond).chunk(2, dim=-1)
        return x * (1 + gamma[:, :, None, None]) + beta[:, :, None, None]


class ConditionalBatchNorm2d(nn.Module):
    def __init__(self, num_features, num_classes):
        super().__init__()
        self.num_features = num_features
        self.bn = nn.BatchNorm2d(num_features, affine=False)
        self.embed = nn.Embedding(num_classes, num_features * 2)
        self.embed.weight.data[:, :num_features].fill_(1.0)
        self.embed.weight.data[:, num_features:].zero_()

    def forward(self, x, y):
        out = self.bn(x)
        gamma, beta = self.embed(y).chunk(2, 1)
        return gamma.view(-1, self.num_features, 1, 1) * out + beta.view(-1, self.num_features, 1, 1)


film = FiLM(5, 3)
with torch.no_grad():
    film.proj.weight.copy_(torch.from_numpy(rng.normal(0, 0.3, (6, 5)).astype(np.float32)))
    film.proj.bias.zero_()
cond = torch.from_numpy(rng.normal(0, 1, (2, 5)).astype(np.float32))
y = film(x, cond)
print(y[1, 2, :2])
cbn = ConditionalBatchNorm2d(3, 4)
with torch.no_grad():
    cbn.embed.weight[2, 3:] = torch.tensor([0.5, -0.5, 1.0])
out = cbn(x, torch.tensor([2, 0]))
print(out.mean(dim=(0, 2, 3)), cbn.bn.running_mean, cbn.bn.running_var)
print(list(cbn.state_dict().keys()))
out.pow(2).sum().backward()
print(cbn.embed.weight.grad)
