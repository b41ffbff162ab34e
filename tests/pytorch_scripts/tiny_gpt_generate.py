"""A nanoGPT-sized language model: token and position embeddings, Blocks of pre-LayerNorm
CausalSelfAttention (one c_attn Linear split into q, k, v, a registered tril "bias" buffer used
with masked_fill) and an MLP with GELU(approximate='tanh'), weight tying of wte and lm_head, the
GPT-2 init (normal std 0.02, residual projections scaled by 1/sqrt(2 n_layer)), configure_optimizers
splitting decay / no-decay params for AdamW, a few training steps, and generate() with
temperature, top-k and top-p (nucleus) filtering, the token drawn by inverse CDF from NumPy
uniforms."""
import math
from dataclasses import dataclass

import numpy as np
import fluxgrad as torch
import fluxgrad.nn as nn
from fluxgrad.nn import functional as F

rng = np.random.default_rng(2019)


@dataclass
class GPTConfig:
    block_size: int = 16
    vocab_size: int = 20
    n_layer: int = 2
    n_head: int = 2
    n_embd: int = 16


class CausalSelfAttention(nn.Module):
    def __init__(self, config):
        super().__init__()
        self.c_attn = nn.Linear(config.n_embd, 3 * config.n_embd)
        self.c_proj = nn.Linear(config.n_embd, config.n_embd)
        self.n_head, self.n_embd = config.n_head, config.n_embd
        self.register_buffer("bias", torch.tril(torch.ones(config.block_size, config.block_size))
                             .view(1, 1, config.block_size, config.block_size))

    def forward(self, x):
        B, T, C = x.size()
        q, k, v = self.c_attn(x).split(self.n_embd, dim=2)
        k = k.view(B, T, self.n_head, C // self.n_head).transpose(1, 2)
        q = q.view(B, T, self.n_head, C // self.n_head).transpose(1, 2)
        v = v.view(B, T, self.n_head, C // self.n_head).transpose(1, 2)
        att = (q @ k.transpose(-2, -1)) * (1.0 / math.sqrt(k.size(-1)))
        att = att.masked_fill(self.bias[:, :, :T, :T] == 0, float("-inf"))
        att = F.softmax(att, dim=-1)
        y = att @ v
        y = y.transpose(1, 2).contiguous().view(B, T, C)
        return self.c_proj(y)


class MLP(nn.Module):
    def __init__(self, config):
        super().__init__()
        self.c_fc = nn.Linear(config.n_embd, 4 * config.n_embd)
        self.gelu = nn.GELU(approximate="tanh")
        self.c_proj = nn.Linear(4 * config.n_embd, config.n_embd)

    def forward(self, x):
        return self.c_proj(self.gelu(self.c_fc(x)))


class Block(nn.Module):
    def __init__(self, config):
        super().__init__()
        self.ln_1 = nn.LayerNorm(config.n_embd)
        self.attn = CausalSelfAttention(config)
        self.ln_2 = nn.LayerNorm(config.n_embd)
        self.mlp = MLP(config)

    def forward(self, x):
        x = x + self.attn(self.ln_1(x))
        return x + self.mlp(self.ln_2(x))


class GPT(nn.Module):
    def __init__(self, config):
        super().__init__()
        self.config = config
        self.transformer = nn.ModuleDict(dict(
            wte=nn.Embedding(config.vocab_size, config.n_embd),
            wpe=nn.Embedding(config.block_size, config.n_embd),
            h=nn.ModuleList([Block(config) for _ in range(config.n_layer)]),
            ln_f=nn.LayerNorm(config.n_embd)))
        self.lm_head = nn.Linear(config.n_embd, config.vocab_size, bias=False)
        self.transformer.wte.weight = self.lm_head.weight

    def forward(self, idx, targets=None):
        B, T = idx.size()
        pos = torch.arange(0, T, dtype=torch.long)
        x = self.transformer.wte(idx) + self.transformer.wpe(pos)
        for block in self.transformer.h:
            x = block(x)
        logits = self.lm_head(self.transformer.ln_f(x))
        loss = None
        if targets is not None:
            loss = F.cross_entropy(logits.view(-1, logits.size(-1)), targets.view(-1), ignore_index=-1)
        return logits, loss

    def configure_optimizers(self, weight_decay, learning_rate, betas):
        param_dict = {pn: p for pn, p in self.named_parameters() if p.requires_grad}
        decay_params = [p for n, p in param_dict.items() if p.dim() >= 2]
        nodecay_params = [p for n, p in param_dict.items() if p.dim() < 2]
        optim_groups = [{"params": decay_params, "weight_decay": weight_decay},
                        {"params": nodecay_params, "weight_decay": 0.0}]
        print("decayed", len(decay_params), sum(p.numel() for p in decay_params),
              "non-decayed", len(nodecay_params), sum(p.numel() for p in nodecay_params))
        return torch.optim.AdamW(optim_groups, lr=learning_rate, betas=betas)

    @torch.no_grad()
    def generate(self, idx, max_new_tokens, temperature=1.0, top_k=None, top_p=None):
        for _ in range(max_new_tokens):
            idx_cond = idx if idx.size(1) <= self.config.block_size else idx[:, -self.config.block_size:]
            logits, _ = self(idx_cond)
            logits = logits[:, -1, :] / temperature
            if top_k is not None:
                v, _ = torch.topk(logits, min(top_k, logits.size(-1)))
                logits[logits < v[:, [-1]]] = -float("Inf")
            if top_p is not None:
                sorted_logits, sorted_indices = torch.sort(logits, descending=True)
                cumulative_probs = torch.cumsum(F.softmax(sorted_logits, dim=-1), dim=-1)
                sorted_indices_to_remove = cumulative_probs > top_p
                sorted_indices_to_remove[..., 1:] = sorted_indices_to_remove[..., :-1].clone()
                sorted_indices_to_remove[..., 0] = 0
                indices_to_remove = sorted_indices_to_remove.scatter(1, sorted_indices, sorted_indices_to_remove)
                logits = logits.masked_fill(indices_to_remove, float("-inf"))
            probs = F.softmax(logits, dim=-1)
            u = torch.from_numpy(rng.uniform(size=(idx.size(0), 1)).astype(np.float32))
            idx_next = (probs.cumsum(-1) < u).sum(-1, keepdim=True).clamp(max=probs.size(-1) - 1)
            idx = torch.cat((idx, idx_next), dim=1)
        return idx


config = GPTConfig()
model = GPT(config)
with torch.no_grad():
    for pn, p in model.named_parameters():
        if pn.endswith("c_proj.weight"):
            p.copy_(torch.from_numpy(rng.normal(0, 0.02 / math.sqrt(2 * config.n_layer), tuple(p.shape)).astype(np.float32)))
        elif p.dim() >= 2:
            p.copy_(torch.from_numpy(rng.normal(0, 0.02 * 10, tuple(p.shape)).astype(np.float32)))
    for module in model.modules():
        if isinstance(module, nn.Linear) and module.bias is not None:
            torch.nn.init.zeros_(module.bias)
print(model.transformer.wte.weight is model.lm_head.weight, len(list(model.parameters())),
      sum(p.numel() for p in model.parameters()), [b for b, _ in model.named_buffers()])

data = torch.from_numpy(rng.integers(0, config.vocab_size, (4, config.block_size + 1)))
xb, yb = data[:, :-1].contiguous(), data[:, 1:].contiguous()
optimizer = model.configure_optimizers(weight_decay=0.1, learning_rate=3e-3, betas=(0.9, 0.95))
for it in range(4):
    logits, loss = model(xb, yb)
    optimizer.zero_grad(set_to_none=True)
    loss.backward()
    norm = torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
    optimizer.step()
    print(it, round(loss.item(), 5), round(norm.item(), 5))

model.eval()
start = torch.zeros((2, 1), dtype=torch.long)
print(model.generate(start, 8, temperature=0.8, top_k=5))
print(model.generate(start, 8, temperature=1.0, top_p=0.9))
print(model.generate(torch.tensor([[3, 4, 5]]), 16, top_k=1)[0, -4:])
