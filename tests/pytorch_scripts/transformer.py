"""MultiheadAttention, TransformerEncoder with masks, scaled_dot_product_attention."""
import numpy as np
import fluxgrad as torch
import fluxgrad.nn as nn
import fluxgrad.nn.functional as F

rng = np.random.default_rng(4)


def fill(module):
    with torch.no_grad():
        for name, p in module.named_parameters():
            p.copy_(torch.from_numpy(rng.uniform(-0.3, 0.3, tuple(p.shape)).astype(np.float32)))
    return module


q = torch.from_numpy(rng.standard_normal((2, 4, 8)).astype(np.float32))
mha = fill(nn.MultiheadAttention(embed_dim=8, num_heads=2, batch_first=True))
out, weights = mha(q, q, q)
print(out.shape, weights.shape, out[0, 0], weights[1])
key_padding_mask = torch.tensor([[False, False, False, True], [False, False, True, True]])
out, weights = mha(q, q, q, key_padding_mask=key_padding_mask)
print(weights[1], out[1, -1])
out, weights = mha(q, q, q, need_weights=True, average_attn_weights=False)
print(weights.shape)
causal = nn.Transformer.generate_square_subsequent_mask(4)
print(causal)
out, _ = mha(q, q, q, attn_mask=causal)
print(out[0, 1])
layer = nn.TransformerEncoderLayer(d_model=8, nhead=2, dim_feedforward=16, dropout=0.0, batch_first=True)
encoder = fill(nn.TransformerEncoder(layer, num_layers=2))
encoder.eval()
y = encoder(q)
print(y.shape, y[0, 0])
y = encoder(q, mask=causal, src_key_padding_mask=key_padding_mask)
print(y[0, :2])
norm_first = fill(nn.TransformerEncoderLayer(8, 2, 16, dropout=0.0, activation="gelu", norm_first=True, batch_first=True))
print(norm_first(q)[1, 3])
a = F.scaled_dot_product_attention(q, q, q)
b = F.scaled_dot_product_attention(q, q, q, is_causal=True)
print(a[0, 0], b[0, 0], b[1, 3])
print(F.scaled_dot_product_attention(q, q, q, attn_mask=torch.ones(4, 4, dtype=torch.bool).tril())[0, 1])


class TinyLM(nn.Module):
    def __init__(self, vocab=12, d=8):
        super().__init__()
        self.tok = nn.Embedding(vocab, d)
        self.pos = nn.Parameter(torch.zeros(1, 6, d))
        block = nn.TransformerEncoderLayer(d, 2, 16, dropout=0.0, batch_first=True)
        self.blocks = nn.TransformerEncoder(block, 1)
        self.ln = nn.LayerNorm(d)
        self.out = nn.Linear(d, vocab)

    def forward(self, idx):
        T = idx.size(1)
        x = self.tok(idx) + self.pos[:, :T]
        mask = torch.triu(torch.full((T, T), float("-inf")), diagonal=1)
        return self.out(self.ln(self.blocks(x, mask=mask)))


lm = fill(TinyLM())
idx = torch.tensor([[1, 2, 3, 4, 5], [6, 7, 8, 9, 10]])
opt = torch.optim.AdamW(lm.parameters(), lr=3e-3, weight_decay=0.01)
for step in range(3):
    logits = lm(idx[:, :-1])
    loss = F.cross_entropy(logits.reshape(-1, logits.size(-1)), idx[:, 1:].reshape(-1))
    opt.zero_grad(set_to_none=True)
    loss.backward()
    opt.step()
    print(step, f"{loss.item():.5f}")
