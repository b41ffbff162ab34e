"""Character-level text generation with an LSTM language model the way blog posts write it: a
vocabulary from sorted(set(text)), stoi/itos dicts, (input, target) windows shifted by one,
nn.LSTM with batch_first and a carried hidden state detached between batches (truncated BPTT),
gradient clipping, then sampling with temperature and top-k (softmax, topk, scatter into a
-inf logit vector), the next character drawn from NumPy with the model's probabilities, and the
perplexity of the training text."""
import math

import numpy as np
import fluxgrad as torch
import fluxgrad.nn as nn
import fluxgrad.nn.functional as F

text = "hello world. hello there. the world is wide. "
chars = sorted(set(text))
stoi = {c: i for i, c in enumerate(chars)}
itos = {i: c for c, i in stoi.items()}
data = torch.tensor([stoi[c] for c in text], dtype=torch.long)
print(len(chars), "".join(chars), data[:10])


class CharLSTM(nn.Module):
    def __init__(self, vocab, emb=8, hidden=16, layers=2):
        super().__init__()
        self.embed = nn.Embedding(vocab, emb)
        self.lstm = nn.LSTM(emb, hidden, num_layers=layers, batch_first=True)
        self.fc = nn.Linear(hidden, vocab)

    def forward(self, x, state=None):
        out, state = self.lstm(self.embed(x), state)
        return self.fc(out), state


model = CharLSTM(len(chars))
local = np.random.default_rng(61)
with torch.no_grad():
    for p in model.parameters():
        p.copy_(torch.from_numpy(local.uniform(-0.3, 0.3, tuple(p.shape)).astype(np.float32)))
opt = torch.optim.Adam(model.parameters(), lr=0.01)
seq_len, batch = 8, 2
n = (len(data) - 1) // (seq_len * batch) * seq_len * batch
inputs = data[:n].view(batch, -1)
targets = data[1:n + 1].view(batch, -1)
print(inputs.shape)
for epoch in range(3):
    state = None
    total = 0.0
    for i in range(0, inputs.size(1), seq_len):
        x, y = inputs[:, i:i + seq_len], targets[:, i:i + seq_len]
        if state is not None:
            state = tuple(s.detach() for s in state)
        logits, state = model(x, state)
        loss = F.cross_entropy(logits.reshape(-1, len(chars)), y.reshape(-1))
        opt.zero_grad()
        loss.backward()
        nn.utils.clip_grad_norm_(model.parameters(), 1.0)
        opt.step()
        total += loss.item()
    print(epoch, f"{total / (inputs.size(1) // seq_len):.5f}")

pick = np.random.default_rng(0)


def sample(model, start, length, temperature=1.0, top_k=None):
    model.eval()
    idx = torch.tensor([[stoi[c] for c in start]])
    out = list(start)
    state = None
    with torch.no_grad():
        logits, state = model(idx, state)
        for _ in range(length):
            last = logits[0, -1] / temperature
            if top_k is not None:
                values, indices = torch.topk(last, top_k)
                last = torch.full_like(last, float("-inf")).scatter(0, indices, values)
            probs = F.softmax(last, dim=-1).double().numpy()
            nxt = int(pick.choice(len(probs), p=probs / probs.sum()))
            out.append(itos[nxt])
            logits, state = model(torch.tensor([[nxt]]), state)
    return "".join(out)


print(repr(sample(model, "he", 12, temperature=0.5)))
print(repr(sample(model, "th", 12, temperature=1.0, top_k=3)))
print(repr(sample(model, "w", 8, temperature=1e-3)))
with torch.no_grad():
    logits, _ = model(data[:-1].unsqueeze(0))
    nll = F.cross_entropy(logits[0], data[1:])
print(f"{nll.item():.5f}", f"{math.exp(nll.item()):.4f}")
probs = F.softmax(logits[0, -1] / 0.7, dim=-1)
print(probs.sum(), probs.argmax(), torch.distributions.Categorical(probs=probs).entropy())
