"""Autoencoders from a course: a denoising autoencoder with tied weights (the decoder is
F.linear(h, encoder.weight.t())), masking noise from NumPy, a sparsity L1 penalty on the code,
and the contractive penalty ||dh/dx||_F^2 computed in closed form for a sigmoid encoder and
checked against torch.autograd.functional.jacobian."""
import numpy as np
import fluxgrad as torch
import fluxgrad.nn as nn
import fluxgrad.nn.functional as F

rng = np.random.default_rng(19)
data = torch.from_numpy((rng.uniform(0, 1, (16, 10)) > 0.5).astype(np.float32))


class TiedAE(nn.Module):
    def __init__(self, n_in, n_hidden):
        super().__init__()
        self.encoder = nn.Linear(n_in, n_hidden)
        self.decoder_bias = nn.Parameter(torch.zeros(n_in))

    def encode(self, x):
        return torch.sigmoid(self.encoder(x))

    def forward(self, x):
        h = self.encode(x)
        return torch.sigmoid(F.linear(h, self.encoder.weight.t(), self.decoder_bias)), h


ae = TiedAE(10, 4)
with torch.no_grad():
    ae.encoder.weight.copy_(torch.from_numpy(rng.uniform(-0.5, 0.5, (4, 10)).astype(np.float32)))
    ae.encoder.bias.fill_(0.1)
print([n for n, _ in ae.named_parameters()], sum(p.numel() for p in ae.parameters()))
opt = torch.optim.Adam(ae.parameters(), lr=0.02)
for epoch in range(8):
    mask = torch.from_numpy((rng.uniform(0, 1, data.shape) > 0.3).astype(np.float32))
    recon, h = ae(data * mask)
    bce = F.binary_cross_entropy(recon, data)
    sparsity = h.abs().mean()
    W = ae.encoder.weight
    contractive = ((h * (1 - h)) ** 2 @ (W ** 2).sum(1)).mean()
    loss = bce + 1e-2 * sparsity + 0.1 * contractive
    opt.zero_grad()
    loss.backward()
    opt.step()
    print(epoch, f"{bce.item():.5f}", f"{contractive.item():.5f}", f"{loss.item():.5f}")
print(ae.encoder.weight.grad.shape, ae.decoder_bias.grad[:3])

x0 = data[0]
J = torch.autograd.functional.jacobian(ae.encode, x0)
h0 = ae.encode(x0)
closed = ((h0 * (1 - h0)) ** 2 * (ae.encoder.weight ** 2).sum(1)).sum()
print(J.shape, f"{J.pow(2).sum().item():.6f}", f"{closed.item():.6f}")
with torch.no_grad():
    recon, h = ae(data)
    print((recon > 0.5).float().eq(data).float().mean(), h[:2])
