"""Module state plumbing the way libraries use it: get_extra_state/set_extra_state riding in the
state dict, register_load_state_dict_post_hook reporting incompatible keys, load_state_dict with
strict=False and its missing/unexpected keys (and its repr), register_state_dict_pre_hook,
persistent=False buffers, renaming keys on the fly with a prefix, and add_module/get_submodule/
get_parameter/named_modules(remove_duplicate=False)."""
import io
from collections import OrderedDict

import fluxgrad as torch
import fluxgrad.nn as nn


class Scaler(nn.Module):
    def __init__(self):
        super().__init__()
        self.lin = nn.Linear(3, 2)
        self.register_buffer("running", torch.zeros(2))
        self.register_buffer("cache", torch.ones(2), persistent=False)
        self.calls = 0

    def forward(self, x):
        self.calls += 1
        return self.lin(x) + self.running

    def get_extra_state(self):
        return {"calls": self.calls, "tag": "v1"}

    def set_extra_state(self, state):
        self.calls = state["calls"]


def fill(module, value):
    with torch.no_grad():
        for i, p in enumerate(module.parameters()):
            p.copy_(torch.arange(p.numel(), dtype=torch.float32).view(p.shape) * value + i)
    return module


a = fill(Scaler(), 0.1)
a(torch.ones(1, 3))
a(torch.ones(1, 3))
sd = a.state_dict()
print(list(sd.keys()))
print(sd["_extra_state"])
b = Scaler()
seen = []
b.register_load_state_dict_post_hook(lambda module, keys: seen.append((list(keys.missing_keys), list(keys.unexpected_keys))))
print(b.load_state_dict(sd))
print(b.calls, seen, torch.equal(b.lin.weight, a.lin.weight))

partial = OrderedDict((k, v) for k, v in sd.items() if k != "running")
partial["extra.weight"] = torch.zeros(1)
result = b.load_state_dict(partial, strict=False)
print(result.missing_keys, result.unexpected_keys)
print(seen[-1])
try:
    b.load_state_dict(partial)
except RuntimeError as e:
    msg = str(e)
    print("RuntimeError", "Missing key(s)" in msg, "Unexpected key(s)" in msg, '"running"' in msg)

pre = []
a.register_state_dict_pre_hook(lambda module, prefix, keep_vars: pre.append(prefix))
outer = nn.Sequential(OrderedDict([("scaler", a)]))
keys = list(outer.state_dict().keys())
print(keys, pre)

renamed = OrderedDict((k.replace("scaler.", "model."), v) for k, v in outer.state_dict().items())
holder = nn.Module()
holder.add_module("model", Scaler())
print(holder.load_state_dict(renamed), holder.model.calls)
print(holder.get_submodule("model.lin"), holder.get_parameter("model.lin.bias"))
shared = nn.Linear(2, 2)
twice = nn.Sequential(shared, nn.ReLU(), shared)
print([n for n, _ in twice.named_modules()], [n for n, _ in twice.named_modules(remove_duplicate=False)])
print(len(list(twice.parameters())), len(list(twice.named_parameters(remove_duplicate=False))))

buffer = io.BytesIO()
torch.save(a.state_dict(), buffer)
buffer.seek(0)
loaded = torch.load(buffer, weights_only=False)
print(list(loaded.keys()), loaded["_extra_state"], "cache" in loaded)
