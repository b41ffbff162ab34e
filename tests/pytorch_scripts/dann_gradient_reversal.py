"""Domain-adversarial training (DANN, Ganin & Lempitsky): a gradient reversal layer as a
custom autograd Function (identity forward, -lambda * grad backward), a shared feature
extractor, label and domain classifiers, the lambda schedule 2/(1+exp(-10p)) - 1, and the
reversed gradient checked against the domain loss's own gradient."""
import math
import numpy as np
import fluxgrad as torch
import fluxgrad.nn as nn
import fluxgrad.nn.functional as F
from fluxgrad.autograd import Function

rng = np.random.default_rng(127)


class GradReverse(Function):
    @staticmethod
    def forward(ctx, x, lambd):
        ctx.lambd = lambd
        return x.view_as(x)

    @staticmethod
    def backward(ctx, grad_output):
        return grad_output.neg() * ctx.lambd, None


def grad_reverse(x, lambd=1.0):
    return GradReverse.apply(x, lambd)


features = nn.Sequential(nn.Linear(2, 8), nn.ReLU())
label_clf = nn.Linear(8, 2)
domain_clf = nn.Sequential(nn.Linear(8, 4), nn.ReLU(), nn.Linear(4, 1))
modules = nn.ModuleList([features, label_clf, domain_clf])
with torch.no_grad():
    for p in modules.parameters():
        p.copy_(torch.tensor(rng.uniform(-0.7, 0.7, tuple(p.shape)), dtype=torch.float32))

x = torch.tensor(rng.standard_normal((4, 2)), dtype=torch.float32, requires_grad=True)
h = features(x)
plain, = torch.autograd.grad(domain_clf(h).sum(), x, retain_graph=True)
reversed_, = torch.autograd.grad(domain_clf(grad_reverse(h, 0.3)).sum(), x)
print(torch.allclose(reversed_, -0.3 * plain), GradReverse.apply(h, 1.0).grad_fn is not None)

src_x = torch.tensor(rng.normal(0, 1, (8, 2)), dtype=torch.float32)
src_y = (src_x[:, 0] > 0).long()
tgt_x = torch.tensor(rng.normal(1, 1, (8, 2)), dtype=torch.float32)
opt = torch.optim.SGD(modules.parameters(), lr=0.05, momentum=0.9)
steps = 5
for step in range(steps):
    p = step / steps
    lambd = 2.0 / (1.0 + math.exp(-10 * p)) - 1
    feats = features(torch.cat([src_x, tgt_x]))
    class_loss = F.cross_entropy(label_clf(feats[:8]), src_y)
    domain_logits = domain_clf(grad_reverse(feats, lambd)).squeeze(1)
    domain_labels = torch.cat([torch.zeros(8), torch.ones(8)])
    domain_loss = F.binary_cross_entropy_with_logits(domain_logits, domain_labels)
    loss = class_loss + domain_loss
    opt.zero_grad()
    loss.backward()
    opt.step()
    acc = ((domain_logits > 0).float() == domain_labels).float().mean()
    print(f"step {step}: lambda {lambd:.4f} class {class_loss.item():.5f} domain {domain_loss.item():.5f} "
          f"domain acc {acc.item():.3f} |g feat| {features[0].weight.grad.norm().item():.5f}")
