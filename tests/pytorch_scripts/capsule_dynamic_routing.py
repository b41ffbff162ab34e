"""Dynamic routing between capsules (Sabour et al.) on tensors: the squash non-linearity,
prediction vectors u_hat from a weight tensor by einsum/matmul, routing logits updated by
agreement over three iterations with softmax over the output capsules, capsule lengths as
class scores, and the margin loss; gradients reach the transformation weights."""
import numpy as np
import fluxgrad as torch
import fluxgrad.nn.functional as F

rng = np.random.default_rng(131)


def squash(s, dim=-1, eps=1e-8):
    sq = (s ** 2).sum(dim=dim, keepdim=True)
    return sq / (1 + sq) * s / torch.sqrt(sq + eps)


B, n_in, d_in, n_out, d_out = 2, 6, 4, 3, 5
u = squash(torch.tensor(rng.standard_normal((B, n_in, d_in)), dtype=torch.float32))
W = torch.tensor(rng.normal(0, 0.5, (n_in, n_out, d_out, d_in)), dtype=torch.float32, requires_grad=True)
u_hat = torch.einsum("ijkl,bil->bijk", W, u)
alt = (W.unsqueeze(0) @ u[:, :, None, :, None]).squeeze(-1)
print(u_hat.shape, torch.allclose(u_hat, alt, atol=1e-6), u.norm(dim=-1).max().item() < 1)

b = torch.zeros(B, n_in, n_out)
u_hat_detached = u_hat.detach()
for it in range(3):
    c = F.softmax(b, dim=2)
    if it == 2:
        s = (c.unsqueeze(-1) * u_hat).sum(dim=1)
        v = squash(s)
    else:
        s = (c.unsqueeze(-1) * u_hat_detached).sum(dim=1)
        v = squash(s)
        b = b + (u_hat_detached * v.unsqueeze(1)).sum(dim=-1)
    print(f"iter {it}: c[0,0] {c[0, 0].numpy().round(5).tolist()} |v| {v.norm(dim=-1)[0].detach().numpy().round(5).tolist()}")
lengths = v.norm(dim=-1)
labels = F.one_hot(torch.tensor([0, 2]), n_out).float()
m_plus, m_minus, lam = 0.9, 0.1, 0.5
loss = (labels * F.relu(m_plus - lengths) ** 2 + lam * (1 - labels) * F.relu(lengths - m_minus) ** 2).sum(1).mean()
loss.backward()
print(lengths, loss.item(), lengths.argmax(1))
print(W.grad.shape, W.grad.abs().sum().item(), W.grad[0, 0, 0])
