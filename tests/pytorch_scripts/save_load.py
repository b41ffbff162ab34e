"""torch.save / torch.load of tensors, state dicts, optimizer state and checkpoints."""
import io
import os
import tempfile

import numpy as np
import fluxgrad as torch
import fluxgrad.nn as nn

model = nn.Sequential(nn.Linear(3, 4), nn.ReLU(), nn.Linear(4, 1))
rng = np.random.default_rng(7)
with torch.no_grad():
    for p in model.parameters():
        p.copy_(torch.from_numpy(rng.standard_normal(tuple(p.shape)).astype(np.float32)))
opt = torch.optim.Adam(model.parameters(), lr=0.01)
x = torch.from_numpy(rng.standard_normal((5, 3)).astype(np.float32))
for _ in range(2):
    opt.zero_grad()
    model(x).pow(2).mean().backward()
    opt.step()
with tempfile.TemporaryDirectory() as d:
    path = os.path.join(d, "checkpoint.pt")
    torch.save({"epoch": 2, "model_state_dict": model.state_dict(),
                "optimizer_state_dict": opt.state_dict(), "loss": 0.25,
                "extra": [torch.arange(3), {"t": torch.tensor(1.5)}]}, path)
    checkpoint = torch.load(path, weights_only=False)
    print(sorted(checkpoint.keys()), checkpoint["epoch"], checkpoint["loss"], checkpoint["extra"][0],
          checkpoint["extra"][1]["t"])
    model2 = nn.Sequential(nn.Linear(3, 4), nn.ReLU(), nn.Linear(4, 1))
    opt2 = torch.optim.Adam(model2.parameters(), lr=0.01)
    model2.load_state_dict(checkpoint["model_state_dict"])
    opt2.load_state_dict(checkpoint["optimizer_state_dict"])
    model2.eval()
    print(torch.allclose(model2(x), model(x)), opt2.state_dict()["param_groups"][0]["lr"])
    for m, o in ((model, opt), (model2, opt2)):
        o.zero_grad()
        m(x).pow(2).mean().backward()
        o.step()
    print(torch.equal(model[0].weight, model2[0].weight), model2[2].bias)
    torch.save(model.state_dict(), os.path.join(d, "weights.pth"))
    sd = torch.load(os.path.join(d, "weights.pth"), weights_only=True)
    print(list(sd.keys()), sd["0.bias"].dtype, sd["2.weight"].requires_grad)
    torch.save(x, os.path.join(d, "x.pt"))
    y = torch.load(os.path.join(d, "x.pt"), map_location="cpu")
    print(torch.equal(x, y), y.shape, y.dtype)
buffer = io.BytesIO()
torch.save({"a": torch.tensor([1, 2], dtype=torch.int32), "b": torch.ones(2, dtype=torch.float64)}, buffer)
buffer.seek(0)
loaded = torch.load(buffer)
print(loaded)
p = nn.Parameter(torch.tensor([1.0, 2.0]))
buffer = io.BytesIO()
torch.save([p, p * 2], buffer)
buffer.seek(0)
lp = torch.load(buffer, weights_only=False)
print(type(lp[0]).__name__, lp[0].requires_grad, lp[1])
bn = nn.BatchNorm1d(2)
bn(torch.tensor([[1., 2.], [3., 5.]]))
print(bn.state_dict())
sd = model.state_dict()
sd["0.weight"] = torch.zeros(4, 3)
model.load_state_dict(sd)
print(model[0].weight.sum())
missing = model.load_state_dict({"0.weight": torch.ones(4, 3)}, strict=False)
print(missing.missing_keys, missing.unexpected_keys)
try:
    model.load_state_dict({"0.weight": torch.ones(4, 3)})
except RuntimeError as e:
    print("RuntimeError", "Missing key" in str(e))
try:
    model.load_state_dict({**model.state_dict(), "0.weight": torch.ones(2, 2)})
except RuntimeError as e:
    print("RuntimeError size mismatch" if "size mismatch" in str(e) else str(e))
