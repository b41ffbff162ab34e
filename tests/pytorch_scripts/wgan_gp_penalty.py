"""WGAN-GP on 2-d points: a critic trained with the gradient penalty (autograd.grad with
create_graph=True on interpolates), Adam with betas (0.5, 0.9), n_critic steps per
generator step; the penalty's own gradient reaches the critic's weights."""
import numpy as np
import fluxgrad as torch
import fluxgrad.nn as nn
import fluxgrad.autograd as autograd

rng = np.random.default_rng(7)


def init(module, scale=0.4):
    with torch.no_grad():
        for p in module.parameters():
            p.copy_(torch.tensor(rng.uniform(-scale, scale, tuple(p.shape)), dtype=torch.float32))
    return module


G = init(nn.Sequential(nn.Linear(2, 8), nn.ReLU(), nn.Linear(8, 2)))
D = init(nn.Sequential(nn.Linear(2, 8), nn.LeakyReLU(0.2), nn.Linear(8, 8), nn.Tanh(), nn.Linear(8, 1)))
opt_g = torch.optim.Adam(G.parameters(), lr=1e-3, betas=(0.5, 0.9))
opt_d = torch.optim.Adam(D.parameters(), lr=1e-3, betas=(0.5, 0.9))
LAMBDA = 10.0


def gradient_penalty(critic, real, fake, alpha):
    interpolates = (alpha * real + (1 - alpha) * fake).requires_grad_(True)
    scores = critic(interpolates)
    grads = autograd.grad(outputs=scores, inputs=interpolates,
                          grad_outputs=torch.ones_like(scores),
                          create_graph=True, retain_graph=True, only_inputs=True)[0]
    return ((grads.norm(2, dim=1) - 1) ** 2).mean(), grads


for it in range(3):
    for _ in range(2):
        real = torch.tensor(rng.normal([2.0, -1.0], 0.3, (8, 2)), dtype=torch.float32)
        z = torch.tensor(rng.standard_normal((8, 2)), dtype=torch.float32)
        alpha = torch.tensor(rng.uniform(size=(8, 1)), dtype=torch.float32)
        fake = G(z).detach()
        gp, grads = gradient_penalty(D, real, fake, alpha)
        d_loss = D(fake).mean() - D(real).mean() + LAMBDA * gp
        opt_d.zero_grad()
        d_loss.backward()
        gnorm = torch.sqrt(sum((p.grad ** 2).sum() for p in D.parameters()))
        opt_d.step()
        print(f"D loss {d_loss.item():.5f} gp {gp.item():.5f} |grad D| {gnorm.item():.5f} "
              f"slope {grads.norm(dim=1).mean().item():.5f}")
    for p in D.parameters():
        p.requires_grad_(False)
    z = torch.tensor(rng.standard_normal((8, 2)), dtype=torch.float32)
    g_loss = -D(G(z)).mean()
    opt_g.zero_grad()
    g_loss.backward()
    opt_g.step()
    for p in D.parameters():
        p.requires_grad_(True)
    print(f"iter {it} G loss {g_loss.item():.5f}", all(p.grad is None or p.grad.abs().sum() >= 0 for p in D.parameters()))
print(G[0].weight.grad is not None, D[0].weight.requires_grad)
