"""RNN, LSTM and GRU (batch_first, multi-layer, bidirectional), LSTMCell, packed sequences."""
import numpy as np
import fluxgrad as torch
import fluxgrad.nn as nn

rng = np.random.default_rng(3)


def fill(module):
    with torch.no_grad():
        for p in module.parameters():
            p.copy_(torch.from_numpy(rng.uniform(-0.5, 0.5, tuple(p.shape)).astype(np.float32)))
    return module


x = torch.from_numpy(rng.standard_normal((2, 5, 3)).astype(np.float32))
rnn = fill(nn.RNN(3, 4, num_layers=2, batch_first=True))
out, h = rnn(x)
print(out.shape, h.shape, out[:, -1], h[-1])
lstm = fill(nn.LSTM(input_size=3, hidden_size=4, batch_first=True))
out, (h, c) = lstm(x)
print(out[0, :2], h, c)
print([name for name, _ in lstm.named_parameters()])
h0 = torch.zeros(1, 2, 4)
c0 = torch.ones(1, 2, 4)
out2, (h2, c2) = lstm(x, (h0, c0))
print(h2)
bi = fill(nn.LSTM(3, 2, num_layers=2, bidirectional=True))
seq = x.transpose(0, 1)
out, (h, c) = bi(seq)
print(out.shape, h.shape, out[-1], h[1])
gru = fill(nn.GRU(3, 4, batch_first=True))
out, h = gru(x)
print(out[1, -1], h)
loss = out.pow(2).mean()
loss.backward()
print(gru.weight_hh_l0.grad[:2], gru.bias_ih_l0.grad)
cell = fill(nn.LSTMCell(3, 4))
hx, cx = torch.zeros(2, 4), torch.zeros(2, 4)
for t in range(x.size(1)):
    hx, cx = cell(x[:, t], (hx, cx))
print(hx, cx)
gcell = fill(nn.GRUCell(3, 2))
print(gcell(x[:, 0]), fill(nn.RNNCell(3, 2, nonlinearity="relu"))(x[:, 0]))
from fluxgrad.nn.utils.rnn import pack_padded_sequence, pad_packed_sequence, pad_sequence
seqs = [torch.ones(3, 2), torch.ones(1, 2) * 2, torch.ones(2, 2) * 3]
padded = pad_sequence(seqs, batch_first=True)
print(padded, padded.shape)
lengths = torch.tensor([3, 1, 2])
gru2 = fill(nn.GRU(2, 3, batch_first=True))
packed = pack_padded_sequence(padded, lengths, batch_first=True, enforce_sorted=False)
out, h = gru2(packed)
unpacked, lens = pad_packed_sequence(out, batch_first=True)
print(unpacked, lens, h)


class Tagger(nn.Module):
    def __init__(self):
        super().__init__()
        self.emb = nn.Embedding(10, 3)
        self.lstm = nn.LSTM(3, 5, batch_first=True)
        self.head = nn.Linear(5, 2)

    def forward(self, tokens):
        out, _ = self.lstm(self.emb(tokens))
        return self.head(out[:, -1, :])


tagger = fill(Tagger())
tokens = torch.tensor([[1, 2, 3], [4, 5, 9]])
opt = torch.optim.SGD(tagger.parameters(), lr=0.5)
for _ in range(3):
    opt.zero_grad()
    loss = nn.functional.cross_entropy(tagger(tokens), torch.tensor([0, 1]))
    loss.backward()
    opt.step()
    print(loss.item())
