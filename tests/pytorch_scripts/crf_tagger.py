"""A BiLSTM-CRF sequence tagger as NER tutorials write it: emissions from a bidirectional LSTM, a
transition matrix Parameter, the forward algorithm with logsumexp over broadcast scores and masks,
the gold path score with gather, the negative log-likelihood trained a few steps, and Viterbi decoding
with max/argmax and backtracking."""
import numpy as np
import fluxgrad as torch
import fluxgrad.nn as nn

rng = np.random.default_rng(127)
START, STOP, num_tags = 3, 4, 5


class BiLSTMCRF(nn.Module):
    def __init__(self, vocab, emb=4, hidden=6):
        super().__init__()
        self.embed = nn.Embedding(vocab, emb)
        self.lstm = nn.LSTM(emb, hidden // 2, bidirectional=True, batch_first=True)
        self.hidden2tag = nn.Linear(hidden, num_tags)
        self.transitions = nn.Parameter(torch.zeros(num_tags, num_tags))

    def emissions(self, tokens):
        out, _ = self.lstm(self.embed(tokens))
        return self.hidden2tag(out)

    def log_partition(self, feats, mask):
        batch, seq_len, _ = feats.shape
        alpha = torch.full((batch, num_tags), -10000.0)
        alpha[:, START] = 0.0
        for t in range(seq_len):
            scores = alpha.unsqueeze(2) + self.transitions.T.unsqueeze(0) + feats[:, t].unsqueeze(1)
            new_alpha = torch.logsumexp(scores, dim=1)
            m = mask[:, t].unsqueeze(1)
            alpha = torch.where(m, new_alpha, alpha)
        return torch.logsumexp(alpha + self.transitions[STOP].unsqueeze(0), dim=1)

    def gold_score(self, feats, tags, mask):
        batch, seq_len, _ = feats.shape
        emit = feats.gather(2, tags.unsqueeze(2)).squeeze(2)
        start = torch.full((batch, 1), START, dtype=torch.long)
        prev = torch.cat([start, tags[:, :-1]], dim=1)
        trans = self.transitions[tags, prev]
        score = ((emit + trans) * mask.float()).sum(1)
        lengths = mask.sum(1)
        last = tags.gather(1, (lengths - 1).unsqueeze(1)).squeeze(1)
        return score + self.transitions[STOP, last]

    def nll(self, tokens, tags, mask):
        feats = self.emissions(tokens)
        return (self.log_partition(feats, mask) - self.gold_score(feats, tags, mask)).mean()

    def viterbi(self, tokens, mask):
        feats = self.emissions(tokens)
        batch, seq_len, _ = feats.shape
        score = torch.full((batch, num_tags), -10000.0)
        score[:, START] = 0.0
        history = []
        for t in range(seq_len):
            s = score.unsqueeze(2) + self.transitions.T.unsqueeze(0)
            best, idx = s.max(dim=1)
            history.append(idx)
            score = torch.where(mask[:, t].unsqueeze(1), best + feats[:, t], score)
        score = score + self.transitions[STOP].unsqueeze(0)
        best_score, best_last = score.max(dim=1)
        paths = []
        for b in range(batch):
            length = int(mask[b].sum())
            tag = best_last[b].item()
            path = [tag]
            for t in range(length - 1, 0, -1):
                tag = history[t][b, tag].item()
                path.append(tag)
            paths.append(path[::-1])
        return best_score, paths


model = BiLSTMCRF(vocab=10)
with torch.no_grad():
    for name, p in model.named_parameters():
        p.copy_(torch.from_numpy(rng.uniform(-0.5, 0.5, tuple(p.shape)).astype(np.float32)))
    model.transitions[START, :] = -10000.0
    model.transitions[:, STOP] = -10000.0
tokens = torch.tensor([[1, 2, 3, 4], [5, 6, 7, 0]])
tags = torch.tensor([[0, 1, 2, 1], [2, 2, 0, 0]])
mask = torch.tensor([[True, True, True, True], [True, True, True, False]])
print(model.emissions(tokens).shape, model.nll(tokens, tags, mask))
optimizer = torch.optim.SGD(model.parameters(), lr=0.05, weight_decay=1e-4)
for epoch in range(4):
    optimizer.zero_grad()
    loss = model.nll(tokens, tags, mask)
    loss.backward()
    optimizer.step()
    print(epoch, round(loss.item(), 4), model.transitions.grad[0, :3])
with torch.no_grad():
    best_score, paths = model.viterbi(tokens, mask)
print(best_score, paths)
