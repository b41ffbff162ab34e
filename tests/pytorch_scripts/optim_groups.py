"""SGD / Adam / AdamW / RMSprop / Adagrad with param groups, weight decay, nesterov, amsgrad;
optimizer state_dict, add_param_group, grad clipping."""
import numpy as np
import fluxgrad as torch
import fluxgrad.nn as nn

rng = np.random.default_rng(6)
X = torch.from_numpy(rng.standard_normal((16, 5)).astype(np.float32))
Y = torch.from_numpy(rng.standard_normal((16, 2)).astype(np.float32))


def make_model():
    model = nn.Sequential(nn.Linear(5, 8), nn.Tanh(), nn.Linear(8, 2))
    r = np.random.default_rng(0)
    with torch.no_grad():
        for p in model.parameters():
            p.copy_(torch.from_numpy(r.uniform(-0.4, 0.4, tuple(p.shape)).astype(np.float32)))
    return model


def train(model, opt, steps=5, clip=None):
    losses = []
    for _ in range(steps):
        opt.zero_grad()
        loss = nn.functional.mse_loss(model(X), Y)
        loss.backward()
        if clip == "norm":
            total = torch.nn.utils.clip_grad_norm_(model.parameters(), max_norm=0.5)
            losses.append(round(total.item(), 4))
        elif clip == "value":
            torch.nn.utils.clip_grad_value_(model.parameters(), clip_value=0.05)
        opt.step()
        losses.append(round(loss.item(), 5))
    return losses


m = make_model()
print(train(m, torch.optim.SGD(m.parameters(), lr=0.1)))
m = make_model()
print(train(m, torch.optim.SGD(m.parameters(), lr=0.05, momentum=0.9, nesterov=True, weight_decay=1e-3)))
m = make_model()
print(train(m, torch.optim.SGD(m.parameters(), lr=0.05, momentum=0.9, dampening=0.1)))
m = make_model()
print(train(m, torch.optim.Adam(m.parameters(), lr=0.01, betas=(0.8, 0.99), eps=1e-6)))
m = make_model()
print(train(m, torch.optim.Adam(m.parameters(), lr=0.01, weight_decay=0.1, amsgrad=True)))
m = make_model()
print(train(m, torch.optim.AdamW(m.parameters(), lr=0.01)))
m = make_model()
opt = torch.optim.AdamW([
    {"params": m[0].parameters(), "lr": 0.02, "weight_decay": 0.1},
    {"params": m[2].parameters()},
], lr=0.005, weight_decay=0.0)
print(train(m, opt), [g["lr"] for g in opt.param_groups], [g["weight_decay"] for g in opt.param_groups])
print(sorted(opt.param_groups[0].keys()))
m = make_model()
decay, no_decay = [], []
for name, p in m.named_parameters():
    (no_decay if name.endswith("bias") else decay).append(p)
opt = torch.optim.SGD([{"params": decay, "weight_decay": 0.01}, {"params": no_decay, "weight_decay": 0.0}], lr=0.1, momentum=0.5)
print(train(m, opt, clip="norm"))
m = make_model()
print(train(m, torch.optim.RMSprop(m.parameters(), lr=0.01, alpha=0.9), clip="value"))
m = make_model()
print(train(m, torch.optim.Adagrad(m.parameters(), lr=0.1)))
m = make_model()
print(train(m, torch.optim.RMSprop(m.parameters(), lr=0.01, momentum=0.5, centered=True)))
m = make_model()
print(train(m, torch.optim.Adamax(m.parameters(), lr=0.02)), train(m, torch.optim.NAdam(m.parameters(), lr=0.02), 2))
m = make_model()
print(train(m, torch.optim.Adadelta(m.parameters(), lr=1.0), 3), train(m, torch.optim.RAdam(m.parameters(), lr=0.01), 3))
m = make_model()
opt = torch.optim.Adam(m.parameters(), lr=0.01)
train(m, opt, 2)
sd = opt.state_dict()
print(list(sd.keys()), len(sd["state"]), sorted(sd["state"][0].keys()), sd["state"][0]["step"], sd["param_groups"][0]["params"])
m2 = make_model()
m2.load_state_dict(m.state_dict())
opt2 = torch.optim.Adam(m2.parameters(), lr=0.01)
opt2.load_state_dict(sd)
print(train(m, opt, 2), train(m2, opt2, 2))
m = make_model()
opt = torch.optim.SGD(m[0].parameters(), lr=0.1)
opt.add_param_group({"params": m[2].parameters(), "lr": 0.01})
print(len(opt.param_groups), train(m, opt, 2))
for g in opt.param_groups:
    g["lr"] = 0.0
before = m[0].weight.clone()
train(m, opt, 1)
print(torch.equal(before, m[0].weight))
p = torch.tensor([1.0, -2.0], requires_grad=True)
opt = torch.optim.SGD([p], lr=0.1, maximize=True)
(p ** 2).sum().backward()
opt.step()
print(p)
grads = [torch.tensor([3.0, 4.0]), torch.tensor([12.0])]
params = [torch.zeros(2, requires_grad=True), torch.zeros(1, requires_grad=True)]
for q, g in zip(params, grads):
    q.grad = g
print(torch.nn.utils.clip_grad_norm_(params, 6.5), params[0].grad, params[1].grad)
print(torch.nn.utils.clip_grad_norm_(params, 1.0, norm_type=float("inf")), params[1].grad)
vec = torch.nn.utils.parameters_to_vector(make_model().parameters())
print(vec.shape, vec[:3])
m = make_model()
print(torch.optim.SGD(m.parameters(), lr=0.1, momentum=0.9, foreach=False))
print(torch.optim.AdamW(m.parameters(), lr=1e-3, betas=(0.9, 0.95), fused=None))
m = make_model()
print(train(m, torch.optim.Adam(m.parameters(), lr=0.01, weight_decay=0.1, decoupled_weight_decay=True)))
grads = [torch.tensor([3.0, 4.0]), torch.tensor([12.0])]
print(torch.nn.utils.get_total_norm(grads), torch.nn.utils.get_total_norm(grads, norm_type=1.0))
params = [torch.zeros(2, requires_grad=True), torch.zeros(1, requires_grad=True)]
for q, g in zip(params, grads):
    q.grad = g.clone()
total = torch.nn.utils.get_total_norm([q.grad for q in params])
torch.nn.utils.clip_grads_with_norm_(params, 1.3, total)
print(total, params[0].grad, params[1].grad, torch.nn.utils.clip_grad_norm_(params, 10.0, foreach=True))
