"""Straight-through estimators as discrete-latent models write them: Gumbel-softmax with noise
drawn in NumPy (so both libraries see it), the hard one-hot by max + zeros_like().scatter_, the
y_hard - y_soft.detach() + y_soft trick, F.one_hot of argmax, a straight-through sign/round for
binarised activations, and the gradients each lets through."""
import numpy as np
import fluxgrad as torch
import fluxgrad.nn.functional as F

rng = np.random.default_rng(67)
logits = torch.from_numpy(rng.normal(0, 1, (4, 5)).astype(np.float32)).requires_grad_()
u = torch.from_numpy(rng.uniform(1e-6, 1 - 1e-6, (4, 5)).astype(np.float32))
gumbels = -torch.log(-torch.log(u))


def gumbel_softmax(logits, tau=1.0, hard=False, dim=-1):
    y_soft = ((logits + gumbels) / tau).softmax(dim)
    if hard:
        index = y_soft.max(dim, keepdim=True)[1]
        y_hard = torch.zeros_like(logits, memory_format=torch.legacy_contiguous_format).scatter_(dim, index, 1.0)
        return y_hard - y_soft.detach() + y_soft
    return y_soft


soft = gumbel_softmax(logits, tau=0.5)
print(soft, soft.sum(-1))
hard = gumbel_softmax(logits, tau=0.5, hard=True)
print(hard)
weights = torch.arange(5.0)
(hard * weights).sum().backward()
print(logits.grad)
logits.grad = None
(soft * weights).sum().backward()
print(logits.grad)

codes = F.one_hot(logits.argmax(-1), num_classes=5)
print(codes, codes.dtype)
x = torch.tensor([-1.2, -0.1, 0.0, 0.3, 2.0], requires_grad=True)
binary = x + (torch.sign(x) - x).detach()
rounded = x + (torch.round(x) - x).detach()
print(binary, rounded)
(binary * torch.arange(1.0, 6.0)).sum().backward()
print(x.grad)
clipped = torch.where(x.abs() <= 1, torch.ones_like(x), torch.zeros_like(x))
print(clipped * x.grad)
