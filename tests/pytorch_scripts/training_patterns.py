"""Training-loop patterns: GAN (two optimizers, detach), VAE (reparameterisation with given noise),
gradient accumulation, weight tying, freezing, EMA weights, apply(init_fn), GradScaler/autocast off."""
import numpy as np
import fluxgrad as torch
import fluxgrad.nn as nn
import fluxgrad.nn.functional as F

rng = np.random.default_rng(11)


def init_weights(m):
    if isinstance(m, nn.Linear):
        with torch.no_grad():
            m.weight.copy_(torch.from_numpy(rng.uniform(-0.5, 0.5, tuple(m.weight.shape)).astype(np.float32)))
        nn.init.constant_(m.bias, 0.01)


G = nn.Sequential(nn.Linear(2, 8), nn.LeakyReLU(0.2), nn.Linear(8, 2))
D = nn.Sequential(nn.Linear(2, 8), nn.LeakyReLU(0.2), nn.Linear(8, 1), nn.Sigmoid())
G.apply(init_weights)
D.apply(init_weights)
opt_g = torch.optim.Adam(G.parameters(), lr=1e-2, betas=(0.5, 0.999))
opt_d = torch.optim.Adam(D.parameters(), lr=1e-2, betas=(0.5, 0.999))
criterion = nn.BCELoss()
real = torch.from_numpy(rng.standard_normal((16, 2)).astype(np.float32) + 3)
noise = torch.from_numpy(rng.standard_normal((16, 2)).astype(np.float32))
ones, zeros = torch.ones(16, 1), torch.zeros(16, 1)
for step in range(3):
    fake = G(noise)
    opt_d.zero_grad()
    loss_d = criterion(D(real), ones) + criterion(D(fake.detach()), zeros)
    loss_d.backward()
    opt_d.step()
    opt_g.zero_grad()
    loss_g = criterion(D(fake), ones)
    loss_g.backward()
    opt_g.step()
    print(step, f"D {loss_d.item():.4f} G {loss_g.item():.4f}")


class VAE(nn.Module):
    def __init__(self):
        super().__init__()
        self.enc = nn.Linear(4, 6)
        self.mu = nn.Linear(6, 2)
        self.logvar = nn.Linear(6, 2)
        self.dec = nn.Sequential(nn.Linear(2, 6), nn.ReLU(), nn.Linear(6, 4))

    def forward(self, x, eps):
        h = F.relu(self.enc(x))
        mu, logvar = self.mu(h), self.logvar(h)
        z = mu + eps * torch.exp(0.5 * logvar)
        return self.dec(z), mu, logvar


vae = VAE()
vae.apply(init_weights)
opt = torch.optim.Adam(vae.parameters(), lr=5e-3)
data = torch.from_numpy(rng.standard_normal((10, 4)).astype(np.float32))
for step in range(3):
    eps = torch.from_numpy(rng.standard_normal((10, 2)).astype(np.float32))
    recon, mu, logvar = vae(data, eps)
    rec = F.mse_loss(recon, data, reduction="sum")
    kld = -0.5 * torch.sum(1 + logvar - mu.pow(2) - logvar.exp())
    loss = (rec + kld) / data.size(0)
    opt.zero_grad()
    loss.backward()
    opt.step()
    print(step, round(rec.item(), 4), round(kld.item(), 4))
model = nn.Sequential(nn.Linear(4, 4), nn.Tanh(), nn.Linear(4, 1))
model.apply(init_weights)
opt = torch.optim.SGD(model.parameters(), lr=0.05)
target = data.sum(1, keepdim=True)
accum = 2
opt.zero_grad()
for i, (xb, yb) in enumerate(zip(data.split(5), target.split(5))):
    loss = F.mse_loss(model(xb), yb) / accum
    loss.backward()
    if (i + 1) % accum == 0:
        opt.step()
        opt.zero_grad()
print(model[0].weight, model[2].bias)


class TiedLM(nn.Module):
    def __init__(self, vocab=6, d=4):
        super().__init__()
        self.emb = nn.Embedding(vocab, d)
        self.out = nn.Linear(d, vocab, bias=False)
        self.out.weight = self.emb.weight

    def forward(self, idx):
        return self.out(self.emb(idx))


lm = TiedLM()
with torch.no_grad():
    lm.emb.weight.copy_(torch.from_numpy(rng.standard_normal((6, 4)).astype(np.float32)))
print(len(list(lm.parameters())), list(lm.state_dict().keys()), lm.out.weight is lm.emb.weight)
loss = F.cross_entropy(lm(torch.tensor([0, 1, 2])), torch.tensor([1, 2, 3]))
loss.backward()
print(loss, lm.emb.weight.grad[:3])
for p in model[0].parameters():
    p.requires_grad_(False)
opt = torch.optim.SGD(filter(lambda p: p.requires_grad, model.parameters()), lr=0.1)
before = model[0].weight.clone()
F.mse_loss(model(data), target).backward()
opt.step()
print(torch.equal(before, model[0].weight), model[0].weight.grad, model[2].weight.grad is not None)
ema = [p.detach().clone() for p in model.parameters()]
with torch.no_grad():
    for e, p in zip(ema, model.parameters()):
        e.mul_(0.9).add_(p, alpha=0.1)
        e.lerp_(p, 0.5)
print(ema[2])
scaler = torch.cuda.amp.GradScaler(enabled=False)
with torch.autocast(device_type="cpu", enabled=False):
    loss = F.mse_loss(model(data), target)
scaler.scale(loss).backward()
scaler.step(opt)
scaler.update()
print(loss.item(), scaler.is_enabled())
model.eval()
with torch.inference_mode():
    preds = model(data)
print(preds.requires_grad, preds[:2])
for g in opt.param_groups:
    g["lr"] *= 0.5
print(opt.param_groups[0]["lr"])
