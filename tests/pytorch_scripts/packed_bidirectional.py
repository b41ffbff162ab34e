"""Variable-length batches through recurrent layers the way NLP tutorials do it: sort by length,
pack_padded_sequence into bidirectional multi-layer GRU and LSTM, pad_packed_sequence back with
total_length, take the last real step of each direction from h_n, unsorted batches with
enforce_sorted=False, pack_sequence, PackedSequence fields, and gradients that stop at padding."""
import numpy as np
import fluxgrad as torch
import fluxgrad.nn as nn
from fluxgrad.nn.utils.rnn import (pack_padded_sequence, pad_packed_sequence, pack_sequence,
                                   pad_sequence)

rng = np.random.default_rng(5)


def fill(module):
    with torch.no_grad():
        for p in module.parameters():
            p.copy_(torch.from_numpy(rng.uniform(-0.4, 0.4, tuple(p.shape)).astype(np.float32)))
    return module


vocab, emb_dim, hidden = 12, 3, 4
sentences = [[4, 5, 6, 7], [8, 9], [3, 10, 11], [2]]
lengths = torch.tensor([len(s) for s in sentences])
padded = pad_sequence([torch.tensor(s) for s in sentences], batch_first=True, padding_value=0)
print(padded, lengths)
lengths_sorted, order = lengths.sort(descending=True)
print(lengths_sorted, order)

emb = fill(nn.Embedding(vocab, emb_dim, padding_idx=0))
gru = fill(nn.GRU(emb_dim, hidden, num_layers=2, bidirectional=True, batch_first=True))
x = emb(padded[order])
packed = pack_padded_sequence(x, lengths_sorted, batch_first=True)
print(type(packed).__name__, packed.batch_sizes, packed.data.shape)
out, h_n = gru(packed)
out, out_lengths = pad_packed_sequence(out, batch_first=True, total_length=5)
print(out.shape, out_lengths, h_n.shape)
print(out[1], out[3, 0])
h_last = torch.cat([h_n[-2], h_n[-1]], dim=1)
print(h_last)
print(torch.allclose(out[torch.arange(4), lengths_sorted - 1, :hidden], h_n[-2]),
      torch.allclose(out[:, 0, hidden:], h_n[-1]))

lstm = fill(nn.LSTM(emb_dim, hidden, num_layers=2, bidirectional=True, dropout=0.0))
x_tm = emb(padded).transpose(0, 1)
packed = pack_padded_sequence(x_tm, lengths, enforce_sorted=False)
print(packed.sorted_indices, packed.unsorted_indices)
out, (h, c) = lstm(packed)
out, lens = pad_packed_sequence(out, padding_value=-1.0)
print(out.shape, lens, out[:, 3, :2])
print(h[-1], c[0])
h0 = torch.zeros(4, 4, hidden)
c0 = torch.full((4, 4, hidden), 0.1)
out2, (h2, _) = lstm(packed, (h0, c0))
print(h2[1])

seqs = [torch.tensor([[1.0, 0.5, -1.0], [0.2, 0.1, 0.0], [0.3, -0.3, 0.9]]),
        torch.tensor([[0.7, 0.7, 0.7]]), torch.tensor([[-1.0, 1.0, 0.0], [0.4, 0.4, 0.4]])]
packed = pack_sequence(seqs, enforce_sorted=False)
print(packed.data, packed.batch_sizes)
rnn = fill(nn.RNN(3, 2, bidirectional=True))
out, h = rnn(packed)
padded_out, lens = pad_packed_sequence(out, batch_first=True)
print(padded_out, h)

classifier = fill(nn.Linear(2 * hidden, 3))
opt = torch.optim.SGD(list(emb.parameters()) + list(gru.parameters()) + list(classifier.parameters()), lr=0.3)
targets = torch.tensor([0, 2, 1, 1])
for epoch in range(3):
    x = emb(padded)
    packed = pack_padded_sequence(x, lengths, batch_first=True, enforce_sorted=False)
    _, h_n = gru(packed)
    logits = classifier(torch.cat([h_n[-2], h_n[-1]], dim=1))
    loss = nn.functional.cross_entropy(logits, targets)
    opt.zero_grad()
    loss.backward()
    opt.step()
    print(epoch, round(loss.item(), 5), emb.weight.grad[0].abs().sum().item(), emb.weight.grad[5])
