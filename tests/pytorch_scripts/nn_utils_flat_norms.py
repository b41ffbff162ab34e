"""nn.utils helpers that training scripts reach for: get_total_norm and clip_grads_with_norm_
(the two halves of clip_grad_norm_), clip_grad_norm_ with error_if_nonfinite and
norm_type=inf, clip_grad_value_, parameters_to_vector round trips, unpad_sequence and
unpack_sequence, skip_init, and fuse_conv_bn_eval matching the conv + BN pair."""
import numpy as np
import fluxgrad as torch
import fluxgrad.nn as nn
from fluxgrad.nn.utils import (clip_grad_norm_, clip_grad_value_, clip_grads_with_norm_,
                               get_total_norm, parameters_to_vector, vector_to_parameters)
from fluxgrad.nn.utils.fusion import fuse_conv_bn_eval
from fluxgrad.nn.utils.rnn import pack_sequence, pad_sequence, unpack_sequence, unpad_sequence

rng = np.random.default_rng(109)
model = nn.Sequential(nn.Linear(3, 4), nn.ReLU(), nn.Linear(4, 2))
with torch.no_grad():
    for p in model.parameters():
        p.copy_(torch.tensor(rng.uniform(-1, 1, tuple(p.shape)), dtype=torch.float32))
x = torch.tensor(rng.standard_normal((5, 3)), dtype=torch.float32)
(model(x) ** 2).sum().backward()
grads = [p.grad for p in model.parameters()]
total = get_total_norm(grads, norm_type=2.0)
print(total, torch.linalg.vector_norm(torch.stack([g.norm() for g in grads])))
clip_grads_with_norm_(model.parameters(), max_norm=1.0, total_norm=total)
print(get_total_norm([p.grad for p in model.parameters()]))
print(clip_grad_norm_(model.parameters(), 0.5, norm_type=float("inf")),
      max(p.grad.abs().max() for p in model.parameters()))
clip_grad_value_(model.parameters(), clip_value=0.1)
print(model[2].weight.grad)
model[0].weight.grad[0, 0] = float("nan")
try:
    clip_grad_norm_(model.parameters(), 1.0, error_if_nonfinite=True)
except RuntimeError as e:
    print("RuntimeError:", "non-finite" in str(e))
print(clip_grad_norm_(model.parameters(), 1.0).isnan())

flat = parameters_to_vector(model.parameters())
print(flat.shape, flat[:4])
vector_to_parameters(flat * 2, model.parameters())
print(model[0].bias, parameters_to_vector(model.parameters()).sum() / flat.sum())

seqs = [torch.tensor([1.0, 2.0, 3.0]), torch.tensor([4.0]), torch.tensor([5.0, 6.0])]
padded = pad_sequence(seqs, batch_first=True)
print([s.tolist() for s in unpad_sequence(padded, torch.tensor([3, 1, 2]), batch_first=True)])
print([s.tolist() for s in unpack_sequence(pack_sequence(seqs, enforce_sorted=False))])
lin = torch.nn.utils.skip_init(nn.Linear, 3, 2)
print(type(lin).__name__, lin.weight.shape, lin.in_features)

conv, bn = nn.Conv2d(2, 3, 3, padding=1), nn.BatchNorm2d(3)
with torch.no_grad():
    for p in list(conv.parameters()) + list(bn.parameters()):
        p.copy_(torch.tensor(rng.uniform(0.5, 1.5, tuple(p.shape)), dtype=torch.float32))
    bn.running_mean.copy_(torch.tensor([0.1, -0.2, 0.3]))
    bn.running_var.copy_(torch.tensor([0.5, 1.5, 2.0]))
conv.eval(), bn.eval()
fused = fuse_conv_bn_eval(conv, bn)
img = torch.tensor(rng.standard_normal((1, 2, 4, 4)), dtype=torch.float32)
with torch.no_grad():
    print(torch.allclose(fused(img), bn(conv(img)), atol=1e-5), fused.bias)
