"""A VQ-VAE quantiser (van den Oord et al.): nearest codebook entries by squared distance
(argmin of an expanded ||z||^2 - 2 z.e + ||e||^2, checked with cdist), the straight-through
estimator z + (q - z).detach(), codebook and commitment losses, perplexity of code use,
and an EMA codebook update with one_hot counts, index_add_ and Laplace smoothing."""
import numpy as np
import fluxgrad as torch
import fluxgrad.nn as nn
import fluxgrad.nn.functional as F

rng = np.random.default_rng(81)
K, D = 5, 3


class VectorQuantizer(nn.Module):
    def __init__(self, num_embeddings, embedding_dim, beta=0.25):
        super().__init__()
        self.embedding = nn.Embedding(num_embeddings, embedding_dim)
        self.beta = beta

    def forward(self, z):
        flat = z.reshape(-1, z.shape[-1])
        d = (flat.pow(2).sum(1, keepdim=True) - 2 * flat @ self.embedding.weight.t()
             + self.embedding.weight.pow(2).sum(1))
        idx = torch.argmin(d, dim=1)
        q = self.embedding(idx).view_as(z)
        codebook_loss = F.mse_loss(q, z.detach())
        commitment = F.mse_loss(z, q.detach())
        q_st = z + (q - z).detach()
        one_hot = F.one_hot(idx, self.embedding.num_embeddings).float()
        avg = one_hot.mean(0)
        perplexity = torch.exp(-(avg * torch.log(avg + 1e-10)).sum())
        return q_st, codebook_loss + self.beta * commitment, idx, perplexity, d


vq = VectorQuantizer(K, D)
encoder = nn.Linear(4, D)
decoder = nn.Linear(D, 4)
with torch.no_grad():
    for p in list(vq.parameters()) + list(encoder.parameters()) + list(decoder.parameters()):
        p.copy_(torch.tensor(rng.uniform(-1, 1, tuple(p.shape)), dtype=torch.float32))
x = torch.tensor(rng.standard_normal((6, 2, 4)), dtype=torch.float32)
z = encoder(x)
q, vq_loss, idx, perplexity, d = vq(z)
print(idx.view(6, 2), perplexity)
print(torch.equal(idx, torch.cdist(z.reshape(-1, D), vq.embedding.weight).argmin(1)), d.shape)
recon = decoder(q)
loss = F.mse_loss(recon, x) + vq_loss
loss.backward()
print(loss.item(), vq_loss.item())
print(encoder.weight.grad, vq.embedding.weight.grad)

decay, eps = 0.9, 1e-5
cluster_size = torch.zeros(K)
embed_avg = vq.embedding.weight.detach().clone()
with torch.no_grad():
    flat = z.detach().reshape(-1, D)
    onehot = F.one_hot(idx, K).type(flat.dtype)
    cluster_size.mul_(decay).add_(onehot.sum(0), alpha=1 - decay)
    embed_sum = torch.zeros(K, D).index_add_(0, idx, flat)
    print(torch.allclose(embed_sum, onehot.t() @ flat, atol=1e-6))
    embed_avg.mul_(decay).add_(embed_sum, alpha=1 - decay)
    n = cluster_size.sum()
    smoothed = (cluster_size + eps) / (n + K * eps) * n
    vq.embedding.weight.copy_(embed_avg / smoothed.unsqueeze(1))
print(cluster_size, smoothed, vq.embedding.weight)
print(torch.bincount(idx, minlength=K), idx.unique(return_counts=True))
