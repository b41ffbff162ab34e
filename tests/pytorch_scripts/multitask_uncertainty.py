"""Multi-task learning with homoscedastic uncertainty weighting (Kendall et al.): a shared
trunk, a regression and a classification head, learned log-variances combining the losses,
separate optimizer parameter groups (one added later with add_param_group), and per-group
learning rates read back from param_groups."""
import numpy as np
import fluxgrad as torch
import fluxgrad.nn as nn
import fluxgrad.nn.functional as F

rng = np.random.default_rng(89)


class MultiTask(nn.Module):
    def __init__(self):
        super().__init__()
        self.trunk = nn.Sequential(nn.Linear(4, 8), nn.SiLU())
        self.reg_head = nn.Linear(8, 1)
        self.cls_head = nn.Linear(8, 3)
        self.log_vars = nn.Parameter(torch.zeros(2))

    def forward(self, x):
        h = self.trunk(x)
        return self.reg_head(h).squeeze(-1), self.cls_head(h)


model = MultiTask()
with torch.no_grad():
    for p in model.parameters():
        p.copy_(torch.tensor(rng.uniform(-0.5, 0.5, tuple(p.shape)), dtype=torch.float32))
opt = torch.optim.Adam([{"params": model.trunk.parameters()},
                        {"params": list(model.reg_head.parameters()) + list(model.cls_head.parameters()), "lr": 5e-3}],
                       lr=1e-2)
opt.add_param_group({"params": [model.log_vars], "lr": 5e-2, "betas": (0.8, 0.99)})
print([len(g["params"]) for g in opt.param_groups], [g["lr"] for g in opt.param_groups], opt.param_groups[2]["betas"])
x = torch.tensor(rng.standard_normal((16, 4)), dtype=torch.float32)
y_reg = (x[:, 0] * 2 - x[:, 1]).detach()
y_cls = torch.tensor(rng.integers(0, 3, 16))
for step in range(5):
    pred_reg, logits = model(x)
    losses = torch.stack([F.mse_loss(pred_reg, y_reg), F.cross_entropy(logits, y_cls)])
    precision = torch.exp(-model.log_vars)
    total = (precision * losses + model.log_vars).sum()
    opt.zero_grad()
    total.backward()
    opt.step()
    print(f"step {step}: total {total.item():.5f} losses {losses.detach().numpy().round(5).tolist()} "
          f"log_vars {model.log_vars.detach().numpy().round(5).tolist()}")
print(model.log_vars.grad, opt.state[model.log_vars]["step"], opt.state[model.log_vars]["exp_avg"])
for g in opt.param_groups:
    g["lr"] *= 0.5
print([g["lr"] for g in opt.param_groups], len(opt.state_dict()["state"]), opt.state_dict()["param_groups"][2]["params"])
