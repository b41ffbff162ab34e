"""SimCLR's NT-Xent loss as its public implementations write it: L2-normalised projections from
two views, the 2N x 2N cosine-similarity matrix (F.cosine_similarity with broadcasting and
z @ z.T), the self-similarity removed with a boolean eye mask (masked_fill with -inf, and the
view(2N, -1) of the off-diagonal entries), positives found by roll, labels for cross_entropy, the
temperature, and top-1 accuracy of the positive pair."""
import numpy as np
import fluxgrad as torch
import fluxgrad.nn as nn
import fluxgrad.nn.functional as F

rng = np.random.default_rng(107)
N, D, tau = 4, 6, 0.5
head = nn.Sequential(nn.Linear(8, 8), nn.ReLU(), nn.Linear(8, D))
with torch.no_grad():
    for p in head.parameters():
        p.copy_(torch.from_numpy(rng.normal(0, 0.4, tuple(p.shape)).astype(np.float32)))
x = torch.from_numpy(rng.normal(0, 1, (N, 8)).astype(np.float32))
view1 = x + 0.1 * torch.from_numpy(rng.normal(0, 1, (N, 8)).astype(np.float32))
view2 = x + 0.1 * torch.from_numpy(rng.normal(0, 1, (N, 8)).astype(np.float32))


def info_nce_loss(z1, z2, temperature):
    feats = torch.cat([z1, z2], dim=0)
    cos_sim = F.cosine_similarity(feats[:, None, :], feats[None, :, :], dim=-1)
    self_mask = torch.eye(cos_sim.shape[0], dtype=torch.bool)
    cos_sim.masked_fill_(self_mask, -9e15)
    pos_mask = self_mask.roll(shifts=cos_sim.shape[0] // 2, dims=0)
    cos_sim = cos_sim / temperature
    nll = -cos_sim[pos_mask] + torch.logsumexp(cos_sim, dim=-1)
    comb_sim = torch.cat([cos_sim[pos_mask][:, None], cos_sim.masked_fill(pos_mask, -9e15)], dim=-1)
    sim_argsort = comb_sim.argsort(dim=-1, descending=True).argmin(dim=-1)
    return nll.mean(), (sim_argsort == 0).float().mean(), pos_mask


def nt_xent(z1, z2, temperature):
    z = F.normalize(torch.cat([z1, z2]), dim=1)
    sim = z @ z.T / temperature
    n = z1.shape[0]
    mask = ~torch.eye(2 * n, dtype=torch.bool)
    negatives = sim[mask].view(2 * n, -1)
    labels = torch.cat([torch.arange(n) + n - 1, torch.arange(n)])
    return F.cross_entropy(negatives, labels), negatives


z1, z2 = head(view1), head(view2)
loss1, acc, pos_mask = info_nce_loss(z1, z2, tau)
loss2, negatives = nt_xent(z1, z2, tau)
print(pos_mask.int())
print(round(loss1.item(), 5), round(loss2.item(), 5), acc.item())
print(negatives.shape, negatives[0])
loss2.backward()
print(head[2].weight.grad.norm(), head[0].bias.grad)
optimizer = torch.optim.SGD(head.parameters(), lr=0.5, momentum=0.9, weight_decay=1e-4)
for step in range(4):
    loss, _ = nt_xent(head(view1), head(view2), tau)
    optimizer.zero_grad()
    loss.backward()
    optimizer.step()
    print(step, round(loss.item(), 5))
