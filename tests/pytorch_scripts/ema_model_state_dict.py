"""An exponential moving average of a model kept the way timm's ModelEmaV2 does it: a
deepcopy in eval mode, updated under no_grad by zipping state_dict().values() (parameters
and BatchNorm buffers, integer buffers copied), with a warmup-adjusted decay; the EMA
model's outputs against the live model's, and loading the EMA weights back."""
import copy
import numpy as np
import fluxgrad as torch
import fluxgrad.nn as nn

rng = np.random.default_rng(47)


class ModelEma(nn.Module):
    def __init__(self, model, decay=0.9):
        super().__init__()
        self.module = copy.deepcopy(model)
        self.module.eval()
        self.decay = decay
        self.updates = 0

    def _update(self, model, update_fn):
        with torch.no_grad():
            for ema_v, model_v in zip(self.module.state_dict().values(), model.state_dict().values()):
                if ema_v.dtype.is_floating_point:
                    ema_v.copy_(update_fn(ema_v, model_v))
                else:
                    ema_v.copy_(model_v)

    def update(self, model):
        self.updates += 1
        d = min(self.decay, (1 + self.updates) / (10 + self.updates))
        self._update(model, update_fn=lambda e, m: d * e + (1.0 - d) * m)
        return d

    def set(self, model):
        self._update(model, update_fn=lambda e, m: m)


model = nn.Sequential(nn.Linear(3, 4), nn.BatchNorm1d(4), nn.ReLU(), nn.Linear(4, 2))
with torch.no_grad():
    for p in model.parameters():
        p.copy_(torch.tensor(rng.uniform(-0.5, 0.5, tuple(p.shape)), dtype=torch.float32))
ema = ModelEma(model)
opt = torch.optim.SGD(model.parameters(), lr=0.1, momentum=0.9)
x = torch.tensor(rng.standard_normal((8, 3)), dtype=torch.float32)
target = torch.tensor(rng.standard_normal((8, 2)), dtype=torch.float32)
for step in range(4):
    loss = ((model(x) - target) ** 2).mean()
    opt.zero_grad()
    loss.backward()
    opt.step()
    d = ema.update(model)
    print(f"step {step}: loss {loss.item():.5f} decay {d:.4f} "
          f"ema w {ema.module[0].weight.sum().item():.5f} live w {model[0].weight.sum().item():.5f}")
print(ema.module[1].running_mean, model[1].running_mean)
print(ema.module[1].num_batches_tracked, ema.module.training, model.training)
model.eval()
with torch.no_grad():
    print(model(x[:2]), ema.module(x[:2]))
print(list(ema.state_dict().keys())[:3], ema.module[0].weight.requires_grad)
model.load_state_dict(ema.module.state_dict())
print(torch.equal(model[3].bias, ema.module[3].bias), model[3].bias is ema.module[3].bias)
