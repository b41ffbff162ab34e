"""A graph attention layer (GAT, as in pyGAT): Wh, the pairwise attention logits built by
broadcasting the two halves of `a`, leaky_relu, masking non-edges with -9e15 through torch.where
on the adjacency, softmax over neighbours, ELU, multi-head concatenation and an averaging output
head, trained a few steps with Adam and weight decay on a toy node classification task."""
import numpy as np
import fluxgrad as torch
import fluxgrad.nn as nn
import fluxgrad.nn.functional as F

rng = np.random.default_rng(23)
N, Fin, Fh, C, heads = 7, 5, 4, 3, 2


class GraphAttentionLayer(nn.Module):
    def __init__(self, in_features, out_features, alpha=0.2, concat=True):
        super().__init__()
        self.out_features, self.concat, self.alpha = out_features, concat, alpha
        self.W = nn.Parameter(torch.empty(size=(in_features, out_features)))
        self.a = nn.Parameter(torch.empty(size=(2 * out_features, 1)))
        with torch.no_grad():
            self.W.copy_(torch.from_numpy(rng.normal(0, 0.5, (in_features, out_features)).astype(np.float32)))
            self.a.copy_(torch.from_numpy(rng.normal(0, 0.5, (2 * out_features, 1)).astype(np.float32)))
        self.leakyrelu = nn.LeakyReLU(self.alpha)

    def forward(self, h, adj):
        Wh = torch.mm(h, self.W)
        Wh1 = torch.matmul(Wh, self.a[:self.out_features, :])
        Wh2 = torch.matmul(Wh, self.a[self.out_features:, :])
        e = self.leakyrelu(Wh1 + Wh2.T)
        zero_vec = -9e15 * torch.ones_like(e)
        attention = torch.where(adj > 0, e, zero_vec)
        attention = F.softmax(attention, dim=1)
        attention = F.dropout(attention, 0.5, training=self.training)
        h_prime = torch.matmul(attention, Wh)
        return (F.elu(h_prime) if self.concat else h_prime), attention


class GAT(nn.Module):
    def __init__(self):
        super().__init__()
        self.attentions = nn.ModuleList([GraphAttentionLayer(Fin, Fh) for _ in range(heads)])
        self.out_att = GraphAttentionLayer(Fh * heads, C, concat=False)

    def forward(self, x, adj):
        x = torch.cat([att(x, adj)[0] for att in self.attentions], dim=1)
        x = F.elu(self.out_att(x, adj)[0])
        return F.log_softmax(x, dim=1)


edges = torch.tensor([[0, 1], [1, 2], [2, 3], [3, 4], [4, 5], [5, 6], [6, 0], [1, 4]])
adj = torch.zeros(N, N)
adj[edges[:, 0], edges[:, 1]] = 1
adj = adj + adj.t() + torch.eye(N)
print(adj.sum(1))
features = torch.from_numpy(rng.normal(0, 1, (N, Fin)).astype(np.float32))
labels = torch.tensor([0, 0, 1, 1, 2, 2, 0])
model = GAT()
model.eval()
_, att = model.attentions[0](features, adj)
print(att[1], att.sum(1))
model.train()
opt = torch.optim.Adam(model.parameters(), lr=0.05, weight_decay=5e-4)
model.eval()
for epoch in range(5):
    opt.zero_grad()
    output = model(features, adj)
    loss = F.nll_loss(output[:5], labels[:5])
    acc = (output.max(1)[1][:5] == labels[:5]).double().mean()
    loss.backward()
    opt.step()
    print(epoch, round(loss.item(), 5), acc.item())
with torch.no_grad():
    out = model(features, adj)
print(out.exp(), out.argmax(1))
