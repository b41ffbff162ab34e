"""Beam search over a tiny GRU decoder, the way seq2seq tutorials write it: log_softmax scores,
topk over the flattened (beam x vocab) grid, integer division and remainder for the beam and the
token, index_select of the hidden state, finished hypotheses with a length penalty, and a greedy
decode for comparison."""
import numpy as np
import fluxgrad as torch
import fluxgrad.nn as nn
import fluxgrad.nn.functional as F

rng = np.random.default_rng(3)
V, H, SOS, EOS = 7, 8, 0, 1


class Decoder(nn.Module):
    def __init__(self):
        super().__init__()
        self.embed = nn.Embedding(V, H)
        self.gru = nn.GRU(H, H, batch_first=True)
        self.out = nn.Linear(H, V)

    def forward(self, tokens, hidden):
        x = self.embed(tokens).unsqueeze(1)
        y, hidden = self.gru(x, hidden)
        return F.log_softmax(self.out(y.squeeze(1)), dim=-1), hidden


dec = Decoder()
with torch.no_grad():
    for p in dec.parameters():
        p.copy_(torch.from_numpy(rng.normal(0, 0.8, tuple(p.shape)).astype(np.float32)))
dec.eval()
h0 = torch.from_numpy(rng.normal(0, 1, (1, 1, H)).astype(np.float32))


@torch.no_grad()
def greedy(max_len=6):
    token, hidden, out = torch.tensor([SOS]), h0, []
    for _ in range(max_len):
        logp, hidden = dec(token, hidden)
        token = logp.argmax(dim=-1)
        out.append(token.item())
        if token.item() == EOS:
            break
    return out


@torch.no_grad()
def beam_search(beam=3, max_len=6, alpha=0.7):
    tokens = torch.full((1, 1), SOS, dtype=torch.long)
    scores = torch.zeros(1)
    hidden = h0
    finished = []
    for step in range(max_len):
        logp, hidden = dec(tokens[:, -1], hidden)
        cand = (scores.unsqueeze(1) + logp).view(-1)
        top_scores, top_idx = cand.topk(beam)
        beam_idx = torch.div(top_idx, V, rounding_mode="floor")
        token_idx = top_idx % V
        tokens = torch.cat([tokens.index_select(0, beam_idx), token_idx.unsqueeze(1)], dim=1)
        hidden = hidden.index_select(1, beam_idx)
        scores = top_scores
        is_eos = token_idx == EOS
        for b in torch.nonzero(is_eos).flatten().tolist():
            length = tokens.size(1) - 1
            finished.append((scores[b].item() / (length ** alpha), tokens[b, 1:].tolist()))
        alive = ~is_eos
        if alive.sum() == 0:
            break
        tokens, scores, hidden = tokens[alive], scores[alive], hidden[:, alive]
        print(step, tokens.shape, [round(s, 4) for s in scores.tolist()])
    for b in range(tokens.size(0)):
        length = tokens.size(1) - 1
        finished.append((scores[b].item() / (length ** alpha), tokens[b, 1:].tolist()))
    finished.sort(key=lambda t: -t[0])
    return finished


print(greedy())
for score, seq in beam_search():
    print(round(score, 4), seq)
logp, _ = dec(torch.tensor([SOS, 2, 3]), h0.expand(1, 3, H).contiguous())
print(logp.exp().sum(-1), logp.max(-1))
