"""Representation-learning losses written out: SimCLR's NT-Xent (normalize, similarity matrix, a
boolean eye mask with masked_fill, labels by arange and roll, cross_entropy over temperature-scaled
logits), knowledge distillation (KL between temperature softmaxes times T^2 plus hard-label CE),
triplet mining with cdist and topk, and an InfoNCE with a memory queue."""
import numpy as np
import fluxgrad as torch
import fluxgrad.nn as nn
import fluxgrad.nn.functional as F

rng = np.random.default_rng(83)
encoder = nn.Sequential(nn.Linear(6, 8), nn.ReLU(), nn.Linear(8, 4))
with torch.no_grad():
    for p in encoder.parameters():
        p.copy_(torch.from_numpy(rng.uniform(-0.5, 0.5, tuple(p.shape)).astype(np.float32)))
batch = torch.from_numpy(rng.standard_normal((4, 6)).astype(np.float32))
noise1 = torch.from_numpy(rng.normal(0, 0.1, (4, 6)).astype(np.float32))
noise2 = torch.from_numpy(rng.normal(0, 0.1, (4, 6)).astype(np.float32))


def nt_xent(z_i, z_j, temperature=0.5):
    n = z_i.size(0)
    z = F.normalize(torch.cat([z_i, z_j], dim=0), dim=1)
    sim = z @ z.T / temperature
    mask = torch.eye(2 * n, dtype=torch.bool)
    sim = sim.masked_fill(mask, float("-inf"))
    targets = torch.arange(2 * n).roll(n)
    return F.cross_entropy(sim, targets), sim, targets


loss, sim, targets = nt_xent(encoder(batch + noise1), encoder(batch + noise2))
print(targets, sim.shape, torch.isinf(sim).sum(), loss)
loss.backward()
print(encoder[0].weight.grad.norm(), encoder[2].bias.grad)
teacher_logits = torch.from_numpy(rng.standard_normal((4, 5)).astype(np.float32))
student = nn.Linear(6, 5)
with torch.no_grad():
    student.weight.copy_(torch.from_numpy(rng.uniform(-0.3, 0.3, (5, 6)).astype(np.float32)))
    student.bias.zero_()
labels = torch.tensor([1, 0, 4, 2])
opt = torch.optim.SGD(student.parameters(), lr=0.5)
T, alpha = 4.0, 0.7
for step in range(3):
    s_logits = student(batch)
    soft = F.kl_div(F.log_softmax(s_logits / T, dim=1), F.softmax(teacher_logits / T, dim=1), reduction="batchmean") * T * T
    hard = F.cross_entropy(s_logits, labels)
    loss = alpha * soft + (1 - alpha) * hard
    opt.zero_grad()
    loss.backward()
    opt.step()
    print(step, round(soft.item(), 5), round(hard.item(), 5), round(loss.item(), 5))
emb = F.normalize(encoder(batch).detach(), dim=1)
dist = torch.cdist(emb, emb)
same = labels.unsqueeze(0) == labels.unsqueeze(1)
hardest_pos = (dist * same.float()).max(dim=1).values
hardest_neg = dist.masked_fill(same, float("inf")).min(dim=1)
print(dist.diagonal(), hardest_pos, hardest_neg.values, hardest_neg.indices, F.relu(hardest_pos - hardest_neg.values + 0.2).mean())
print(dist.topk(2, dim=1, largest=False).indices, torch.cdist(emb, emb, compute_mode="donot_use_mm_for_euclid_dist").diagonal().abs().max() < 1e-6)
queue = F.normalize(torch.from_numpy(rng.standard_normal((8, 4)).astype(np.float32)), dim=1)
q = F.normalize(encoder(batch + noise1), dim=1)
k = F.normalize(encoder(batch + noise2), dim=1).detach()
l_pos = torch.einsum("nc,nc->n", q, k).unsqueeze(-1)
l_neg = torch.einsum("nc,kc->nk", q, queue)
logits = torch.cat([l_pos, l_neg], dim=1) / 0.07
info_nce = F.cross_entropy(logits, torch.zeros(logits.shape[0], dtype=torch.long))
print(logits.shape, info_nce, l_pos.squeeze())
queue = torch.cat([k, queue], dim=0)[:8]
print(queue.shape, torch.allclose(queue[:4], k))
