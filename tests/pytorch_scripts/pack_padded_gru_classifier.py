"""A sentence classifier over variable-length token sequences: pad_sequence, an Embedding
with padding_idx, pack_padded_sequence with enforce_sorted=False, a GRU, pad_packed_sequence
with total_length, the last valid output gathered by lengths (checked against h_n), and a
few training steps; packed-sequence fields (batch_sizes, sorted/unsorted indices)."""
import numpy as np
import fluxgrad as torch
import fluxgrad.nn as nn
from fluxgrad.nn.utils.rnn import pack_padded_sequence, pad_packed_sequence, pad_sequence

rng = np.random.default_rng(43)
seqs = [torch.tensor(rng.integers(1, 9, n)) for n in (3, 5, 2, 4)]
labels = torch.tensor([0, 1, 1, 0])
lengths = torch.tensor([len(s) for s in seqs])
padded = pad_sequence(seqs, batch_first=True)
print(padded, lengths)


class Classifier(nn.Module):
    def __init__(self):
        super().__init__()
        self.emb = nn.Embedding(9, 4, padding_idx=0)
        self.gru = nn.GRU(4, 5, batch_first=True)
        self.fc = nn.Linear(5, 2)

    def forward(self, tokens, lengths):
        packed = pack_padded_sequence(self.emb(tokens), lengths, batch_first=True, enforce_sorted=False)
        out, h_n = self.gru(packed)
        out, out_lengths = pad_packed_sequence(out, batch_first=True, total_length=6)
        last = out[torch.arange(out.size(0)), out_lengths - 1]
        return self.fc(last), out, h_n, packed


model = Classifier()
with torch.no_grad():
    for name, p in model.named_parameters():
        p.copy_(torch.tensor(rng.uniform(-0.5, 0.5, tuple(p.shape)), dtype=torch.float32))
    model.emb.weight[0].zero_()
logits, out, h_n, packed = model(padded, lengths)
print(packed.batch_sizes, packed.sorted_indices, packed.unsorted_indices)
print(out.shape, out[2, 2:].abs().sum().item(), torch.allclose(out[torch.arange(4), lengths - 1], h_n[0]))
opt = torch.optim.Adam(model.parameters(), lr=0.05)
for step in range(4):
    logits, *_ = model(padded, lengths)
    loss = nn.functional.cross_entropy(logits, labels)
    opt.zero_grad()
    loss.backward()
    opt.step()
    print(f"step {step}: loss {loss.item():.5f} emb pad grad {model.emb.weight.grad[0].abs().sum().item()}")
print(logits.argmax(1), model.emb.weight[0])
