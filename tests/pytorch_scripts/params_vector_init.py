"""Model plumbing from course notebooks: flattening all parameters into one vector and back
(parameters_to_vector / vector_to_parameters, as in natural-gradient and evolution-strategy
code), model.apply(init_fn) with per-type initialisation, named_modules / named_buffers with
non-persistent buffers, and train/eval flips checked on every submodule."""
import numpy as np
import fluxgrad as torch
import fluxgrad.nn as nn
from fluxgrad.nn.utils import parameters_to_vector, vector_to_parameters


class Block(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(3, 4)
        self.norm = nn.LayerNorm(4)
        self.drop = nn.Dropout(0.5)
        self.register_buffer("scale", torch.tensor([2.0]))
        self.register_buffer("cache", torch.zeros(4), persistent=False)

    def forward(self, x):
        h = self.drop(self.norm(self.fc(x))) * self.scale
        self.cache = h.detach().mean(0)
        return h


model = nn.Sequential(Block(), nn.ReLU(), nn.Linear(4, 2))


def init_fn(m):
    if isinstance(m, nn.Linear):
        nn.init.constant_(m.weight, 0.1)
        nn.init.zeros_(m.bias)
    elif isinstance(m, nn.LayerNorm):
        nn.init.constant_(m.weight, 1.5)
        nn.init.constant_(m.bias, 0.25)
    print("init", type(m).__name__)


print(model.apply(init_fn) is model)
vec = parameters_to_vector(model.parameters())
print(vec.shape, vec.sum(), vec[:6])
vector_to_parameters(torch.linspace(-1, 1, vec.numel()), model.parameters())
print(model[0].fc.weight, model[2].bias)
print(parameters_to_vector(model.parameters())[-4:])

print([name for name, _ in model.named_modules()])
print([(name, type(m).__name__) for name, m in model.named_modules(prefix="net") if name.count(".") == 1])
print([name for name, _ in model.named_buffers()], list(model.state_dict().keys()))
print(list(model[0]._buffers.keys()), model[0].cache)

x = torch.tensor([[1.0, 2.0, 3.0], [0.5, -1.0, 2.0]])
model.eval()
print([m.training for m in model.modules()])
out1, out2 = model(x), model(x)
print(torch.equal(out1, out2), out1)
print(model[0].cache)
model.train()
print([m.training for m in model.modules()])
model[0].drop.eval()
print(model[0].training, model[0].drop.training, model(x))
model.train(False)
print(model.training, model[0].norm.training)

rng = np.random.default_rng(0)
sigma, lr = 0.1, 0.05
theta = parameters_to_vector(model.parameters()).detach()


def fitness(params):
    vector_to_parameters(params, model.parameters())
    with torch.no_grad():
        return -(model(x) - torch.tensor([[1.0, 0.0], [0.0, 1.0]])).pow(2).mean()


for it in range(3):
    noise = torch.from_numpy(rng.standard_normal((8, theta.numel())).astype(np.float32))
    scores = torch.stack([fitness(theta + sigma * n) for n in noise])
    scores = (scores - scores.mean()) / (scores.std() + 1e-8)
    theta = theta + lr / (8 * sigma) * (noise * scores[:, None]).sum(0)
    print(it, f"{fitness(theta).item():.5f}")

grads = [torch.ones_like(p) * i for i, p in enumerate(model.parameters())]
for p, g in zip(model.parameters(), grads):
    p.grad = g
flat_grad = torch.cat([p.grad.view(-1) for p in model.parameters()])
print(flat_grad.shape, flat_grad.sum(), sum(p.numel() for p in model.parameters() if p.requires_grad))
