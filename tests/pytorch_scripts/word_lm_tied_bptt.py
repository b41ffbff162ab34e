"""The word-level language model example in small: an Embedding + LSTM + Linear decoder whose weight
is tied to the embedding (the same Parameter in two modules), batchify into columns, get_batch for
truncated BPTT, repackage_hidden (detach between chunks), gradient clipping, perplexity, and a
manual SGD update `p.data.add_(p.grad, alpha=-lr)` as the original example does."""
import math
import numpy as np
import fluxgrad as torch
import fluxgrad.nn as nn

rng = np.random.default_rng(41)
ntokens, emsize, bptt = 12, 6, 5
corpus = torch.from_numpy(rng.integers(0, ntokens, 61))


def batchify(data, bsz):
    nbatch = data.size(0) // bsz
    data = data.narrow(0, 0, nbatch * bsz)
    return data.view(bsz, -1).t().contiguous()


def get_batch(source, i):
    seq_len = min(bptt, len(source) - 1 - i)
    return source[i:i + seq_len], source[i + 1:i + 1 + seq_len].reshape(-1)


class RNNModel(nn.Module):
    def __init__(self):
        super().__init__()
        self.drop = nn.Dropout(0.0)
        self.encoder = nn.Embedding(ntokens, emsize)
        self.rnn = nn.LSTM(emsize, emsize, 2)
        self.decoder = nn.Linear(emsize, ntokens)
        self.decoder.weight = self.encoder.weight

    def forward(self, input, hidden):
        output, hidden = self.rnn(self.drop(self.encoder(input)), hidden)
        return self.decoder(self.drop(output)).view(-1, ntokens), hidden

    def init_hidden(self, bsz):
        weight = next(self.parameters())
        return (weight.new_zeros(2, bsz, emsize), weight.new_zeros(2, bsz, emsize))


def repackage_hidden(h):
    if isinstance(h, torch.Tensor):
        return h.detach()
    return tuple(repackage_hidden(v) for v in h)


train_data = batchify(corpus, 4)
print(train_data.shape, train_data[:2], get_batch(train_data, 10)[1].shape)
model = RNNModel()
with torch.no_grad():
    for p in model.parameters():
        p.copy_(torch.from_numpy(rng.uniform(-0.3, 0.3, tuple(p.shape)).astype(np.float32)))
print(model.decoder.weight is model.encoder.weight, len(list(model.parameters())), list(model.state_dict().keys())[:3])
criterion = nn.CrossEntropyLoss()
lr = 2.0
for epoch in range(2):
    hidden = model.init_hidden(4)
    total = 0.0
    for batch, i in enumerate(range(0, train_data.size(0) - 1, bptt)):
        data, targets = get_batch(train_data, i)
        model.zero_grad()
        hidden = repackage_hidden(hidden)
        output, hidden = model(data, hidden)
        loss = criterion(output, targets)
        loss.backward()
        torch.nn.utils.clip_grad_norm_(model.parameters(), 0.25)
        for p in model.parameters():
            p.data.add_(p.grad, alpha=-lr)
        total += loss.item()
    print(epoch, batch, f"{total / (batch + 1):.5f}", f"{math.exp(total / (batch + 1)):.4f}", hidden[0].requires_grad)
model.eval()
with torch.no_grad():
    hidden = model.init_hidden(1)
    word = torch.tensor([[3]])
    words = []
    for _ in range(6):
        output, hidden = model(word, hidden)
        word = output.argmax(-1).view(1, 1)
        words.append(word.item())
print(words, model.encoder.weight[3, :3])
