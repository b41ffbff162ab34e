"""Saving and wrapping models the ways repositories do: torch.save of a whole model object and
torch.load(weights_only=False) in the same script, nn.DataParallel on the CPU (forward, the
'module.' prefix in state_dict, loading it back into a bare model), torch.jit.trace of a model and
calling the traced module, parametrizations.weight_norm adding parametrizations.weight.original0 /
original1 to the state_dict (and surviving a save/load round trip), register_buffer state across
.double() / .float(), and copy.deepcopy keeping outputs and parameters independent."""
import copy
import io

import numpy as np
import fluxgrad as torch
import fluxgrad.nn as nn
from fluxgrad.nn.utils import parametrizations

rng = np.random.default_rng(109)


class Scaler(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc1 = nn.Linear(3, 5)
        self.fc2 = nn.Linear(5, 2)
        self.register_buffer("shift", torch.tensor([0.5, -0.5]))

    def forward(self, x):
        return self.fc2(torch.relu(self.fc1(x))) + self.shift


model = Scaler()
with torch.no_grad():
    for p in model.parameters():
        p.copy_(torch.from_numpy(rng.uniform(-0.5, 0.5, tuple(p.shape)).astype(np.float32)))
x = torch.from_numpy(rng.standard_normal((4, 3)).astype(np.float32))
ref = model(x)

buf = io.BytesIO()
torch.save(model, buf)
buf.seek(0)
loaded = torch.load(buf, weights_only=False)
print(type(loaded).__name__, torch.equal(loaded(x), ref), loaded.shift)

dp = nn.DataParallel(model)
print(type(dp.module).__name__, torch.allclose(dp(x), ref), list(dp.state_dict())[:3])
bare = Scaler()
bare.load_state_dict({k.removeprefix("module."): v for k, v in dp.state_dict().items()})
print(torch.equal(bare(x), ref))

traced = torch.jit.trace(model, x)
print(torch.allclose(traced(x), ref), traced(x[:1]).shape)

wn = Scaler()
wn.load_state_dict(model.state_dict())
parametrizations.weight_norm(wn.fc1, name="weight", dim=0)
print(sorted(k for k in wn.state_dict() if "fc1" in k))
print(torch.allclose(wn(x), ref, atol=1e-6), wn.fc1.parametrizations.weight.original0.shape)
buf = io.BytesIO()
torch.save(wn.state_dict(), buf)
buf.seek(0)
wn2 = Scaler()
parametrizations.weight_norm(wn2.fc1, name="weight", dim=0)
wn2.load_state_dict(torch.load(buf))
print(torch.allclose(wn2(x), ref, atol=1e-6))
opt = torch.optim.SGD(wn.parameters(), lr=0.1)
wn(x).pow(2).sum().backward()
opt.step()
print(wn.fc1.parametrizations.weight.original0.grad.shape, torch.allclose(wn.fc1.weight.norm(dim=1, keepdim=True), wn.fc1.parametrizations.weight.original0))

model.double()
print(model.shift.dtype, model.fc1.weight.dtype, model(x.double()).dtype)
model.float()
twin = copy.deepcopy(model)
with torch.no_grad():
    twin.fc2.bias.add_(1.0)
print(torch.allclose(model(x), ref), torch.allclose(twin(x), ref + 1.0), twin.fc2.bias is model.fc2.bias)
print(model)
