"""A tiny DCGAN step-by-step: ConvTranspose2d generator, Conv2d discriminator, BatchNorm, weights_init
via apply, two Adam optimizers, detach, BCELoss with real/fake labels filled in place."""
import numpy as np
import fluxgrad as torch
import fluxgrad.nn as nn

rng = np.random.default_rng(5)
nz, ngf, ndf, nc = 4, 4, 4, 1


def weights_init(m):
    classname = m.__class__.__name__
    if classname.find("Conv") != -1:
        with torch.no_grad():
            m.weight.copy_(torch.from_numpy(rng.normal(0.0, 0.2, tuple(m.weight.shape)).astype(np.float32)))
    elif classname.find("BatchNorm") != -1:
        nn.init.constant_(m.weight, 1.0)
        nn.init.constant_(m.bias, 0)


class Generator(nn.Module):
    def __init__(self):
        super().__init__()
        self.main = nn.Sequential(
            nn.ConvTranspose2d(nz, ngf * 2, 4, 1, 0, bias=False),
            nn.BatchNorm2d(ngf * 2),
            nn.ReLU(True),
            nn.ConvTranspose2d(ngf * 2, nc, 4, 2, 1, bias=False),
            nn.Tanh(),
        )

    def forward(self, input):
        return self.main(input)


class Discriminator(nn.Module):
    def __init__(self):
        super().__init__()
        self.main = nn.Sequential(
            nn.Conv2d(nc, ndf, 4, 2, 1, bias=False),
            nn.LeakyReLU(0.2, inplace=True),
            nn.Conv2d(ndf, ndf * 2, 4, 2, 1, bias=False),
            nn.BatchNorm2d(ndf * 2),
            nn.LeakyReLU(0.2, inplace=True),
            nn.Conv2d(ndf * 2, 1, 2, 1, 0, bias=False),
            nn.Sigmoid(),
        )

    def forward(self, input):
        return self.main(input)


netG, netD = Generator(), Discriminator()
netG.apply(weights_init)
netD.apply(weights_init)
print(netG)
print(sum(p.numel() for p in netG.parameters()), sum(p.numel() for p in netD.parameters()))
criterion = nn.BCELoss()
fixed_noise = torch.from_numpy(rng.standard_normal((2, nz, 1, 1)).astype(np.float32))
real_label, fake_label = 1.0, 0.0
optimizerD = torch.optim.Adam(netD.parameters(), lr=0.002, betas=(0.5, 0.999))
optimizerG = torch.optim.Adam(netG.parameters(), lr=0.002, betas=(0.5, 0.999))
real_data = torch.from_numpy(np.tanh(rng.standard_normal((6, nc, 8, 8))).astype(np.float32))
for i, real_cpu in enumerate(real_data.split(3)):
    netD.zero_grad()
    b_size = real_cpu.size(0)
    label = torch.full((b_size,), real_label, dtype=torch.float)
    output = netD(real_cpu).view(-1)
    errD_real = criterion(output, label)
    errD_real.backward()
    D_x = output.mean().item()
    noise = torch.from_numpy(rng.standard_normal((b_size, nz, 1, 1)).astype(np.float32))
    fake = netG(noise)
    label.fill_(fake_label)
    output = netD(fake.detach()).view(-1)
    errD_fake = criterion(output, label)
    errD_fake.backward()
    D_G_z1 = output.mean().item()
    errD = errD_real + errD_fake
    optimizerD.step()
    netG.zero_grad()
    label.fill_(real_label)
    output = netD(fake).view(-1)
    errG = criterion(output, label)
    errG.backward()
    D_G_z2 = output.mean().item()
    optimizerG.step()
    print("[%d/%d] Loss_D: %.4f Loss_G: %.4f D(x): %.4f D(G(z)): %.4f / %.4f"
          % (i, 2, errD.item(), errG.item(), D_x, D_G_z1, D_G_z2))
with torch.no_grad():
    fake = netG(fixed_noise).detach().cpu()
print(fake.shape, fake[0, 0, :2])
print(netD.main[3].running_mean, netD.main[3].num_batches_tracked)
