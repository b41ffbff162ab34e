"""Checkpointing the way training scripts do it: torch.save({'epoch', 'model_state_dict',
'optimizer_state_dict', 'scheduler', 'loss'}) to a file, load it into fresh objects, resume, and check
the resumed run matches the uninterrupted one; saving whole tensors, lists and dicts, map_location,
weights_only, state_dict keys of the optimizer, and load_state_dict(strict=False) reports."""
import io
import os
import tempfile
import numpy as np
import fluxgrad as torch
import fluxgrad.nn as nn
import fluxgrad.nn.functional as F

rng = np.random.default_rng(43)
X = torch.from_numpy(rng.standard_normal((12, 3)).astype(np.float32))
y = torch.from_numpy(rng.standard_normal((12, 2)).astype(np.float32))
init = {k: torch.from_numpy(rng.uniform(-0.5, 0.5, s).astype(np.float32))
        for k, s in [("0.weight", (4, 3)), ("0.bias", (4,)), ("2.weight", (2, 4)), ("2.bias", (2,))]}


def build():
    model = nn.Sequential(nn.Linear(3, 4), nn.Tanh(), nn.Linear(4, 2))
    model.load_state_dict(init)
    optimizer = torch.optim.Adam(model.parameters(), lr=0.01, weight_decay=1e-3)
    scheduler = torch.optim.lr_scheduler.StepLR(optimizer, step_size=2, gamma=0.5)
    return model, optimizer, scheduler


def train_epoch(model, optimizer, scheduler):
    for xb, yb in zip(X.split(4), y.split(4)):
        optimizer.zero_grad()
        loss = F.mse_loss(model(xb), yb)
        loss.backward()
        optimizer.step()
    scheduler.step()
    return loss.item()


model, optimizer, scheduler = build()
straight = [train_epoch(model, optimizer, scheduler) for _ in range(5)]
print([round(v, 6) for v in straight])
model, optimizer, scheduler = build()
with tempfile.TemporaryDirectory() as tmp:
    PATH = os.path.join(tmp, "checkpoint.pt")
    for epoch in range(3):
        loss = train_epoch(model, optimizer, scheduler)
    torch.save({
        "epoch": epoch,
        "model_state_dict": model.state_dict(),
        "optimizer_state_dict": optimizer.state_dict(),
        "scheduler_state_dict": scheduler.state_dict(),
        "loss": loss,
    }, PATH)
    model, optimizer, scheduler = build()
    checkpoint = torch.load(PATH, weights_only=False)
    model.load_state_dict(checkpoint["model_state_dict"])
    optimizer.load_state_dict(checkpoint["optimizer_state_dict"])
    scheduler.load_state_dict(checkpoint["scheduler_state_dict"])
    start = checkpoint["epoch"] + 1
    print(start, round(checkpoint["loss"], 6), scheduler.get_last_lr(), optimizer.param_groups[0]["lr"])
    model.train()
    resumed = [train_epoch(model, optimizer, scheduler) for _ in range(start, 5)]
    print([round(v, 6) for v in resumed], np.allclose(resumed, straight[3:], atol=1e-6))
    sd = optimizer.state_dict()
    print(sorted(sd.keys()), sorted(sd["state"].keys()), sorted(sd["state"][0].keys()), sd["state"][0]["step"])
    print(sd["param_groups"][0]["params"], sd["param_groups"][0]["betas"], sd["param_groups"][0]["weight_decay"])
    torch.save(model.state_dict(), os.path.join(tmp, "model_weights.pth"))
    fresh = nn.Sequential(nn.Linear(3, 4), nn.Tanh(), nn.Linear(4, 2))
    fresh.load_state_dict(torch.load(os.path.join(tmp, "model_weights.pth"), weights_only=True, map_location="cpu"))
    fresh.eval()
    print(torch.equal(fresh(X), model(X)), list(fresh.state_dict().keys()))
buffer = io.BytesIO()
torch.save([torch.arange(3), {"a": torch.ones(2, dtype=torch.float64)}, (1, "two")], buffer)
buffer.seek(0)
loaded = torch.load(buffer)
print(loaded, loaded[1]["a"].dtype)
bigger = nn.Sequential(nn.Linear(3, 4), nn.Tanh(), nn.Linear(4, 2), nn.Linear(2, 1))
result = bigger.load_state_dict(model.state_dict(), strict=False)
print(result.missing_keys, result.unexpected_keys, result)
try:
    bigger.load_state_dict(model.state_dict())
except RuntimeError as e:
    print("RuntimeError", "Missing key(s)" in str(e), "3.weight" in str(e))
wrong = dict(model.state_dict())
wrong["0.weight"] = torch.zeros(5, 3)
try:
    model.load_state_dict(wrong)
except RuntimeError as e:
    print("RuntimeError", "size mismatch" in str(e))
