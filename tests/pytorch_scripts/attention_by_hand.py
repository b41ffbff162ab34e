"""Attention written by hand the way tutorials build it up (nanoGPT, The Annotated Transformer):
tril masks, masked_fill with -inf, softmax, scaled_dot_product_attention (is_causal, bool and float
masks), a causal self-attention block, and nn.TransformerDecoder / nn.Transformer with masks."""
import math
import numpy as np
import fluxgrad as torch
import fluxgrad.nn as nn
import fluxgrad.nn.functional as F

rng = np.random.default_rng(29)


def fill(module, scale=0.3):
    with torch.no_grad():
        for p in module.parameters():
            p.copy_(torch.from_numpy(rng.uniform(-scale, scale, tuple(p.shape)).astype(np.float32)))
    return module


B, T, C = 2, 4, 8
x = torch.from_numpy(rng.standard_normal((B, T, C)).astype(np.float32))
tril = torch.tril(torch.ones(T, T))
wei = torch.zeros((T, T))
wei = wei.masked_fill(tril == 0, float("-inf"))
print(wei)
wei = F.softmax(wei, dim=-1)
print(wei, (wei @ x).shape)
xbow = torch.zeros((B, T, C))
for b in range(B):
    for t in range(T):
        xprev = x[b, :t + 1]
        xbow[b, t] = torch.mean(xprev, 0)
print(torch.allclose(xbow, wei @ x, atol=1e-6))
key, query, value = (fill(nn.Linear(C, 4, bias=False)) for _ in range(3))
k, q, v = key(x), query(x), value(x)
att = q @ k.transpose(-2, -1) * k.shape[-1] ** -0.5
att = att.masked_fill(tril == 0, float("-inf"))
att = F.softmax(att, dim=-1)
out = att @ v
print(att[0], out[1, -1])
ref = F.scaled_dot_product_attention(q, k, v, is_causal=True)
print(torch.allclose(out, ref, atol=1e-6), F.scaled_dot_product_attention(q, k, v, attn_mask=tril.bool()).sub(ref).abs().max() < 1e-6)
float_mask = torch.zeros(T, T).masked_fill(torch.triu(torch.ones(T, T, dtype=torch.bool), diagonal=1), -1e9)
print(F.scaled_dot_product_attention(q, k, v, attn_mask=float_mask)[0, 0], F.scaled_dot_product_attention(q, k, v, scale=0.1)[0, 1])


class CausalSelfAttention(nn.Module):
    def __init__(self, n_embd, n_head, block_size):
        super().__init__()
        self.c_attn = nn.Linear(n_embd, 3 * n_embd)
        self.c_proj = nn.Linear(n_embd, n_embd)
        self.n_head, self.n_embd = n_head, n_embd
        self.register_buffer("bias", torch.tril(torch.ones(block_size, block_size)).view(1, 1, block_size, block_size))

    def forward(self, x):
        B, T, C = x.size()
        q, k, v = self.c_attn(x).split(self.n_embd, dim=2)
        k = k.view(B, T, self.n_head, C // self.n_head).transpose(1, 2)
        q = q.view(B, T, self.n_head, C // self.n_head).transpose(1, 2)
        v = v.view(B, T, self.n_head, C // self.n_head).transpose(1, 2)
        att = (q @ k.transpose(-2, -1)) * (1.0 / math.sqrt(k.size(-1)))
        att = att.masked_fill(self.bias[:, :, :T, :T] == 0, float("-inf"))
        att = F.softmax(att, dim=-1)
        y = att @ v
        y = y.transpose(1, 2).contiguous().view(B, T, C)
        return self.c_proj(y)


csa = fill(CausalSelfAttention(C, 2, 6))
y = csa(x)
print(y.shape, y[0, 0], [name for name, _ in csa.named_buffers()], csa.state_dict()["bias"].shape)
y.pow(2).mean().backward()
print(csa.c_attn.weight.grad.shape, csa.c_proj.bias.grad)
mask = nn.Transformer.generate_square_subsequent_mask(T)
print(mask, mask.dtype)
dec_layer = fill(nn.TransformerDecoderLayer(d_model=C, nhead=2, dim_feedforward=16, dropout=0.0, batch_first=True))
decoder = nn.TransformerDecoder(dec_layer, num_layers=2)
memory = torch.from_numpy(rng.standard_normal((B, 3, C)).astype(np.float32))
tgt_padding = torch.zeros(B, T).masked_fill(torch.tensor([[False, False, False, True], [False] * 4]), float("-inf"))
d_out = decoder(x, memory, tgt_mask=mask, tgt_key_padding_mask=tgt_padding)
print(d_out.shape, d_out[0, 0], d_out[1, -1])
print(decoder(x, memory, tgt_is_causal=True, tgt_mask=mask)[0, 1])
transformer = fill(nn.Transformer(d_model=C, nhead=2, num_encoder_layers=1, num_decoder_layers=1,
                                  dim_feedforward=12, dropout=0.0, batch_first=True), 0.2)
src = torch.from_numpy(rng.standard_normal((B, 5, C)).astype(np.float32))
t_out = transformer(src, x, tgt_mask=mask, src_key_padding_mask=torch.tensor([[False] * 5, [False] * 4 + [True]]))
print(t_out.shape, t_out[1, 2])
print(sum(p.numel() for p in transformer.parameters()), len(transformer.encoder.layers), type(transformer.decoder.norm).__name__)
