"""A decoder-only block the way modern LLM code writes it: RMSNorm by hand, grouped-query attention
(repeat_interleave of the key/value heads), F.scaled_dot_product_attention with is_causal and with
an explicit bool mask, a KV cache filled token by token that must agree with the full causal pass,
SwiGLU feed-forward, and tied output embeddings."""
import numpy as np
import fluxgrad as torch
import fluxgrad.nn as nn
import fluxgrad.nn.functional as F

rng = np.random.default_rng(11)
D, HQ, HKV, V, T = 16, 4, 2, 11, 5
HD = D // HQ


class RMSNorm(nn.Module):
    def __init__(self, dim, eps=1e-6):
        super().__init__()
        self.eps = eps
        self.weight = nn.Parameter(torch.ones(dim))

    def forward(self, x):
        return x * torch.rsqrt(x.pow(2).mean(-1, keepdim=True) + self.eps) * self.weight


class Attention(nn.Module):
    def __init__(self):
        super().__init__()
        self.wq = nn.Linear(D, HQ * HD, bias=False)
        self.wk = nn.Linear(D, HKV * HD, bias=False)
        self.wv = nn.Linear(D, HKV * HD, bias=False)
        self.wo = nn.Linear(HQ * HD, D, bias=False)

    def forward(self, x, cache=None):
        B, L, _ = x.shape
        q = self.wq(x).view(B, L, HQ, HD).transpose(1, 2)
        k = self.wk(x).view(B, L, HKV, HD).transpose(1, 2)
        v = self.wv(x).view(B, L, HKV, HD).transpose(1, 2)
        if cache is not None:
            if "k" in cache:
                k = torch.cat([cache["k"], k], dim=2)
                v = torch.cat([cache["v"], v], dim=2)
            cache["k"], cache["v"] = k, v
        k = k.repeat_interleave(HQ // HKV, dim=1)
        v = v.repeat_interleave(HQ // HKV, dim=1)
        if cache is None:
            y = F.scaled_dot_product_attention(q, k, v, is_causal=True)
        else:
            y = F.scaled_dot_product_attention(q, k, v)
        return self.wo(y.transpose(1, 2).contiguous().view(B, L, HQ * HD))


class Block(nn.Module):
    def __init__(self):
        super().__init__()
        self.tok = nn.Embedding(V, D)
        self.norm1, self.norm2 = RMSNorm(D), RMSNorm(D)
        self.attn = Attention()
        self.w1 = nn.Linear(D, 24, bias=False)
        self.w3 = nn.Linear(D, 24, bias=False)
        self.w2 = nn.Linear(24, D, bias=False)

    def forward(self, idx, cache=None):
        x = self.tok(idx)
        x = x + self.attn(self.norm1(x), cache)
        h = self.norm2(x)
        x = x + self.w2(F.silu(self.w1(h)) * self.w3(h))
        return x @ self.tok.weight.t()


model = Block()
with torch.no_grad():
    for name, p in model.named_parameters():
        if "norm" not in name:
            p.copy_(torch.from_numpy(rng.normal(0, 0.3, tuple(p.shape)).astype(np.float32)))
print(sum(p.numel() for p in model.parameters()))
idx = torch.from_numpy(rng.integers(0, V, (2, T)))
full = model(idx)
print(full.shape, full[0, -1])

cache, steps = {}, []
with torch.no_grad():
    for t in range(T):
        steps.append(model(idx[:, t:t + 1], cache)[:, 0])
stepped = torch.stack(steps, dim=1)
print(cache["k"].shape, torch.allclose(stepped, full, atol=1e-5))
print((stepped - full).abs().max() < 1e-5)

q = torch.from_numpy(rng.normal(0, 1, (2, HQ, T, HD)).astype(np.float32))
kv = torch.from_numpy(rng.normal(0, 1, (2, HQ, T, HD)).astype(np.float32))
causal = torch.ones(T, T, dtype=torch.bool).tril()
a = F.scaled_dot_product_attention(q, kv, kv, attn_mask=causal)
b = F.scaled_dot_product_attention(q, kv, kv, is_causal=True)
print(torch.allclose(a, b, atol=1e-6), a[1, 2, 3])
c = F.scaled_dot_product_attention(q, kv, kv, scale=0.25)
print(c[0, 0, 0])

logits = model(idx[:, :-1])
loss = F.cross_entropy(logits.reshape(-1, V), idx[:, 1:].reshape(-1))
loss.backward()
print(round(loss.item(), 5), model.tok.weight.grad.norm(), model.norm1.weight.grad)
