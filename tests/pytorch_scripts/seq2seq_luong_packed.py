"""A seq2seq model with Luong ("general") attention over a packed bidirectional LSTM encoder:
pack_padded_sequence(enforce_sorted=False) of unsorted lengths, pad_packed_sequence back,
merging the two directions' final states, attention scores masked by the source lengths,
teacher-forced decoding with an LSTMCell, NLL loss ignoring padding, and greedy decoding."""
import numpy as np
import fluxgrad as torch
import fluxgrad.nn as nn
import fluxgrad.nn.functional as F
from fluxgrad.nn.utils.rnn import pack_padded_sequence, pad_packed_sequence

rng = np.random.default_rng(27)
V, E, H, PAD, SOS = 9, 5, 6, 0, 1


class Encoder(nn.Module):
    def __init__(self):
        super().__init__()
        self.emb = nn.Embedding(V, E, padding_idx=PAD)
        self.rnn = nn.LSTM(E, H, batch_first=True, bidirectional=True)
        self.bridge = nn.Linear(2 * H, H)

    def forward(self, src, lengths):
        packed = pack_padded_sequence(self.emb(src), lengths, batch_first=True, enforce_sorted=False)
        out, (h, c) = self.rnn(packed)
        out, out_lengths = pad_packed_sequence(out, batch_first=True, total_length=src.size(1))
        h = torch.tanh(self.bridge(torch.cat([h[0], h[1]], dim=-1)))
        c = self.bridge(torch.cat([c[0], c[1]], dim=-1))
        return out, out_lengths, (h, c)


class Decoder(nn.Module):
    def __init__(self):
        super().__init__()
        self.emb = nn.Embedding(V, E)
        self.cell = nn.LSTMCell(E, H)
        self.attn = nn.Linear(2 * H, H, bias=False)
        self.combine = nn.Linear(3 * H, H)
        self.out = nn.Linear(H, V)

    def step(self, token, state, memory, mask):
        h, c = self.cell(self.emb(token), state)
        scores = torch.bmm(self.attn(memory), h.unsqueeze(2)).squeeze(2)
        weights = scores.masked_fill(~mask, -1e9).softmax(dim=1)
        context = torch.bmm(weights.unsqueeze(1), memory).squeeze(1)
        attentional = torch.tanh(self.combine(torch.cat([h, context], dim=1)))
        return F.log_softmax(self.out(attentional), dim=-1), (h, c), weights


enc, dec = Encoder(), Decoder()
with torch.no_grad():
    for p in list(enc.parameters()) + list(dec.parameters()):
        p.copy_(torch.from_numpy(rng.uniform(-0.4, 0.4, tuple(p.shape)).astype(np.float32)))
src = torch.tensor([[3, 4, 5, 0, 0], [6, 7, 8, 2, 3], [2, 2, 0, 0, 0]])
lengths = torch.tensor([3, 5, 2])
tgt = torch.tensor([[5, 4, 3, 0], [3, 2, 8, 7], [2, 2, 0, 0]])
memory, out_lengths, state = enc(src, lengths)
print(memory.shape, out_lengths, memory[0, 3:].abs().sum(), state[0].shape)
mask = torch.arange(src.size(1)).unsqueeze(0) < lengths.unsqueeze(1)
print(mask)
params = list(enc.parameters()) + list(dec.parameters())
opt = torch.optim.Adam(params, lr=0.02)
for epoch in range(4):
    memory, _, state = enc(src, lengths)
    token = torch.full((3,), SOS)
    loss = 0.0
    for t in range(tgt.size(1)):
        logp, state, weights = dec.step(token, state, memory, mask)
        loss = loss + F.nll_loss(logp, tgt[:, t], ignore_index=PAD, reduction="sum")
        token = tgt[:, t]
    loss = loss / (tgt != PAD).sum()
    opt.zero_grad()
    loss.backward()
    nn.utils.clip_grad_norm_(params, max_norm=5.0)
    opt.step()
    print(epoch, f"{loss.item():.5f}", weights[2])
with torch.no_grad():
    memory, _, state = enc(src, lengths)
    token = torch.full((3,), SOS)
    decoded = []
    for _ in range(4):
        logp, state, weights = dec.step(token, state, memory, mask)
        token = logp.argmax(-1)
        decoded.append(token)
    print(torch.stack(decoded, 1), weights.sum(1))
