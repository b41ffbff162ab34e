"""The smallest GAN people write to understand the game: a generator mapping NumPy noise to 1-d
samples, a discriminator on [x, x^2] features, BCEWithLogitsLoss with one-sided label smoothing,
the non-saturating generator loss, detach() for the discriminator step, separate Adam
optimizers (betas=(0.5, 0.999)), requires_grad toggling, and the generated mean / std."""
import numpy as np
import fluxgrad as torch
import fluxgrad.nn as nn

rng = np.random.default_rng(6)
G = nn.Sequential(nn.Linear(2, 8), nn.LeakyReLU(0.2), nn.Linear(8, 1))
D = nn.Sequential(nn.Linear(2, 8), nn.LeakyReLU(0.2), nn.Linear(8, 1))
for net in (G, D):
    with torch.no_grad():
        for p in net.parameters():
            p.copy_(torch.from_numpy(rng.normal(0, 0.4, tuple(p.shape)).astype(np.float32)))
features = lambda x: torch.cat([x, x * x], dim=1)
criterion = nn.BCEWithLogitsLoss()
opt_g = torch.optim.Adam(G.parameters(), lr=0.01, betas=(0.5, 0.999))
opt_d = torch.optim.Adam(D.parameters(), lr=0.01, betas=(0.5, 0.999))
real_label, fake_label = 0.9, 0.0

for step in range(12):
    real = torch.from_numpy(rng.normal(3.0, 0.5, (32, 1)).astype(np.float32))
    z = torch.from_numpy(rng.standard_normal((32, 2)).astype(np.float32))
    fake = G(z)
    for p in D.parameters():
        p.requires_grad_(True)
    opt_d.zero_grad()
    d_real = D(features(real))
    d_fake = D(features(fake.detach()))
    loss_d = criterion(d_real, torch.full_like(d_real, real_label)) + criterion(d_fake, torch.full_like(d_fake, fake_label))
    loss_d.backward()
    opt_d.step()
    print(G[0].weight.grad is None, end=" ")
    for p in D.parameters():
        p.requires_grad_(False)
    opt_g.zero_grad()
    d_out = D(features(fake))
    loss_g = criterion(d_out, torch.ones_like(d_out))
    loss_g.backward()
    opt_g.step()
    print(step, f"{loss_d.item():.5f}", f"{loss_g.item():.5f}", D[0].weight.grad.abs().sum() > 0)
with torch.no_grad():
    samples = G(torch.from_numpy(rng.standard_normal((200, 2)).astype(np.float32)))
    print(f"{samples.mean().item():.4f}", f"{samples.std().item():.4f}", torch.sigmoid(D(features(samples))).mean())
