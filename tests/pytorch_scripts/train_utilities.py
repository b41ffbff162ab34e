"""Training-loop utilities from blog posts: gradient accumulation over micro-batches (checked equal
to one big batch), clip_grad_value_, clip_grad_norm_ returning the total norm (and error_if_nonfinite),
early stopping on validation loss with a patience counter and best-state copy, a train/eval split with
model.eval() + no_grad, and a running-average meter."""
import copy
import numpy as np
import fluxgrad as torch
import fluxgrad.nn as nn
import fluxgrad.nn.functional as F

rng = np.random.default_rng(41)
X = torch.from_numpy(rng.standard_normal((32, 5)).astype(np.float32))
y = torch.from_numpy((rng.standard_normal((32, 1)) + X.numpy()[:, :1] * 2).astype(np.float32))


def make_model():
    model = nn.Sequential(nn.Linear(5, 8), nn.ReLU(), nn.Dropout(0.0), nn.Linear(8, 1))
    local = np.random.default_rng(0)
    with torch.no_grad():
        for p in model.parameters():
            p.copy_(torch.from_numpy(local.uniform(-0.4, 0.4, tuple(p.shape)).astype(np.float32)))
    return model


big, small = make_model(), make_model()
F.mse_loss(big(X[:16]), y[:16]).backward()
accumulation_steps = 4
for i, (xb, yb) in enumerate(zip(X[:16].split(4), y[:16].split(4))):
    loss = F.mse_loss(small(xb), yb) / accumulation_steps
    loss.backward()
print(all(torch.allclose(a.grad, b.grad, atol=1e-6) for a, b in zip(big.parameters(), small.parameters())))
model = make_model()
optimizer = torch.optim.SGD(model.parameters(), lr=0.05, momentum=0.9)
optimizer.zero_grad()
for i, (xb, yb) in enumerate(zip(X.split(4), y.split(4))):
    loss = F.mse_loss(model(xb), yb) / accumulation_steps
    loss.backward()
    if (i + 1) % accumulation_steps == 0:
        before = nn.utils.clip_grad_value_(model.parameters(), clip_value=0.5)
        print(i, before, max(p.grad.abs().max().item() for p in model.parameters()) <= 0.5)
        optimizer.step()
        optimizer.zero_grad()
print(model[0].weight[0], model[3].bias)
model = make_model()
F.mse_loss(model(X), y).backward()
norms = [p.grad.norm() for p in model.parameters()]
total = nn.utils.clip_grad_norm_(model.parameters(), max_norm=1.0)
print(total, torch.linalg.vector_norm(torch.stack(norms)), sum(p.grad.norm() ** 2 for p in model.parameters()).sqrt())
print(nn.utils.clip_grad_norm_(model.parameters(), max_norm=10.0, norm_type=float("inf")), nn.utils.clip_grad_norm_(model.parameters(), 0.1, norm_type=1))
print(nn.utils.get_total_norm([p.grad for p in model.parameters()]), nn.utils.clip_grad_norm_([], 1.0))
model[0].weight.grad[0, 0] = float("nan")
try:
    nn.utils.clip_grad_norm_(model.parameters(), 1.0, error_if_nonfinite=True)
except RuntimeError as e:
    print("RuntimeError", "non-finite" in str(e))
X_train, y_train, X_val, y_val = X[:24], y[:24], X[24:], y[24:]
model = make_model()
optimizer = torch.optim.Adam(model.parameters(), lr=0.05)
best_loss, best_state, patience, bad_epochs = float("inf"), None, 2, 0
for epoch in range(30):
    model.train()
    optimizer.zero_grad()
    train_loss = F.mse_loss(model(X_train), y_train)
    train_loss.backward()
    optimizer.step()
    model.eval()
    with torch.no_grad():
        val_loss = F.mse_loss(model(X_val), y_val).item()
    if val_loss < best_loss - 1e-4:
        best_loss, bad_epochs = val_loss, 0
        best_state = copy.deepcopy(model.state_dict())
    else:
        bad_epochs += 1
    print(f"epoch {epoch:2d} train {train_loss.item():.4f} val {val_loss:.4f} bad {bad_epochs}")
    if bad_epochs >= patience:
        print("early stop at epoch", epoch)
        break
model.load_state_dict(best_state)
with torch.no_grad():
    print(round(F.mse_loss(model(X_val), y_val).item(), 4) == round(best_loss, 4), model.training, model[0].training)


class AverageMeter:
    def __init__(self):
        self.sum, self.count = 0.0, 0

    def update(self, val, n=1):
        self.sum += val * n
        self.count += n

    @property
    def avg(self):
        return self.sum / self.count


meter = AverageMeter()
for xb, yb in zip(X.split(10), y.split(10)):
    with torch.no_grad():
        meter.update(F.l1_loss(model(xb), yb).item(), xb.size(0))
print(f"{meter.avg:.4f}", meter.count)
