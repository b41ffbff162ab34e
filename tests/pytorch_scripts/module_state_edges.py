"""Module state handling beyond the basics: state_dict(keep_vars=True) vs detached entries,
load_state_dict(strict=False) reporting missing/unexpected keys, prefixes, shared submodules
in named_modules(remove_duplicate=False) and parameters() counted once, requires_grad_(False)
on a whole module, zero_grad(set_to_none=False), register_module / add_module, get_extra_state
/ set_extra_state, and _load_from_state_dict-free key renaming for a changed architecture."""
import fluxgrad as torch
import fluxgrad.nn as nn


class Encoder(nn.Module):
    def __init__(self):
        super().__init__()
        self.proj = nn.Linear(3, 2)
        self.register_buffer("steps", torch.tensor(0))
        self.vocab = ["a", "b"]

    def get_extra_state(self):
        return {"vocab": self.vocab}

    def set_extra_state(self, state):
        self.vocab = state["vocab"]

    def forward(self, x):
        return self.proj(x)


enc = Encoder()
with torch.no_grad():
    enc.proj.weight.copy_(torch.arange(6.0).view(2, 3) / 10)
    enc.proj.bias.fill_(0.5)
sd = enc.state_dict()
print(list(sd.keys()), sd["_extra_state"])
print(sd["proj.weight"].requires_grad, enc.state_dict(keep_vars=True)["proj.weight"].requires_grad)
print(list(enc.state_dict(prefix="enc.").keys()))
other = Encoder()
other.vocab = []
print(other.load_state_dict(sd), other.vocab, torch.equal(other.proj.bias, enc.proj.bias))
sd_extra = dict(sd)
sd_extra["head.weight"] = torch.zeros(1)
del sd_extra["proj.bias"]
result = other.load_state_dict(sd_extra, strict=False)
print(result.missing_keys, result.unexpected_keys)
try:
    other.load_state_dict(sd_extra)
except RuntimeError as e:
    print("strict load fails:", "Missing key(s)" in str(e), "Unexpected key(s)" in str(e))
bad = dict(sd)
bad["proj.weight"] = torch.zeros(3, 3)
try:
    other.load_state_dict(bad)
except RuntimeError as e:
    print("size mismatch:", "size mismatch" in str(e))

shared = nn.Linear(2, 2)
net = nn.Sequential(shared, nn.ReLU(), shared)
print(len(list(net.parameters())), sum(p.numel() for p in net.parameters()))
print([n for n, _ in net.named_modules()], [n for n, _ in net.named_modules(remove_duplicate=False)])
print(list(net.state_dict().keys()), [n for n, _ in net.named_parameters()])
net.register_module("extra", nn.Tanh())
net.add_module("last", nn.Identity())
print(net, len(net))

model = nn.Sequential(enc, nn.Linear(2, 1))
model.requires_grad_(False)
print([p.requires_grad for p in model.parameters()])
model[1].requires_grad_()
print([n for n, p in model.named_parameters() if p.requires_grad])
out = model(torch.ones(1, 3)).sum()
out.backward()
print(model[1].weight.grad is not None, enc.proj.weight.grad)
model.zero_grad(set_to_none=False)
print(model[1].weight.grad, model[1].bias.grad)
model.zero_grad()
print(model[1].weight.grad)

old = {"encoder.proj.weight": enc.proj.weight.detach(), "encoder.proj.bias": enc.proj.bias.detach(), "encoder.steps": torch.tensor(7)}
renamed = {k.replace("encoder.", "0."): v for k, v in old.items()}
print(model.load_state_dict(renamed, strict=False))
print(model[0].steps, model.state_dict()["0.steps"])
print(dict(model.named_buffers()), [type(m).__name__ for m in model.modules()])
