"""Attention written with einsum the way research code does: multi-head projections with
'bld,hdk->bhlk', scores 'bhqd,bhkd->bhqk', rotary position embeddings (cos/sin, rotate_half,
repeat_interleave), ALiBi linear biases, grouped-query attention with repeat_interleave of KV
heads, a causal mask with masked_fill and tril, einsum utilities (trace, diagonal, outer, bilinear
forms, batched matrix products with ellipsis), and gradients through all of it."""
import math

import numpy as np
import fluxgrad as torch
import fluxgrad.nn.functional as F

rng = np.random.default_rng(53)


def randn(*shape, scale=1.0):
    return torch.from_numpy((scale * rng.standard_normal(shape)).astype(np.float32))


B, L, D, H, K = 2, 5, 8, 4, 2
x = randn(B, L, D)
Wq, Wk, Wv = randn(H, D, K, scale=0.4), randn(H, D, K, scale=0.4), randn(H, D, K, scale=0.4)
Wo = randn(H, K, D, scale=0.4)
for w in (Wq, Wk, Wv, Wo):
    w.requires_grad_()

q = torch.einsum("bld,hdk->bhlk", x, Wq)
k = torch.einsum("bld,hdk->bhlk", x, Wk)
v = torch.einsum("bld,hdk->bhlk", x, Wv)
print(q.shape, q[0, 1, 2])


def rotary(t, base=10000.0):
    dim = t.shape[-1]
    inv_freq = 1.0 / (base ** (torch.arange(0, dim, 2).float() / dim))
    pos = torch.arange(t.shape[-2]).float()
    freqs = torch.einsum("i,j->ij", pos, inv_freq)
    emb = freqs.repeat_interleave(2, dim=-1)
    cos, sin = emb.cos(), emb.sin()
    t1, t2 = t[..., ::2], t[..., 1::2]
    rotated = torch.stack([-t2, t1], dim=-1).flatten(-2)
    return t * cos + rotated * sin


qr, kr = rotary(q), rotary(k)
print(qr[1, 0, 3], torch.allclose(qr.norm(dim=-1), q.norm(dim=-1), atol=1e-5))
scores = torch.einsum("bhqd,bhkd->bhqk", qr, kr) / math.sqrt(K)
causal = torch.tril(torch.ones(L, L, dtype=torch.bool))
slopes = torch.tensor([2 ** (-8 * (i + 1) / H) for i in range(H)])
alibi = slopes[:, None, None] * (torch.arange(L)[None, :] - torch.arange(L)[:, None]).float()
scores = (scores + alibi).masked_fill(~causal, float("-inf"))
attn = scores.softmax(dim=-1)
ctx = torch.einsum("bhqk,bhkd->bhqd", attn, v)
out = torch.einsum("bhlk,hkd->bld", ctx, Wo)
print(attn[0, 3, 2], out[1, 4])
ref = F.scaled_dot_product_attention(qr, kr, v, attn_mask=alibi.masked_fill(~causal, float("-inf")), scale=1 / math.sqrt(K))
print(torch.allclose(ref, ctx, atol=1e-5))
out.pow(2).mean().backward()
print(Wq.grad[0, 0], Wo.grad[3, 1, :3])

n_kv = 2
kv = torch.einsum("bld,hdk->bhlk", x, Wk.detach()[:n_kv])
kv_rep = kv.repeat_interleave(H // n_kv, dim=1)
gqa = torch.einsum("bhqd,bhkd->bhqk", q.detach(), kv_rep).softmax(-1)
print(kv_rep.shape, torch.equal(kv_rep[:, 0], kv_rep[:, 1]), gqa[1, 2, 0])

A = randn(3, 3)
Bm = randn(2, 3, 4)
u, w = randn(3), randn(4)
print(torch.einsum("ii", A), torch.einsum("ii->i", A), torch.einsum("i,j->ij", u, w).shape)
print(torch.einsum("i,ij,j->", u, A, u), u @ A @ u)
print(torch.einsum("...ij,...jk->...ik", A.expand(2, 3, 3), Bm).shape, torch.einsum("bij->bji", Bm)[1, 2])
print(torch.einsum("bij,bij->b", Bm, Bm), torch.einsum("ij,kj->ik", A, A))
print(torch.einsum("i,i->", u, u), torch.einsum(A, [0, 1], u, [1], [0]))
bil = torch.einsum("bi,oij,bj->bo", randn(2, 3), randn(4, 3, 5), randn(2, 5))
print(bil)
