"""Scaled dot-product attention from scratch with a causal mask (triu + masked_fill(-inf))
and a key padding mask, checked against F.scaled_dot_product_attention (boolean and
additive float masks, is_causal) and nn.MultiheadAttention (key_padding_mask, averaged and
per-head weights); fully masked rows, and the gradient through the masked softmax."""
import math
import numpy as np
import fluxgrad as torch
import fluxgrad.nn as nn
import fluxgrad.nn.functional as F

rng = np.random.default_rng(51)
B, H, T, D = 2, 2, 4, 3
q = torch.tensor(rng.standard_normal((B, H, T, D)), dtype=torch.float32, requires_grad=True)
k = torch.tensor(rng.standard_normal((B, H, T, D)), dtype=torch.float32, requires_grad=True)
v = torch.tensor(rng.standard_normal((B, H, T, D)), dtype=torch.float32, requires_grad=True)


def attention(q, k, v, mask=None):
    scores = q @ k.transpose(-2, -1) / math.sqrt(q.size(-1))
    if mask is not None:
        scores = scores.masked_fill(mask == 0, float("-inf"))
    weights = torch.softmax(scores, dim=-1)
    return weights @ v, weights


causal = torch.tril(torch.ones(T, T, dtype=torch.bool))
out, w = attention(q, k, v, causal)
print(w[0, 0])
ref = F.scaled_dot_product_attention(q, k, v, is_causal=True)
print(torch.allclose(out, ref, atol=1e-6), torch.allclose(out, F.scaled_dot_product_attention(q, k, v, attn_mask=causal), atol=1e-6))
additive = torch.zeros(T, T).masked_fill(~causal, float("-inf"))
print(torch.allclose(out, F.scaled_dot_product_attention(q, k, v, attn_mask=additive), atol=1e-6))

lengths = torch.tensor([4, 2])
pad = torch.arange(T)[None, :] < lengths[:, None]
mask = pad[:, None, None, :] & causal
out2, w2 = attention(q, k, v, mask)
print(pad, w2[1, 1])
out2.sum().backward()
print(q.grad[1, 0], k.grad[1, 0, 2:], v.grad[1].sum(0))

scores = torch.tensor([[0.5, 1.0], [2.0, -1.0]])
blocked = scores.masked_fill(torch.tensor([[True, True], [False, True]]), float("-inf"))
print(torch.softmax(blocked, -1), torch.nan_to_num(torch.softmax(blocked, -1)))

mha = nn.MultiheadAttention(embed_dim=4, num_heads=2, batch_first=True)
with torch.no_grad():
    for p in mha.parameters():
        p.copy_(torch.tensor(rng.uniform(-0.5, 0.5, tuple(p.shape)), dtype=torch.float32))
x = torch.tensor(rng.standard_normal((2, 3, 4)), dtype=torch.float32)
key_padding_mask = torch.tensor([[False, False, True], [False, False, False]])
y, weights = mha(x, x, x, key_padding_mask=key_padding_mask)
print(y, weights)
y2, per_head = mha(x, x, x, key_padding_mask=key_padding_mask, average_attn_weights=False,
                   attn_mask=torch.triu(torch.ones(3, 3, dtype=torch.bool), diagonal=1))
print(per_head.shape, per_head[0, 1], torch.allclose(per_head.mean(1)[:, 0], weights[:, 0]))
print(nn.Transformer.generate_square_subsequent_mask(3))
