"""Char-level RNN the way the "names" tutorials write it: a vocabulary dict, one-hot letters, an
nn.RNN classifier over a name, temperature softmax, torch.multinomial and Categorical sampling with
seeded generators (checked for range, shape and reproducibility), and greedy argmax generation."""
import numpy as np
import fluxgrad as torch
import fluxgrad.nn as nn
import fluxgrad.nn.functional as F
from fluxgrad.distributions import Categorical

rng = np.random.default_rng(17)
all_letters = "abcdefgh .,"
n_letters = len(all_letters)


def letterToIndex(letter):
    return all_letters.find(letter)


def lineToTensor(line):
    tensor = torch.zeros(len(line), 1, n_letters)
    for li, letter in enumerate(line):
        tensor[li][0][letterToIndex(letter)] = 1
    return tensor


print(lineToTensor("cab").size(), lineToTensor("cab")[1], letterToIndex("h"))


class CharRNN(nn.Module):
    def __init__(self, input_size, hidden_size, output_size):
        super().__init__()
        self.rnn = nn.RNN(input_size, hidden_size)
        self.h2o = nn.Linear(hidden_size, output_size)
        self.softmax = nn.LogSoftmax(dim=1)

    def forward(self, line_tensor):
        rnn_out, hidden = self.rnn(line_tensor)
        output = self.h2o(hidden[0])
        return self.softmax(output)


rnn = CharRNN(n_letters, 6, 3)
with torch.no_grad():
    for p in rnn.parameters():
        p.copy_(torch.from_numpy(rng.uniform(-0.4, 0.4, tuple(p.shape)).astype(np.float32)))
output = rnn(lineToTensor("bead"))
print(output)
top_n, top_i = output.topk(1)
print(top_n, top_i[0].item())
names = ["bad", "cafe", "ace", "hedge", "gab"]
labels = torch.tensor([0, 1, 2, 1, 0])
criterion = nn.NLLLoss()
optimizer = torch.optim.SGD(rnn.parameters(), lr=0.1)
for it in range(3):
    total = 0.0
    for name, label in zip(names, labels):
        rnn.zero_grad()
        output = rnn(lineToTensor(name))
        loss = criterion(output, label.view(1))
        loss.backward()
        nn.utils.clip_grad_norm_(rnn.parameters(), 3)
        optimizer.step()
        total += loss.item()
    print(it, round(total / len(names), 5))
logits = torch.tensor([[2.0, 1.0, 0.1, -1.0]])
for temperature in (0.5, 1.0, 2.0):
    print(temperature, F.softmax(logits / temperature, dim=-1))
probs = F.softmax(logits, dim=-1)
g = torch.Generator().manual_seed(0)
draws = torch.multinomial(probs, num_samples=20, replacement=True, generator=g)
again = torch.multinomial(probs, num_samples=20, replacement=True, generator=torch.Generator().manual_seed(0))
print(draws.shape, draws.dtype, bool((draws >= 0).all() and (draws < 4).all()), torch.equal(draws, again))
no_repeat = torch.multinomial(torch.tensor([0.1, 0.2, 0.3, 0.4]), 4)
print(sorted(no_repeat.tolist()), torch.multinomial(torch.tensor([0.0, 1.0, 0.0]), 3, replacement=True))
dist = Categorical(logits=logits.squeeze(0))
print(dist.probs, dist.entropy(), dist.log_prob(torch.tensor([0, 3])), dist.sample().shape, dist.sample((5,)).shape)
torch.manual_seed(1)
a = dist.sample((6,))
torch.manual_seed(1)
print(torch.equal(a, dist.sample((6,))), a.dtype)
print(Categorical(probs=torch.tensor([[0.0, 1.0, 0.0], [0.0, 0.0, 1.0]])).sample(), Categorical(probs=torch.tensor([1.0, 3.0])).probs)
embed = nn.Embedding(n_letters, 4)
lstm = nn.LSTM(4, 8, batch_first=True)
head = nn.Linear(8, n_letters)
for module in (embed, lstm, head):
    with torch.no_grad():
        for p in module.parameters():
            p.copy_(torch.from_numpy(rng.uniform(-0.6, 0.6, tuple(p.shape)).astype(np.float32)))
with torch.no_grad():
    idx = torch.tensor([[letterToIndex("a")]])
    state = None
    text = "a"
    for _ in range(8):
        out, state = lstm(embed(idx), state)
        next_idx = head(out[:, -1]).argmax(dim=-1, keepdim=True)
        text += all_letters[next_idx.item()]
        idx = next_idx
    print(repr(text), state[0].shape, state[1][0, 0, :3])
