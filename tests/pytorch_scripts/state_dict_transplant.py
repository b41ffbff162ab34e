"""Moving weights between models the way fine-tuning code does: state_dict keys and order, load with
strict=False and read missing_keys / unexpected_keys, rename keys (strip a 'module.' prefix from a
DataParallel checkpoint), load a backbone into a bigger model, shape mismatches caught as
RuntimeError, buffers (persistent or not), torch.save / torch.load through BytesIO, load_state_dict of
a submodule, copying an optimizer state, and _metadata-free OrderedDict round trips."""
import io
from collections import OrderedDict

import numpy as np
import fluxgrad as torch
import fluxgrad.nn as nn

rng = np.random.default_rng(19)


def fill(module):
    with torch.no_grad():
        for p in module.parameters():
            p.copy_(torch.from_numpy(rng.uniform(-0.5, 0.5, tuple(p.shape)).astype(np.float32)))
    return module


class Backbone(nn.Module):
    def __init__(self):
        super().__init__()
        self.conv = nn.Conv1d(2, 3, 3, padding=1)
        self.bn = nn.BatchNorm1d(3)
        self.register_buffer("scale", torch.tensor(2.0))
        self.register_buffer("cache", torch.zeros(3), persistent=False)

    def forward(self, x):
        return torch.relu(self.bn(self.conv(x))) * self.scale


class Classifier(nn.Module):
    def __init__(self, classes):
        super().__init__()
        self.backbone = Backbone()
        self.head = nn.Linear(3, classes)

    def forward(self, x):
        return self.head(self.backbone(x).mean(-1))


src = fill(Classifier(5))
x = torch.from_numpy(rng.standard_normal((4, 2, 6)).astype(np.float32))
src.train()
src(x)
sd = src.state_dict()
print(list(sd.keys()))
print(sd["backbone.bn.running_mean"], sd["backbone.bn.num_batches_tracked"], sd["backbone.scale"])
print(type(sd).__name__, "backbone.cache" in sd)

dst = Classifier(3)
try:
    dst.load_state_dict(sd)
except RuntimeError as e:
    print("RuntimeError", "size mismatch" in str(e), "head.weight" in str(e))
filtered = {k: v for k, v in sd.items() if not k.startswith("head.")}
result = dst.load_state_dict(filtered, strict=False)
print(result.missing_keys, result.unexpected_keys)
print(torch.equal(dst.backbone.conv.weight, src.backbone.conv.weight))

parallel_ckpt = OrderedDict(("module." + k, v) for k, v in sd.items())
clean = OrderedDict((k[len("module."):] if k.startswith("module.") else k, v) for k, v in parallel_ckpt.items())
again = Classifier(5)
print(again.load_state_dict(clean))
src.eval()
again.eval()
print(torch.allclose(src(x), again(x)), src(x)[0])

bb = Backbone()
missing, unexpected = bb.load_state_dict({"conv.weight": sd["backbone.conv.weight"], "extra": torch.ones(1)}, strict=False)
print(sorted(missing), unexpected)

bigger = Classifier(5)
bigger.backbone.load_state_dict(src.backbone.state_dict())
print(torch.equal(bigger.backbone.bn.running_var, src.backbone.bn.running_var))

buf = io.BytesIO()
torch.save({"model": src.state_dict(), "classes": ["a", "b", "c", "d", "e"]}, buf)
buf.seek(0)
ckpt = torch.load(buf, weights_only=True)
print(sorted(ckpt), ckpt["classes"][-1], ckpt["model"]["head.bias"])
restored = Classifier(5)
restored.load_state_dict(ckpt["model"])
restored.eval()
print(torch.allclose(restored(x), src(x)))

with torch.no_grad():
    restored.head.bias.add_(1.0)
print(torch.equal(ckpt["model"]["head.bias"] + 1.0, restored.head.bias))
print(sd["head.bias"].requires_grad, sd["head.bias"].is_leaf, src.state_dict(keep_vars=True)["head.bias"].requires_grad)

opt = torch.optim.Adam(src.parameters(), lr=0.01)
loss = src(x).pow(2).mean()
loss.backward()
opt.step()
opt_sd = opt.state_dict()
print(sorted(opt_sd), opt_sd["param_groups"][0]["params"], opt_sd["state"][0]["step"])
opt2 = torch.optim.Adam(restored.parameters(), lr=0.5)
opt2.load_state_dict(opt_sd)
print(opt2.param_groups[0]["lr"], torch.equal(opt2.state_dict()["state"][1]["exp_avg"], opt_sd["state"][1]["exp_avg"]))

partial = nn.Sequential(nn.Linear(3, 3), nn.Linear(3, 2))
partial_sd = partial.state_dict()
print(list(partial_sd))
partial_sd["0.weight"] = torch.eye(3)
partial.load_state_dict(partial_sd)
print(partial[0].weight)
