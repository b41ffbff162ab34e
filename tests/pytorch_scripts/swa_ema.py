"""Stochastic weight averaging and EMA as the SWA blog post and timm-style scripts write them:
AveragedModel with the default running mean, SWALR ('cos' and 'linear' annealing) taking over from
CosineAnnealingLR after swa_start, update_bn recomputing BatchNorm statistics from a DataLoader,
an EMA model with get_ema_multi_avg_fn and with a custom avg_fn, use_buffers=True, n_averaged,
and the averaged model's state_dict keys."""
import numpy as np
import fluxgrad as torch
import fluxgrad.nn as nn
import fluxgrad.nn.functional as F
from fluxgrad.optim.swa_utils import AveragedModel, SWALR, update_bn, get_ema_multi_avg_fn
from fluxgrad.utils.data import DataLoader, TensorDataset

rng = np.random.default_rng(43)
X = torch.from_numpy(rng.standard_normal((24, 4)).astype(np.float32))
y = torch.from_numpy((rng.standard_normal(24) > 0).astype(np.int64))
loader = DataLoader(TensorDataset(X, y), batch_size=8)


def make():
    model = nn.Sequential(nn.Linear(4, 8), nn.BatchNorm1d(8), nn.ReLU(), nn.Linear(8, 2))
    local = np.random.default_rng(1)
    with torch.no_grad():
        for p in model.parameters():
            p.copy_(torch.from_numpy(local.uniform(-0.5, 0.5, tuple(p.shape)).astype(np.float32)))
    return model


model = make()
swa_model = AveragedModel(model)
ema_model = AveragedModel(model, multi_avg_fn=get_ema_multi_avg_fn(0.9))
optimizer = torch.optim.SGD(model.parameters(), lr=0.1, momentum=0.9)
scheduler = torch.optim.lr_scheduler.CosineAnnealingLR(optimizer, T_max=10)
swa_start = 3
swa_scheduler = SWALR(optimizer, swa_lr=0.05, anneal_epochs=2, anneal_strategy="cos")
print(list(swa_model.state_dict().keys())[:3], swa_model.n_averaged)
for epoch in range(7):
    for xb, yb in loader:
        optimizer.zero_grad()
        loss = F.cross_entropy(model(xb), yb)
        loss.backward()
        optimizer.step()
        ema_model.update_parameters(model)
    if epoch > swa_start:
        swa_model.update_parameters(model)
        swa_scheduler.step()
    else:
        scheduler.step()
    print(epoch, f"{loss.item():.5f}", [f"{lr:.6f}" for lr in swa_scheduler.get_last_lr()],
          f"{optimizer.param_groups[0]['lr']:.6f}", int(swa_model.n_averaged))
print(swa_model.module[1].running_mean)
update_bn(loader, swa_model)
print(swa_model.module[1].running_mean, swa_model.module[1].num_batches_tracked, swa_model.module[1].momentum)
swa_model.eval()
ema_model.eval()
print(swa_model(X[:3]), ema_model(X[:3]))
print(swa_model.module[0].weight[:, 0], ema_model.module[0].weight[:, 0], model[0].weight[:, 0])

ema_buffers = AveragedModel(model, avg_fn=lambda avg, cur, n: 0.5 * avg + 0.5 * cur, use_buffers=True)
for _ in range(2):
    model(X)
    ema_buffers.update_parameters(model)
print(ema_buffers.module[1].running_var, model[1].running_var, ema_buffers.module[1].num_batches_tracked)

opt = torch.optim.Adam([{"params": model[0].parameters()}, {"params": model[3].parameters(), "lr": 0.01}], lr=0.002)
lin = SWALR(opt, swa_lr=[0.001, 0.02], anneal_epochs=3, anneal_strategy="linear")
lrs = []
for _ in range(5):
    opt.step()
    lin.step()
    lrs.append([round(g["lr"], 6) for g in opt.param_groups])
print(lrs)
try:
    SWALR(opt, swa_lr=0.1, anneal_strategy="exp")
except ValueError as e:
    print("ValueError", e)
