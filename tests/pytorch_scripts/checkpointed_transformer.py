"""Activation checkpointing inside a model's forward the way memory-constrained training code
writes it: a pre-norm Transformer block stack where each block runs through
torch.utils.checkpoint.checkpoint(block, x, mask, use_reentrant=False) when training (and plainly
in eval), dropout=0 so recomputation is exact, checkpoint with keyword arguments and several
outputs, checkpoint_sequential over an nn.Sequential with segments, gradients equal with and
without checkpointing, an input that does not require grad, and no_grad inference."""
import numpy as np
import fluxgrad as torch
import fluxgrad.nn as nn
import fluxgrad.nn.functional as F
from fluxgrad.utils.checkpoint import checkpoint, checkpoint_sequential


class Block(nn.Module):
    def __init__(self, d=8, heads=2):
        super().__init__()
        self.ln1 = nn.LayerNorm(d)
        self.attn = nn.MultiheadAttention(d, heads, batch_first=True)
        self.ln2 = nn.LayerNorm(d)
        self.mlp = nn.Sequential(nn.Linear(d, 4 * d), nn.GELU(), nn.Linear(4 * d, d))

    def forward(self, x, mask):
        h = self.ln1(x)
        x = x + self.attn(h, h, h, attn_mask=mask, need_weights=False)[0]
        return x + self.mlp(self.ln2(x))


class Model(nn.Module):
    def __init__(self, use_checkpoint):
        super().__init__()
        self.emb = nn.Embedding(12, 8)
        self.blocks = nn.ModuleList(Block() for _ in range(3))
        self.head = nn.Linear(8, 12)
        self.use_checkpoint = use_checkpoint

    def forward(self, idx):
        T = idx.shape[1]
        mask = torch.triu(torch.ones(T, T, dtype=torch.bool), diagonal=1)
        x = self.emb(idx)
        for block in self.blocks:
            if self.use_checkpoint and self.training:
                x = checkpoint(block, x, mask, use_reentrant=False)
            else:
                x = block(x, mask)
        return self.head(x)


def build(flag):
    model = Model(flag)
    local = np.random.default_rng(89)
    with torch.no_grad():
        for p in model.parameters():
            p.copy_(torch.from_numpy(local.uniform(-0.3, 0.3, tuple(p.shape)).astype(np.float32)))
    return model


idx = torch.tensor([[1, 5, 2, 7, 3], [4, 4, 9, 0, 11]])
plain, ckpt = build(False), build(True)
opts = [torch.optim.AdamW(m.parameters(), lr=1e-2) for m in (plain, ckpt)]
for step in range(3):
    losses = []
    for m, o in zip((plain, ckpt), opts):
        logits = m(idx[:, :-1])
        loss = F.cross_entropy(logits.reshape(-1, 12), idx[:, 1:].reshape(-1))
        o.zero_grad()
        loss.backward()
        losses.append(loss.item())
        grads = [p.grad for p in m.parameters()]
        o.step()
    print(step, [f"{l:.5f}" for l in losses], grads[3][0, :3])
print(max((a - b).abs().max().item() for a, b in zip(plain.parameters(), ckpt.parameters())) < 1e-5)
ckpt.eval()
with torch.no_grad():
    print(ckpt(idx)[0, -1, :4])


def two_outputs(x, *, scale):
    return torch.tanh(x) * scale, x.sum(dim=-1)


x = torch.linspace(-1, 1, 6).view(2, 3).requires_grad_()
a, b = checkpoint(two_outputs, x, scale=2.0, use_reentrant=False)
(a.sum() + b.pow(2).sum()).backward()
print(a, b, x.grad)
frozen = torch.ones(2, 3)
w = torch.tensor([0.5, -1.0, 2.0], requires_grad=True)
out = checkpoint(lambda t: (t * w).exp(), frozen, use_reentrant=False)
out.sum().backward()
print(out.requires_grad, w.grad)

seq = nn.Sequential(*[nn.Sequential(nn.Linear(4, 4), nn.Tanh()) for _ in range(4)])
with torch.no_grad():
    for i, p in enumerate(seq.parameters()):
        p.copy_(torch.linspace(-0.5, 0.5, p.numel()).view(p.shape) * (1 + 0.1 * i))
inp = torch.linspace(-2, 2, 12).view(3, 4).requires_grad_()
out = checkpoint_sequential(seq, 2, inp, use_reentrant=False)
out.sum().backward()
g_ck = [p.grad.clone() for p in seq.parameters()]
gi = inp.grad.clone()
seq.zero_grad()
inp.grad = None
seq(inp).sum().backward()
print(out[0], all(torch.allclose(a, p.grad) for a, p in zip(g_ck, seq.parameters())), torch.allclose(gi, inp.grad))
