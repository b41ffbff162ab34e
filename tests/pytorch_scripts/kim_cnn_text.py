"""Kim's CNN for sentence classification as people reimplement it: an embedding (padding_idx,
from_pretrained-style copy, then a second static copy frozen), Conv1d branches of widths 2/3/4 on
the permuted (N, E, L) input, max-over-time with max(dim=2) and F.max_pool1d(kernel_size=L), dropout
in eval, concatenation, BCEWithLogitsLoss with pos_weight for a multi-label head, a max_norm
constraint on the final layer's rows, and a few Adadelta steps."""
import numpy as np
import fluxgrad as torch
import fluxgrad.nn as nn
import fluxgrad.nn.functional as F

rng = np.random.default_rng(97)
V, E, L, K = 20, 6, 7, 3
pretrained = torch.from_numpy(rng.normal(0, 1, (V, E)).astype(np.float32))


class KimCNN(nn.Module):
    def __init__(self):
        super().__init__()
        self.embed = nn.Embedding(V, E, padding_idx=0)
        self.embed.weight.data.copy_(pretrained)
        self.static = nn.Embedding.from_pretrained(pretrained, freeze=True, padding_idx=0)
        self.convs = nn.ModuleList([nn.Conv1d(2 * E, 4, k) for k in (2, 3, 4)])
        self.dropout = nn.Dropout(0.5)
        self.fc = nn.Linear(12, K)

    def forward(self, x):
        emb = torch.cat([self.embed(x), self.static(x)], dim=2).permute(0, 2, 1)
        pooled = []
        for i, conv in enumerate(self.convs):
            h = F.relu(conv(emb))
            pooled.append(h.max(dim=2)[0] if i % 2 == 0 else F.max_pool1d(h, h.size(2)).squeeze(2))
        return self.fc(self.dropout(torch.cat(pooled, 1)))


model = KimCNN()
with torch.no_grad():
    for name, p in model.named_parameters():
        if not name.startswith("embed"):
            p.copy_(torch.from_numpy(rng.normal(0, 0.3, tuple(p.shape)).astype(np.float32)))
print(model.embed.weight[0], model.static.weight.requires_grad)
tokens = torch.from_numpy(rng.integers(1, V, (5, L)))
tokens[1, 5:] = 0
tokens[3, 4:] = 0
labels = torch.from_numpy(rng.integers(0, 2, (5, K)).astype(np.float32))
criterion = nn.BCEWithLogitsLoss(pos_weight=torch.tensor([1.0, 2.0, 0.5]))
optimizer = torch.optim.Adadelta(filter(lambda p: p.requires_grad, model.parameters()), lr=1.0, rho=0.95)
model.eval()
for step in range(4):
    logits = model(tokens)
    loss = criterion(logits, labels)
    optimizer.zero_grad()
    loss.backward()
    optimizer.step()
    with torch.no_grad():
        norms = model.fc.weight.norm(dim=1, keepdim=True)
        model.fc.weight.mul_(torch.clamp(3.0 / norms, max=1.0))
    print(step, round(loss.item(), 5), model.embed.weight.grad[0].abs().sum().item())
probs = torch.sigmoid(model(tokens))
preds = (probs > 0.5).float()
print(probs)
print((preds == labels).float().mean().item(), (preds != labels).float().sum(1))
print(model.fc.weight.norm(dim=1), torch.equal(model.static.weight, pretrained))
