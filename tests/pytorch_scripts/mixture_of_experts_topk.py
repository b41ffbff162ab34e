"""A sparse mixture-of-experts layer as in Switch/Mixtral reference code: a linear router, topk
over the gate logits, softmax over the kept logits, a loop over experts with torch.where on the
selected slots and index_add_ of the weighted outputs, the load-balancing auxiliary loss from the
fraction routed (one_hot, mean) and the mean router probability, and the gradients of it all."""
import numpy as np
import fluxgrad as torch
import fluxgrad.nn as nn
import fluxgrad.nn.functional as F

rng = np.random.default_rng(13)
D, E, K, T = 6, 4, 2, 10


class Expert(nn.Module):
    def __init__(self):
        super().__init__()
        self.w1 = nn.Linear(D, 12)
        self.w2 = nn.Linear(12, D)

    def forward(self, x):
        return self.w2(F.gelu(self.w1(x)))


class MoE(nn.Module):
    def __init__(self):
        super().__init__()
        self.gate = nn.Linear(D, E, bias=False)
        self.experts = nn.ModuleList([Expert() for _ in range(E)])

    def forward(self, x):
        logits = self.gate(x)
        weights, selected = torch.topk(logits, K, dim=-1)
        weights = F.softmax(weights, dim=-1, dtype=torch.float).to(x.dtype)
        out = torch.zeros_like(x)
        expert_mask = F.one_hot(selected, num_classes=E).permute(2, 1, 0)
        for e, expert in enumerate(self.experts):
            slot, token = torch.where(expert_mask[e])
            if token.numel() == 0:
                continue
            y = expert(x[token]) * weights[token, slot, None]
            out.index_add_(0, token, y.to(x.dtype))
        probs = F.softmax(logits, dim=-1)
        tokens_per_expert = F.one_hot(selected[:, 0], E).float().mean(0)
        aux = E * (tokens_per_expert * probs.mean(0)).sum()
        return out, aux, selected


moe = MoE()
with torch.no_grad():
    for p in moe.parameters():
        p.copy_(torch.from_numpy(rng.normal(0, 0.5, tuple(p.shape)).astype(np.float32)))
x = torch.from_numpy(rng.normal(0, 1, (T, D)).astype(np.float32))
out, aux, selected = moe(x)
print(selected)
print(torch.bincount(selected.flatten(), minlength=E))
print(out[:3], round(aux.item(), 5))
dense = torch.stack([e(x) for e in moe.experts], dim=1)
gates = torch.zeros(T, E).scatter(1, selected, F.softmax(moe.gate(x).gather(1, selected), -1))
print(torch.allclose((gates.unsqueeze(-1) * dense).sum(1), out, atol=1e-5), gates[0])

target = torch.from_numpy(rng.normal(0, 1, (T, D)).astype(np.float32))
loss = F.mse_loss(out, target) + 0.01 * aux
loss.backward()
print(round(loss.item(), 5), moe.gate.weight.grad.norm())
print([None if e.w1.weight.grad is None else round(e.w1.weight.grad.abs().sum().item(), 4)
       for e in moe.experts])
