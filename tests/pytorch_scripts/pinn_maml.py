"""Higher-order autograd as research code uses it: a physics-informed network (u_x and u_xx by
torch.autograd.grad with create_graph and grad_outputs=ones_like, a PDE residual loss trained with
Adam), MAML's inner loop (functional parameters updated with create_graph=True, outer loss through the
adaptation), a gradient penalty (WGAN-GP style), and an Euler-integrated ODE trained end to end."""
import math
import numpy as np
import fluxgrad as torch
import fluxgrad.nn as nn
import fluxgrad.nn.functional as F
from fluxgrad.func import functional_call

rng = np.random.default_rng(113)


def fill(module, scale=0.5):
    with torch.no_grad():
        for p in module.parameters():
            p.copy_(torch.from_numpy(rng.uniform(-scale, scale, tuple(p.shape)).astype(np.float32)))
    return module


u_net = fill(nn.Sequential(nn.Linear(1, 8), nn.Tanh(), nn.Linear(8, 8), nn.Tanh(), nn.Linear(8, 1)))
x = torch.linspace(0, 1, 9).unsqueeze(1).requires_grad_(True)
opt = torch.optim.Adam(u_net.parameters(), lr=0.01)
for step in range(4):
    u = u_net(x)
    u_x = torch.autograd.grad(u, x, grad_outputs=torch.ones_like(u), create_graph=True)[0]
    u_xx = torch.autograd.grad(u_x, x, grad_outputs=torch.ones_like(u_x), create_graph=True)[0]
    residual = u_xx + math.pi ** 2 * torch.sin(math.pi * x)
    bc = u_net(torch.tensor([[0.0], [1.0]]))
    loss = residual.pow(2).mean() + bc.pow(2).mean()
    opt.zero_grad()
    loss.backward()
    opt.step()
    print(step, round(loss.item(), 5), u_x[0].item(), u_xx[4].item())
print(u_net[0].weight.grad[:3].flatten(), x.grad is None or x.grad.shape)
model = fill(nn.Sequential(nn.Linear(1, 6), nn.ReLU(), nn.Linear(6, 1)))
meta_opt = torch.optim.SGD(model.parameters(), lr=0.01)
tasks = [(torch.from_numpy(rng.uniform(-2, 2, (5, 1)).astype(np.float32)), a) for a in (0.5, 1.5)]
inner_lr = 0.1
meta_opt.zero_grad()
total = 0.0
for xs, amp in tasks:
    ys = amp * torch.sin(xs)
    params = dict(model.named_parameters())
    for _ in range(2):
        inner_loss = F.mse_loss(functional_call(model, params, (xs,)), ys)
        grads = torch.autograd.grad(inner_loss, list(params.values()), create_graph=True)
        params = {name: p - inner_lr * g for (name, p), g in zip(params.items(), grads)}
    outer = F.mse_loss(functional_call(model, params, (xs + 0.1,)), amp * torch.sin(xs + 0.1))
    outer.backward()
    total += outer.item()
    print(round(inner_loss.item(), 5), round(outer.item(), 5))
meta_opt.step()
print(round(total, 5), model[0].weight.grad.flatten()[:3], model[2].bias.grad)
critic = fill(nn.Sequential(nn.Linear(2, 8), nn.LeakyReLU(0.2), nn.Linear(8, 1)))
real = torch.from_numpy(rng.standard_normal((4, 2)).astype(np.float32))
fake = torch.from_numpy(rng.standard_normal((4, 2)).astype(np.float32))
alpha = torch.from_numpy(rng.uniform(size=(4, 1)).astype(np.float32))
interp = (alpha * real + (1 - alpha) * fake).requires_grad_(True)
d_interp = critic(interp)
gradients = torch.autograd.grad(outputs=d_interp, inputs=interp, grad_outputs=torch.ones_like(d_interp),
                                create_graph=True, retain_graph=True, only_inputs=True)[0]
gp = ((gradients.norm(2, dim=1) - 1) ** 2).mean()
loss_c = critic(fake).mean() - critic(real).mean() + 10 * gp
loss_c.backward()
print(gp, loss_c, critic[0].weight.grad[0], gradients.norm(2, dim=1))
k = torch.tensor(0.5, requires_grad=True)
y = torch.tensor([1.0])
dt = 0.1
for _ in range(10):
    y = y + dt * (-k * y)
loss = (y - math.exp(-1.0)).pow(2).sum()
loss.backward()
print(y, k.grad, loss)
