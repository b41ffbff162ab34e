"""A masked-language-model step on a tiny Transformer encoder: token + learned position
embeddings, nn.TransformerEncoder (norm_first, GELU, batch_first) with a key padding mask,
a weight-tied output projection, masking chosen from NumPy with labels -100 elsewhere,
cross_entropy(ignore_index=-100), accuracy on the masked positions only."""
import numpy as np
import fluxgrad as torch
import fluxgrad.nn as nn
import fluxgrad.nn.functional as F

rng = np.random.default_rng(83)
V, D, PAD, MASK = 12, 8, 0, 1


class TinyBert(nn.Module):
    def __init__(self):
        super().__init__()
        self.tok = nn.Embedding(V, D, padding_idx=PAD)
        self.pos = nn.Parameter(torch.zeros(1, 6, D))
        layer = nn.TransformerEncoderLayer(D, nhead=2, dim_feedforward=16, dropout=0.0,
                                           activation="gelu", batch_first=True, norm_first=True)
        self.encoder = nn.TransformerEncoder(layer, num_layers=2, enable_nested_tensor=False)
        self.norm = nn.LayerNorm(D)
        self.bias = nn.Parameter(torch.zeros(V))

    def forward(self, ids):
        pad = ids == PAD
        h = self.encoder(self.tok(ids) + self.pos[:, :ids.size(1)], src_key_padding_mask=pad)
        return self.norm(h) @ self.tok.weight.t() + self.bias


model = TinyBert()
with torch.no_grad():
    for name, p in model.named_parameters():
        p.copy_(torch.tensor(rng.normal(0, 0.3, tuple(p.shape)), dtype=torch.float32))
    model.tok.weight[PAD].zero_()
ids = torch.tensor(rng.integers(2, V, (3, 6)))
ids[1, 4:] = PAD
ids[2, 5:] = PAD
chosen = torch.tensor(rng.uniform(size=(3, 6)) < 0.3) & (ids != PAD)
chosen[0, 0] = True
labels = torch.where(chosen, ids, torch.full_like(ids, -100))
inputs = ids.masked_fill(chosen, MASK)
print(inputs, labels)
opt = torch.optim.AdamW(model.parameters(), lr=1e-2, weight_decay=0.01)
for step in range(4):
    logits = model(inputs)
    loss = F.cross_entropy(logits.view(-1, V), labels.view(-1), ignore_index=-100)
    opt.zero_grad()
    loss.backward()
    torch.nn.utils.clip_grad_norm_(model.parameters(), max_norm=1.0)
    opt.step()
    masked = labels != -100
    acc = (logits.argmax(-1)[masked] == labels[masked]).float().mean()
    print(f"step {step}: loss {loss.item():.5f} masked acc {acc.item():.3f} n {int(masked.sum())}")
print(logits.shape, model.tok.weight.grad[PAD].abs().sum().item(), model.pos.grad[0, 5].abs().sum().item() > 0)
print(sum(p.numel() for p in model.parameters()), len(model.encoder.layers), model.encoder.layers[0].norm_first)
