"""The Module API scripts lean on: deepcopy, zero_grad forms, load_state_dict(assign=True),
dtype moves, named_* with prefixes, Sequential/ModuleList editing, ParameterList/Dict."""
import copy
import fluxgrad as torch
import fluxgrad.nn as nn


class M(nn.Module):
    def __init__(self):
        super().__init__()
        self.a = nn.Linear(2, 2)
        self.register_module("b", nn.Linear(2, 1))
        self.scale = 3.0

    def forward(self, x):
        return self.b(self.a(x)) * self.scale

    def extra_repr(self):
        return f"scale={self.scale}"


m = M()
with torch.no_grad():
    for p in m.parameters():
        p.fill_(0.5)
print(m, [n for n, _ in m.named_parameters(prefix="model")], list(m.state_dict(prefix="p.").keys()))
m2 = copy.deepcopy(m)
m2.a.weight.data.fill_(1.0)
print(m.a.weight, m2.a.weight, m2(torch.ones(1, 2)))
m.zero_grad(set_to_none=False)
print(m.a.weight.grad)
m(torch.ones(1, 2)).sum().backward()
m.zero_grad(set_to_none=False)
print(m.a.weight.grad)
m.zero_grad()
print(m.a.weight.grad)
print(m.load_state_dict({k: v * 2 for k, v in m.state_dict().items()}, assign=True), m.a.bias)
print(m.cpu() is m, m.half().a.weight.dtype, m.float().b.bias.dtype, m.to(torch.float64).a.weight.dtype)
print(m.type(torch.float32).a.weight.dtype if hasattr(m, "type") else None)
print(sum(1 for _ in m.parameters()), len(list(m.buffers())), m.training, m.eval().training, m.train(False).training)
print([k for k, _ in m.named_modules(prefix="root")], m.get_submodule("a").in_features)
m.requires_grad_(False)
print([p.requires_grad for p in m.parameters()])
del m.scale
print(hasattr(m, "scale"))
p = nn.Parameter(torch.tensor([1.0, 2.0]))
print(p, p * 2, p.data, type(p.data).__name__, isinstance(p.detach(), nn.Parameter), p.grad)
seq = nn.Sequential(nn.Linear(1, 1))
seq.append(nn.ReLU())
seq.insert(0, nn.Identity())
seq.extend([nn.Tanh()])
print(seq, len(seq), seq.pop(1) if hasattr(seq, "pop") else None)
ml = nn.ModuleList([nn.ReLU()])
ml += [nn.Tanh()]
print(ml, ml[-1], ml[0:1])
pl = nn.ParameterList([nn.Parameter(torch.ones(1)), nn.Parameter(torch.zeros(2))])
print(len(pl), [p.shape for p in pl])
pd = nn.ParameterDict({"w": nn.Parameter(torch.ones(2))})
print(list(pd.keys()), pd["w"])
s2 = nn.Sequential(nn.ReLU(), nn.Tanh(), nn.Sigmoid())
s2.insert(-1, nn.Identity())
del s2[0]
s2[0] = nn.GELU()
print(s2, s2.pop(-1), s2)
print(ml + nn.ModuleList([nn.ELU()]), ml.pop(0), ml)


class Backbone(nn.Module):
    def __init__(self):
        super().__init__()
        self.conv1 = nn.Conv2d(1, 2, 3)
        self.bn = nn.BatchNorm2d(2)
        self.fc = nn.Linear(2, 5)
        self.w = nn.Parameter(torch.ones(1))
        self.register_buffer("steps", torch.zeros(1))


bb = Backbone()
bb.conv1 = nn.Conv2d(3, 2, 3)
bb.w = nn.Parameter(torch.zeros(1))
bb.register_buffer("steps", torch.ones(1))
bb.fc = nn.Linear(2, 10)
print(list(bb.state_dict().keys()), [n for n, _ in bb.named_children()], bb)
seq = nn.Sequential(nn.Linear(2, 2), nn.ReLU(), nn.Linear(2, 1))
seq[0] = nn.Identity()
print(seq, seq(torch.tensor([[-1.0, 2.0]])).shape)
