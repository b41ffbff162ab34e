"""Layer-wise learning-rate decay and no-decay groups for fine-tuning a Transformer encoder, as
BERT/ViT fine-tuning recipes build them: parse the layer id from named_parameters names, decay the
lr geometrically from the top layer down, put biases and LayerNorm weights in weight_decay=0
groups, AdamW over the groups, a linear warm-up then decay with LambdaLR, and the per-group lrs
after each step."""
import numpy as np
import fluxgrad as torch
import fluxgrad.nn as nn
import fluxgrad.nn.functional as F

rng = np.random.default_rng(113)
D, L = 8, 3


class Encoder(nn.Module):
    def __init__(self):
        super().__init__()
        self.embed = nn.Embedding(10, D)
        layer = nn.TransformerEncoderLayer(D, 2, dim_feedforward=16, dropout=0.0, batch_first=True)
        self.encoder = nn.TransformerEncoder(layer, num_layers=L, enable_nested_tensor=False)
        self.norm = nn.LayerNorm(D)
        self.head = nn.Linear(D, 2)

    def forward(self, x):
        return self.head(self.norm(self.encoder(self.embed(x))).mean(1))


model = Encoder()
with torch.no_grad():
    for p in model.parameters():
        p.copy_(torch.from_numpy(rng.normal(0, 0.2, tuple(p.shape)).astype(np.float32)))


def layer_id(name):
    if name.startswith("embed"):
        return 0
    if name.startswith("encoder.layers."):
        return int(name.split(".")[2]) + 1
    return L + 1


base_lr, decay = 1e-2, 0.5
groups = {}
for name, p in model.named_parameters():
    no_decay = p.ndim == 1 or name.endswith(".bias")
    lid = layer_id(name)
    key = (lid, no_decay)
    if key not in groups:
        groups[key] = {"params": [], "names": [], "lr": base_lr * decay ** (L + 1 - lid),
                       "weight_decay": 0.0 if no_decay else 0.05}
    groups[key]["params"].append(p)
    groups[key]["names"].append(name)
for key in sorted(groups):
    g = groups[key]
    print(key, g["lr"], g["weight_decay"], len(g["params"]), g["names"][:2])
param_groups = [groups[k] for k in sorted(groups)]
optimizer = torch.optim.AdamW(param_groups, lr=base_lr)
print(len(optimizer.param_groups), sorted(optimizer.param_groups[0].keys()))
warmup, total = 2, 6
scheduler = torch.optim.lr_scheduler.LambdaLR(
    optimizer, lambda step: (step + 1) / warmup if step < warmup else max(0.0, (total - step) / (total - warmup)))
x = torch.from_numpy(rng.integers(0, 10, (4, 5)))
y = torch.tensor([0, 1, 1, 0])
for step in range(total):
    loss = F.cross_entropy(model(x), y)
    optimizer.zero_grad()
    loss.backward()
    optimizer.step()
    scheduler.step()
    print(step, round(loss.item(), 5), [f"{lr:.2e}" for lr in scheduler.get_last_lr()[::3]])
print(model.encoder.layers[0].norm1.weight[:3], model.embed.weight[0, :3])
print(optimizer.state_dict()["param_groups"][1]["params"], optimizer.state_dict()["param_groups"][1]["initial_lr"])
