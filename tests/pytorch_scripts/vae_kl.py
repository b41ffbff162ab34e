"""A VAE the way the PyTorch examples write it: encoder to mu/logvar, reparameterisation with given
noise, BCE reconstruction plus the closed-form KL term, and the same KL from torch.distributions."""
import numpy as np
import fluxgrad as torch
import fluxgrad.nn as nn
import fluxgrad.nn.functional as F
from fluxgrad.distributions import Normal, kl_divergence

rng = np.random.default_rng(21)


class VAE(nn.Module):
    def __init__(self, d_in=12, d_hidden=8, d_latent=3):
        super().__init__()
        self.fc1 = nn.Linear(d_in, d_hidden)
        self.fc21 = nn.Linear(d_hidden, d_latent)
        self.fc22 = nn.Linear(d_hidden, d_latent)
        self.fc3 = nn.Linear(d_latent, d_hidden)
        self.fc4 = nn.Linear(d_hidden, d_in)

    def encode(self, x):
        h1 = F.relu(self.fc1(x))
        return self.fc21(h1), self.fc22(h1)

    def reparameterize(self, mu, logvar, eps):
        std = torch.exp(0.5 * logvar)
        return mu + eps * std

    def decode(self, z):
        h3 = F.relu(self.fc3(z))
        return torch.sigmoid(self.fc4(h3))

    def forward(self, x, eps):
        mu, logvar = self.encode(x.view(-1, 12))
        z = self.reparameterize(mu, logvar, eps)
        return self.decode(z), mu, logvar


def loss_function(recon_x, x, mu, logvar):
    BCE = F.binary_cross_entropy(recon_x, x.view(-1, 12), reduction="sum")
    KLD = -0.5 * torch.sum(1 + logvar - mu.pow(2) - logvar.exp())
    return BCE, KLD


model = VAE()
with torch.no_grad():
    for p in model.parameters():
        p.copy_(torch.from_numpy(rng.uniform(-0.4, 0.4, tuple(p.shape)).astype(np.float32)))
optimizer = torch.optim.Adam(model.parameters(), lr=1e-2)
data = torch.from_numpy((rng.uniform(size=(16, 3, 4)) > 0.5).astype(np.float32))
model.train()
for epoch in range(1, 4):
    train_loss = 0
    for batch_idx, x in enumerate(data.split(8)):
        eps = torch.from_numpy(rng.standard_normal((x.size(0), 3)).astype(np.float32))
        optimizer.zero_grad()
        recon_batch, mu, logvar = model(x, eps)
        bce, kld = loss_function(recon_batch, x, mu, logvar)
        loss = bce + kld
        loss.backward()
        train_loss += loss.item()
        optimizer.step()
    print(f"====> Epoch: {epoch} Average loss: {train_loss / len(data):.4f}")
model.eval()
with torch.no_grad():
    mu, logvar = model.encode(data[:4].view(-1, 12))
    q = Normal(mu, torch.exp(0.5 * logvar))
    p = Normal(torch.zeros_like(mu), torch.ones_like(logvar))
    kl = kl_divergence(q, p).sum()
    closed = -0.5 * torch.sum(1 + logvar - mu.pow(2) - logvar.exp())
    print(kl, closed, torch.allclose(kl, closed, atol=1e-5))
    print(q.mean.shape, q.stddev[0], q.log_prob(mu).sum(-1), q.entropy().sum(1))
    z = torch.from_numpy(rng.standard_normal((2, 3)).astype(np.float32))
    sample = model.decode(z)
    print(sample.view(2, 3, 4)[0], sample.max().item() <= 1.0)
    recon, _, _ = model(data[:2], torch.zeros(2, 3))
    print(F.binary_cross_entropy(recon, data[:2].view(-1, 12), reduction="none").mean(dim=1))
