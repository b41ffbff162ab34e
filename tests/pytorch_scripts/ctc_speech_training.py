"""Training a tiny acoustic model with CTC as speech tutorials do: a bidirectional GRU over
(T, N, C) features, log_softmax over the alphabet with blank=0, nn.CTCLoss with targets given both
padded (N, S) and concatenated 1-D, input/target lengths as tensors and as tuples, reductions
'mean' / 'sum' / 'none', zero_infinity for an impossible alignment, and best-path decoding with
unique_consecutive."""
import numpy as np
import fluxgrad as torch
import fluxgrad.nn as nn
import fluxgrad.nn.functional as F

rng = np.random.default_rng(89)
T, N, C_in, V = 12, 3, 5, 6


class Acoustic(nn.Module):
    def __init__(self):
        super().__init__()
        self.rnn = nn.GRU(C_in, 8, bidirectional=True)
        self.fc = nn.Linear(16, V)

    def forward(self, x):
        y, _ = self.rnn(x)
        return self.fc(y).log_softmax(2)


model = Acoustic()
with torch.no_grad():
    for p in model.parameters():
        p.copy_(torch.from_numpy(rng.uniform(-0.4, 0.4, tuple(p.shape)).astype(np.float32)))
feats = torch.from_numpy(rng.normal(0, 1, (T, N, C_in)).astype(np.float32))
targets = torch.tensor([[1, 2, 2, 3], [4, 5, 0, 0], [3, 1, 4, 0]])
target_lengths = torch.tensor([4, 2, 3])
input_lengths = torch.tensor([12, 10, 11])
ctc = nn.CTCLoss(blank=0)
log_probs = model(feats)
loss = ctc(log_probs, targets, input_lengths, target_lengths)
print(round(loss.item(), 5))
flat = torch.cat([targets[i, :l] for i, l in enumerate(target_lengths.tolist())])
loss_flat = ctc(log_probs, flat, tuple(input_lengths.tolist()), tuple(target_lengths.tolist()))
print(flat, round(loss_flat.item(), 5))
print(F.ctc_loss(log_probs, targets, input_lengths, target_lengths, reduction="none"))
print(F.ctc_loss(log_probs, targets, input_lengths, target_lengths, reduction="sum"))

short = torch.tensor([3, 10, 11])
print(F.ctc_loss(log_probs, targets, short, target_lengths, reduction="none"))
print(F.ctc_loss(log_probs, targets, short, target_lengths, reduction="none", zero_infinity=True))

optimizer = torch.optim.Adam(model.parameters(), lr=0.02)
for step in range(2):
    log_probs = model(feats)
    loss = ctc(log_probs, targets, input_lengths, target_lengths)
    optimizer.zero_grad()
    loss.backward()
    norm = nn.utils.clip_grad_norm_(model.parameters(), 5.0)
    optimizer.step()
    print(step, round(loss.item(), 5), round(norm.item(), 4))

with torch.no_grad():
    best = model(feats).argmax(2).t()
for i in range(N):
    path = best[i, :input_lengths[i]]
    collapsed = torch.unique_consecutive(path)
    print(path.tolist(), collapsed[collapsed != 0].tolist())
