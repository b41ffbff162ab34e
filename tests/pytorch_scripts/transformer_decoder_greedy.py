"""A tiny translation model with nn.Transformer pieces the way seq2seq tutorials write it: an
encoder over source tokens with src_key_padding_mask, a TransformerDecoder with a causal tgt_mask,
tgt_key_padding_mask and memory_key_padding_mask, teacher-forced training with ignore_index, then
greedy decoding token by token (argmax, cat, stop at EOS) in eval mode under no_grad."""
import math

import numpy as np
import fluxgrad as torch
import fluxgrad.nn as nn
import fluxgrad.nn.functional as F

rng = np.random.default_rng(11)
PAD, BOS, EOS = 0, 1, 2
VOCAB, D = 10, 16


def fill(module):
    with torch.no_grad():
        for p in module.parameters():
            p.copy_(torch.from_numpy(rng.uniform(-0.25, 0.25, tuple(p.shape)).astype(np.float32)))
    return module


class PositionalEncoding(nn.Module):
    def __init__(self, d_model, max_len=20):
        super().__init__()
        position = torch.arange(max_len).unsqueeze(1)
        div_term = torch.exp(torch.arange(0, d_model, 2) * (-math.log(10000.0) / d_model))
        pe = torch.zeros(max_len, 1, d_model)
        pe[:, 0, 0::2] = torch.sin(position * div_term)
        pe[:, 0, 1::2] = torch.cos(position * div_term)
        self.register_buffer("pe", pe)

    def forward(self, x):
        return x + self.pe[: x.size(0)]


class Seq2SeqTransformer(nn.Module):
    def __init__(self):
        super().__init__()
        self.src_emb = nn.Embedding(VOCAB, D, padding_idx=PAD)
        self.tgt_emb = nn.Embedding(VOCAB, D, padding_idx=PAD)
        self.pos = PositionalEncoding(D)
        enc = nn.TransformerEncoderLayer(D, nhead=4, dim_feedforward=32, dropout=0.0)
        dec = nn.TransformerDecoderLayer(D, nhead=4, dim_feedforward=32, dropout=0.0)
        self.encoder = nn.TransformerEncoder(enc, num_layers=2)
        self.decoder = nn.TransformerDecoder(dec, num_layers=2, norm=nn.LayerNorm(D))
        self.generator = nn.Linear(D, VOCAB)

    def encode(self, src, src_padding_mask):
        return self.encoder(self.pos(self.src_emb(src) * math.sqrt(D)), src_key_padding_mask=src_padding_mask)

    def decode(self, tgt, memory, tgt_mask, tgt_padding_mask=None, memory_padding_mask=None):
        x = self.pos(self.tgt_emb(tgt) * math.sqrt(D))
        return self.decoder(x, memory, tgt_mask=tgt_mask, tgt_key_padding_mask=tgt_padding_mask,
                            memory_key_padding_mask=memory_padding_mask)

    def forward(self, src, tgt):
        src_padding_mask = (src == PAD).transpose(0, 1)
        tgt_padding_mask = (tgt == PAD).transpose(0, 1)
        tgt_mask = nn.Transformer.generate_square_subsequent_mask(tgt.size(0))
        memory = self.encode(src, src_padding_mask)
        out = self.decode(tgt, memory, tgt_mask, tgt_padding_mask, src_padding_mask)
        return self.generator(out)


model = fill(Seq2SeqTransformer())
print(sum(p.numel() for p in model.parameters()))
# (seq_len, batch): the second source is shorter and padded
src = torch.tensor([[3, 4], [5, 6], [7, 8], [9, PAD], [EOS, PAD]])
tgt = torch.tensor([[BOS, BOS], [9, 8], [7, 6], [5, EOS], [EOS, PAD]])
mask = nn.Transformer.generate_square_subsequent_mask(4)
print(mask)
opt = torch.optim.Adam(model.parameters(), lr=1e-3, betas=(0.9, 0.98), eps=1e-9)
loss_fn = nn.CrossEntropyLoss(ignore_index=PAD)
for step in range(4):
    logits = model(src, tgt[:-1])
    loss = loss_fn(logits.reshape(-1, VOCAB), tgt[1:].reshape(-1))
    opt.zero_grad()
    loss.backward()
    opt.step()
    print(step, logits.shape, f"{loss.item():.5f}")


def greedy_decode(model, src, max_len):
    src_padding_mask = (src == PAD).transpose(0, 1)
    memory = model.encode(src, src_padding_mask)
    ys = torch.full((1, src.size(1)), BOS, dtype=torch.long)
    finished = torch.zeros(src.size(1), dtype=torch.bool)
    for i in range(max_len - 1):
        tgt_mask = nn.Transformer.generate_square_subsequent_mask(ys.size(0)).type(torch.bool)
        out = model.decode(ys, memory, tgt_mask, memory_padding_mask=src_padding_mask)
        prob = model.generator(out[-1])
        next_word = torch.argmax(prob, dim=1)
        next_word = torch.where(finished, torch.full_like(next_word, PAD), next_word)
        ys = torch.cat([ys, next_word.unsqueeze(0)], dim=0)
        finished |= next_word == EOS
        if finished.all():
            break
    return ys, memory


model.eval()
with torch.no_grad():
    ys, memory = greedy_decode(model, src, max_len=6)
print(ys.t(), ys.dtype, memory.shape)
print(memory[0, 1, :4])

# the full nn.Transformer module, batch_first, with a float mask
full = fill(nn.Transformer(d_model=8, nhead=2, num_encoder_layers=1, num_decoder_layers=1,
                           dim_feedforward=16, dropout=0.0, batch_first=True))
a = torch.from_numpy(rng.standard_normal((2, 5, 8)).astype(np.float32))
b = torch.from_numpy(rng.standard_normal((2, 3, 8)).astype(np.float32))
out = full(a, b, tgt_mask=full.generate_square_subsequent_mask(3),
           src_key_padding_mask=torch.tensor([[False] * 5, [False] * 3 + [True] * 2]))
print(out.shape, out[1, 2])
out.sum().backward()
print(full.decoder.layers[0].multihead_attn.in_proj_weight.grad.abs().sum())
