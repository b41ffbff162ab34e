"""A graph neural network written by hand, PyG-style without PyG: edge_index, degree by bincount,
self-loops with cat, symmetric normalisation with pow(-0.5) and masked_fill of inf, message passing
with index_add_ / scatter_add / scatter_reduce('amax'), a two-layer GCN trained on a toy graph, and a
dense-adjacency version checked against it."""
import numpy as np
import fluxgrad as torch
import fluxgrad.nn as nn
import fluxgrad.nn.functional as F

rng = np.random.default_rng(79)
edge_index = torch.tensor([[0, 1, 1, 2, 2, 3, 3, 4, 4, 5, 0, 5],
                           [1, 0, 2, 1, 3, 2, 4, 3, 5, 4, 5, 0]])
num_nodes = 6
x = torch.from_numpy(rng.standard_normal((num_nodes, 3)).astype(np.float32))
y = torch.tensor([0, 0, 1, 1, 2, 2])


def add_self_loops(edge_index, num_nodes):
    loops = torch.arange(num_nodes).unsqueeze(0).repeat(2, 1)
    return torch.cat([edge_index, loops], dim=1)


def gcn_norm(edge_index, num_nodes):
    row, col = edge_index
    deg = torch.bincount(col, minlength=num_nodes).float()
    deg_inv_sqrt = deg.pow(-0.5)
    deg_inv_sqrt.masked_fill_(deg_inv_sqrt == float("inf"), 0)
    return deg_inv_sqrt[row] * deg_inv_sqrt[col]


ei = add_self_loops(edge_index, num_nodes)
norm = gcn_norm(ei, num_nodes)
print(ei.shape, norm[:4], torch.bincount(ei[1]))


class GCNLayer(nn.Module):
    def __init__(self, in_channels, out_channels):
        super().__init__()
        self.lin = nn.Linear(in_channels, out_channels, bias=False)
        self.bias = nn.Parameter(torch.zeros(out_channels))

    def forward(self, x, edge_index, norm):
        x = self.lin(x)
        row, col = edge_index
        msg = x[row] * norm.view(-1, 1)
        out = torch.zeros_like(x).index_add_(0, col, msg)
        return out + self.bias


class GCN(nn.Module):
    def __init__(self):
        super().__init__()
        self.conv1 = GCNLayer(3, 8)
        self.conv2 = GCNLayer(8, 3)

    def forward(self, x, edge_index, norm):
        h = F.relu(self.conv1(x, edge_index, norm))
        h = F.dropout(h, p=0.5, training=False)
        return self.conv2(h, edge_index, norm)


model = GCN()
with torch.no_grad():
    for p in model.parameters():
        p.copy_(torch.from_numpy(rng.uniform(-0.5, 0.5, tuple(p.shape)).astype(np.float32)))
optimizer = torch.optim.Adam(model.parameters(), lr=0.05, weight_decay=5e-4)
train_mask = torch.tensor([True, False, True, False, True, False])
for epoch in range(5):
    optimizer.zero_grad()
    out = model(x, ei, norm)
    loss = F.cross_entropy(out[train_mask], y[train_mask])
    loss.backward()
    optimizer.step()
    pred = out.argmax(dim=1)
    acc = (pred[~train_mask] == y[~train_mask]).sum().item() / int((~train_mask).sum())
    print(f"epoch {epoch} loss {loss.item():.4f} test acc {acc:.2f}")
A = torch.zeros(num_nodes, num_nodes)
A[ei[0], ei[1]] = 1.0
deg = A.sum(0)
D_inv_sqrt = torch.diag(deg.pow(-0.5))
A_hat = D_inv_sqrt @ A @ D_inv_sqrt
with torch.no_grad():
    dense = A_hat.T @ model.conv1.lin(x) + model.conv1.bias
    sparse = model.conv1(x, ei, norm)
print(torch.allclose(dense, sparse, atol=1e-5), A.sum().item(), torch.equal(A, A.T))
src = torch.from_numpy(rng.standard_normal((ei.size(1), 2)).astype(np.float32))
summed = torch.zeros(num_nodes, 2).scatter_add_(0, ei[1].unsqueeze(1).expand(-1, 2), src)
maxed = torch.zeros(num_nodes, 2).scatter_reduce(0, ei[1].unsqueeze(1).expand(-1, 2), src, reduce="amax", include_self=False)
meaned = torch.zeros(num_nodes, 2).scatter_reduce(0, ei[1].unsqueeze(1).expand(-1, 2), src, reduce="mean", include_self=False)
print(summed[0], maxed[0], meaned[0], torch.allclose(meaned * torch.bincount(ei[1]).unsqueeze(1), summed, atol=1e-5))
w = src.clone().requires_grad_()
torch.zeros(num_nodes, 2).scatter_reduce(0, ei[1].unsqueeze(1).expand(-1, 2), w, reduce="amax", include_self=False).sum().backward()
print(w.grad.sum(0), w.grad[:4])
alpha = torch.from_numpy(rng.standard_normal(ei.size(1)).astype(np.float32))
alpha_max = torch.zeros(num_nodes).scatter_reduce(0, ei[1], alpha, reduce="amax", include_self=False)
alpha = (alpha - alpha_max[ei[1]]).exp()
alpha = alpha / torch.zeros(num_nodes).index_add(0, ei[1], alpha)[ei[1]]
print(alpha[:5], torch.zeros(num_nodes).index_add(0, ei[1], alpha))
