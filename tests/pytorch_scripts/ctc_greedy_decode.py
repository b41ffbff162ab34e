"""A toy speech-recognition step with CTC as ASR tutorials write it: a GRU over feature frames,
log_softmax over the vocabulary transposed to [T, N, C], nn.CTCLoss with blank=0, padded targets
with target_lengths and per-utterance input_lengths, reduction 'mean' / 'sum' / 'none' and
zero_infinity for impossible alignments, a few training steps, then greedy CTC decoding (argmax,
unique_consecutive, dropping blanks) and the character error rate by an edit-distance DP."""
import numpy as np
import fluxgrad as torch
import fluxgrad.nn as nn
import fluxgrad.nn.functional as F

rng = np.random.default_rng(107)
vocab = ["_", "a", "b", "c", "d"]
T, N, feat = 12, 3, 6


class Acoustic(nn.Module):
    def __init__(self):
        super().__init__()
        self.rnn = nn.GRU(feat, 8, batch_first=True, bidirectional=True)
        self.proj = nn.Linear(16, len(vocab))

    def forward(self, x):
        out, _ = self.rnn(x)
        return self.proj(out).log_softmax(dim=-1)


model = Acoustic()
with torch.no_grad():
    for p in model.parameters():
        p.copy_(torch.from_numpy(rng.uniform(-0.4, 0.4, tuple(p.shape)).astype(np.float32)))
x = torch.from_numpy(rng.standard_normal((N, T, feat)).astype(np.float32))
targets = torch.tensor([[1, 2, 3, 0], [2, 2, 0, 0], [4, 1, 3, 2]])
target_lengths = torch.tensor([3, 2, 4])
input_lengths = torch.tensor([12, 9, 11])
ctc = nn.CTCLoss(blank=0)
opt = torch.optim.Adam(model.parameters(), lr=0.02)
for step in range(4):
    log_probs = model(x).transpose(0, 1)
    loss = ctc(log_probs, targets, input_lengths, target_lengths)
    opt.zero_grad()
    loss.backward()
    opt.step()
    print(step, log_probs.shape, f"{loss.item():.5f}")

log_probs = model(x).transpose(0, 1)
print(F.ctc_loss(log_probs, targets, input_lengths, target_lengths, reduction="none"))
print(F.ctc_loss(log_probs, targets, input_lengths, target_lengths, reduction="sum"))
flat = torch.cat([targets[i, :target_lengths[i]] for i in range(N)])
print(flat, F.ctc_loss(log_probs, flat, input_lengths, target_lengths))
short = torch.tensor([2, 2, 2])
print(F.ctc_loss(log_probs, targets, short, target_lengths, reduction="none", zero_infinity=True),
      F.ctc_loss(log_probs, targets, short, target_lengths, reduction="none"))


def greedy_decode(log_probs, lengths):
    best = log_probs.argmax(dim=-1).transpose(0, 1)
    out = []
    for seq, n in zip(best, lengths):
        collapsed = torch.unique_consecutive(seq[:n])
        out.append([vocab[i] for i in collapsed.tolist() if i != 0])
    return out


def edit_distance(a, b):
    d = torch.zeros(len(a) + 1, len(b) + 1, dtype=torch.long)
    d[:, 0] = torch.arange(len(a) + 1)
    d[0, :] = torch.arange(len(b) + 1)
    for i in range(1, len(a) + 1):
        for j in range(1, len(b) + 1):
            cost = 0 if a[i - 1] == b[j - 1] else 1
            d[i, j] = min(d[i - 1, j] + 1, d[i, j - 1] + 1, d[i - 1, j - 1] + cost)
    return int(d[-1, -1])


with torch.no_grad():
    hyps = greedy_decode(model(x).transpose(0, 1), input_lengths)
refs = [[vocab[i] for i in targets[k, :target_lengths[k]].tolist()] for k in range(N)]
print(hyps, refs)
errors = sum(edit_distance(h, r) for h, r in zip(hyps, refs))
print(errors, f"{errors / sum(len(r) for r in refs):.4f}")
print(torch.unique_consecutive(torch.tensor([0, 0, 1, 1, 0, 2, 2, 2]), return_counts=True))
