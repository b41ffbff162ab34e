"""Set and sequence pooling with masks, as in Deep Sets / Set Transformer code: padding to the
longest set with pad_sequence, the mask from arange(max_len) < lengths[:, None], masked mean
(sum over the mask / lengths), masked max with masked_fill(-inf), attention pooling with a learned
seed and key_padding_mask through nn.MultiheadAttention, and a permutation-invariance check."""
import numpy as np
import fluxgrad as torch
import fluxgrad.nn as nn
from fluxgrad.nn.utils.rnn import pad_sequence

rng = np.random.default_rng(71)
D = 4
sets = [torch.from_numpy(rng.normal(0, 1, (n, D)).astype(np.float32)) for n in (3, 5, 2)]
x = pad_sequence(sets, batch_first=True)
lengths = torch.tensor([len(s) for s in sets])
mask = torch.arange(x.size(1))[None, :] < lengths[:, None]
print(x.shape, mask)


class DeepSet(nn.Module):
    def __init__(self):
        super().__init__()
        self.phi = nn.Sequential(nn.Linear(D, 8), nn.ReLU(), nn.Linear(8, 8))
        self.rho = nn.Sequential(nn.Linear(16, 8), nn.ELU(), nn.Linear(8, 1))
        self.seed = nn.Parameter(torch.zeros(1, 1, 8))
        self.pma = nn.MultiheadAttention(8, 2, batch_first=True)

    def forward(self, x, mask):
        h = self.phi(x)
        m = mask.unsqueeze(-1).float()
        mean = (h * m).sum(1) / m.sum(1)
        mx = h.masked_fill(~mask.unsqueeze(-1), float("-inf")).max(dim=1).values
        pooled, attn = self.pma(self.seed.expand(x.size(0), -1, -1), h, h, key_padding_mask=~mask)
        return self.rho(torch.cat([mean, mx], -1)).squeeze(-1), pooled.squeeze(1), attn


model = DeepSet()
with torch.no_grad():
    for p in model.parameters():
        p.copy_(torch.from_numpy(rng.normal(0, 0.4, tuple(p.shape)).astype(np.float32)))
out, pooled, attn = model(x, mask)
print(out, pooled[2])
print(attn.squeeze(1))
perm = torch.tensor([2, 0, 1, 3, 4])
x_perm = x.clone()
x_perm[0, :3] = x[0, perm[:3]]
out_p, pooled_p, _ = model(x_perm, mask)
print(torch.allclose(out, out_p, atol=1e-6), torch.allclose(pooled, pooled_p, atol=1e-6))
target = torch.tensor([0.5, -1.0, 2.0])
loss = nn.functional.mse_loss(out, target) + pooled.pow(2).mean()
loss.backward()
print(round(loss.item(), 5), model.seed.grad.flatten())
print(x.masked_select(mask.unsqueeze(-1)).view(-1, D).shape)
