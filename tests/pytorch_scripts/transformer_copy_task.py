"""The full nn.Transformer (encoder + decoder) on a toy copy task, as in the "attention is all you
need" tutorials: token embeddings scaled by sqrt(d_model), sinusoidal positions, the causal mask
from nn.Transformer.generate_square_subsequent_mask, src/tgt key padding masks, batch_first, a
few Adam steps, and greedy decoding one token at a time with the growing mask."""
import math
import numpy as np
import fluxgrad as torch
import fluxgrad.nn as nn
import fluxgrad.nn.functional as F

rng = np.random.default_rng(2)
VOCAB, D, PAD, BOS = 7, 8, 0, 1


class PositionalEncoding(nn.Module):
    def __init__(self, d_model, max_len=16):
        super().__init__()
        position = torch.arange(max_len).unsqueeze(1)
        div_term = torch.exp(torch.arange(0, d_model, 2) * (-math.log(10000.0) / d_model))
        pe = torch.zeros(max_len, d_model)
        pe[:, 0::2] = torch.sin(position * div_term)
        pe[:, 1::2] = torch.cos(position * div_term)
        self.register_buffer("pe", pe.unsqueeze(0))

    def forward(self, x):
        return x + self.pe[:, :x.size(1)]


class Seq2Seq(nn.Module):
    def __init__(self):
        super().__init__()
        self.embed = nn.Embedding(VOCAB, D, padding_idx=PAD)
        self.pos = PositionalEncoding(D)
        self.transformer = nn.Transformer(d_model=D, nhead=2, num_encoder_layers=1, num_decoder_layers=1, dim_feedforward=16, dropout=0.0, batch_first=True)
        self.out = nn.Linear(D, VOCAB)

    def forward(self, src, tgt):
        tgt_mask = nn.Transformer.generate_square_subsequent_mask(tgt.size(1))
        s = self.pos(self.embed(src) * math.sqrt(D))
        t = self.pos(self.embed(tgt) * math.sqrt(D))
        h = self.transformer(s, t, tgt_mask=tgt_mask, src_key_padding_mask=src == PAD, tgt_key_padding_mask=tgt == PAD, memory_key_padding_mask=src == PAD)
        return self.out(h)


print(nn.Transformer.generate_square_subsequent_mask(4))
model = Seq2Seq()
with torch.no_grad():
    for name, p in model.named_parameters():
        p.copy_(torch.from_numpy(rng.uniform(-0.3, 0.3, tuple(p.shape)).astype(np.float32)))
print(model.transformer.encoder.layers[0].self_attn, len(model.transformer.decoder.layers))
print(sum(p.numel() for p in model.parameters()), model.pos.pe.shape, [n for n, _ in model.named_buffers()])
src = torch.tensor([[3, 4, 5, 6], [2, 5, 3, PAD]])
tgt_in = torch.cat([torch.full((2, 1), BOS), src[:, :-1]], dim=1)
tgt_out = src
opt = torch.optim.Adam(model.parameters(), lr=0.01)
for step in range(6):
    logits = model(src, tgt_in)
    loss = F.cross_entropy(logits.reshape(-1, VOCAB), tgt_out.reshape(-1), ignore_index=PAD)
    opt.zero_grad()
    loss.backward()
    torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
    opt.step()
    print(step, f"{loss.item():.5f}")
model.eval()
with torch.no_grad():
    ys = torch.full((2, 1), BOS)
    for _ in range(4):
        nxt = model(src, ys)[:, -1].argmax(-1, keepdim=True)
        ys = torch.cat([ys, nxt], dim=1)
    print(ys, model(src, tgt_in)[0, 0])
